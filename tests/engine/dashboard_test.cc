// `lakestream status --serve`: the dashboard page, rendered by headless Chromium (Debian's
// chromium package) as a user's browser would: its charts and the latest check result are
// drawn, and a screenshot is kept as a test artifact (test-artifacts/dashboard.png).
#include <signal.h>

#include <cstdlib>
#include <filesystem>

#include "ops_pipeline.h"

namespace lakestream::testing {
namespace {

std::string chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(path)) return path;
  return "";
}

// Runs headless Chromium on `url` with a fresh profile; returns the rendered DOM and writes a
// screenshot to `png`.
std::string render(const std::string& url, const std::string& profile, const std::string& png, const std::string& dir) {
  std::string flags = " --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
                      " --disable-sync --no-first-run --hide-scrollbars --user-data-dir=" + profile +
                      " --window-size=1160,1640 --virtual-time-budget=5000 ";
  std::string dom = dir + "/dom.html";
  std::system(("timeout 90 " + chromium() + flags + "--dump-dom '" + url + "' > " + dom + " 2>/dev/null").c_str());
  std::system(("timeout 90 " + chromium() + flags + "--screenshot=" + png + " '" + url + "' > /dev/null 2>&1").c_str());
  return read_text(dom);
}

TEST(Dashboard, ChromiumRendersTheChartsAndTheLatestCheck) {
  if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (scripts/setup installs it)";
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  // A few runs, for lines to draw: one order late, the rest in time.
  const char* sends[][2] = {{"0905", "0950"}, {"1130", "1010"}, {"0910", "1240"}, {"1300", "1350"}, {"1420", "1500"}};
  int id = 0;
  for (const auto& send : sends) {
    std::string first = order_at(++id, send[0]);
    f.produce("orders", first + order_at(++id, send[1]), "order_id");
    ASSERT_EQ(f.lakestream("run").exit_code, 0);
  }
  ASSERT_EQ(f.lakestream("check").exit_code, 0);

  BackgroundProcess server({"status", "-p", f.pipeline_file(), "--serve", "--port", "0"}, f.dir());
  ASSERT_TRUE(server.wait_for_output("dashboard at", 10000)) << server.out() << server.err();
  int port = port_in(server.out());
  std::string api;
  EXPECT_NE(http_get(port, "/api/progress").find("\"maxEventTimeMs\""), std::string::npos);
  http_get(port, "/nope", &api);
  EXPECT_EQ(api, "HTTP/1.0 404 Not Found");

  std::string artifacts = std::filesystem::absolute("test-artifacts");
  std::filesystem::create_directories(artifacts);
  std::string png = artifacts + "/dashboard.png";
  std::filesystem::remove(png);
  std::string dom = render("http://127.0.0.1:" + std::to_string(port) + "/", f.dir() + "/chromium-profile", png, f.dir());

  EXPECT_NE(dom.find("data-rendered=\"yes\""), std::string::npos) << "the page's script finished: " << dom;
  EXPECT_NE(dom.find("<td>hourly_sales</td><td class=\"health ok\">ok</td>"), std::string::npos) << dom;
  EXPECT_NE(dom.find("hourly_sales \u2192 hourly_sales (9 batches)"), std::string::npos) << dom;
  size_t canvases = 0;
  for (size_t at = dom.find("<canvas"); at != std::string::npos; at = dom.find("<canvas", at + 1)) canvases++;
  EXPECT_EQ(canvases, 8u) << "rates and lag for the three streams, event time and late drops for the window";
  EXPECT_NE(dom.find("late rows dropped per batch"), std::string::npos);
  EXPECT_NE(dom.find("no problem"), std::string::npos) << "the latest check result: " << dom;
  EXPECT_NE(dom.find("class=\"late\">late    09:00"), std::string::npos) << dom;

  ASSERT_TRUE(std::filesystem::exists(png)) << "no screenshot";
  std::string header = read_text(png).substr(0, 8);
  EXPECT_EQ(header, "\x89PNG\r\n\x1a\n");
  EXPECT_GT(std::filesystem::file_size(png), 20000u) << "a page with charts, not a blank one";

  // The search box: why's answer over HTTP, and drawn by the page from a link to it. Order 5
  // (09:10) came after 11:30 had moved the watermark past the hour 09:00: late.
  nlohmann::json record = nlohmann::json::parse(http_get(port, "/api/why?q=order_id%3D5"));
  ASSERT_EQ(record["trails"].size(), 1u) << record.dump();
  EXPECT_EQ(record["trails"][0]["steps"].back()["table"], "hourly_sales");
  EXPECT_EQ(record["trails"][0]["steps"].back()["verdict"], "late") << record.dump();
  nlohmann::json window = nlohmann::json::parse(http_get(port, "/api/why?mode=window&q=hourly_sales+09%3A00"));
  EXPECT_EQ(window["verdicts"], nlohmann::json::parse(R"({"late": 1, "counted": 2})")) << window.dump();
  std::string refused = http_get(port, "/api/why?q=", &api);
  EXPECT_EQ(api, "HTTP/1.0 400 Bad Request");
  EXPECT_NE(refused.find("which record?"), std::string::npos) << refused;
  std::string asked = render("http://127.0.0.1:" + std::to_string(port) + "/#mode=window&q=09%3A00", f.dir() + "/chromium-profile-why",
                             artifacts + "/dashboard-why.png", f.dir());
  EXPECT_NE(asked.find("data-answered=\"yes\""), std::string::npos) << asked;
  EXPECT_NE(asked.find("hourly_sales, the hour 2026-10-01 09:00: 2 counted, 1 late"), std::string::npos) << asked;
  EXPECT_NE(asked.find("<div class=\"late\">  late        hourly_sales: the watermark was "), std::string::npos) << asked;
  EXPECT_NE(asked.find("<a class=\"why\">all records</a>"), std::string::npos) << "the late line opens its window: " << asked;

  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait(10000).exit_code, 0);

  // With the brokers out of reach the lag is unknown, as status says, not 0 offsets.
  std::string pipeline = ops_pipeline();
  pipeline.replace(pipeline.find("@BOOTSTRAP@"), 11, "127.0.0.1:1");
  write_text(f.pipeline_file(), pipeline);
  BackgroundProcess unreachable({"status", "-p", f.pipeline_file(), "--serve", "--port", "0"}, f.dir());
  ASSERT_TRUE(unreachable.wait_for_output("dashboard at", 10000)) << unreachable.out() << unreachable.err();
  std::string down = render("http://127.0.0.1:" + std::to_string(port_in(unreachable.out())) + "/",
                            f.dir() + "/chromium-profile-2", f.dir() + "/down.png", f.dir());
  EXPECT_NE(down.find("<td>unknown: "), std::string::npos) << down;
  EXPECT_EQ(down.find(" offsets</td>"), std::string::npos) << down;
  unreachable.send_signal(SIGTERM);
  EXPECT_EQ(unreachable.wait(30000).exit_code, 0);
}

}  // namespace
}  // namespace lakestream::testing
