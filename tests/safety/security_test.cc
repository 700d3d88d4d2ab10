// Secrets stay secret: credentials given as librdkafka properties appear in no output, error,
// progress line, checkpoint or commit; checkpoints and state are private to their owner.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "safety/safety_pipeline.h"
#include "shop/shop_scenario.h"

namespace lakestream::testing {
namespace {

const char* kSecrets[] = {"sasl-pass-7f3e9", "ssl-key-pass-c41d"};

std::string secret_properties(const std::string& extra = "") {
  return "[kafka.properties]\n\"sasl.password\" = \"${LS_TEST_SASL_PASSWORD}\"\n\"ssl.key.password\" = \"" +
         std::string(kSecrets[1]) + "\"\n" + extra;
}

void expect_no_secret(const std::string& where, const std::string& text) {
  for (const char* secret : kSecrets) EXPECT_FALSE(contains(text, secret)) << where << " shows " << secret << ":\n" << text;
}

TEST(Security, CredentialsAppearInNoOutputErrorOrFile) {
  std::string toml = shop_pipeline();
  toml.replace(toml.find("[lake]"), 6, secret_properties() + "\n[lake]");
  PipelineFixture f(toml, {{"orders", 3}});
  std::vector<std::string> env{std::string("LS_TEST_SASL_PASSWORD=") + kSecrets[0]};
  f.produce("orders", shop_batches().at("1"), "order_id");
  for (const char* command : {"run", "check", "recount"}) {
    CommandResult r = f.lakestream(command, {}, env);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    expect_no_secret(std::string(command) + " output", r.out + r.err);
  }
  // Every file lakestream wrote: checkpoints, plans, state, commits, data.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(f.dir())) {
    if (!entry.is_regular_file() || entry.path().filename() == "lakestream.toml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    expect_no_secret(entry.path().string(), content.str());
  }
  // An error while the secrets are set: the message names the bad setting, not the secrets.
  std::string bad = shop_pipeline();
  bad.replace(bad.find("[lake]"), 6, secret_properties("\"socket.timeout.ms\" = \"soon\"\n") + "\n[lake]");
  f.write_pipeline(bad);
  CommandResult r = f.lakestream("run", {}, env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "socket.timeout.ms")) << r.err;
  expect_no_secret("the error", r.out + r.err);
}

TEST(Security, CheckpointsAndStateArePrivate) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  f.produce("orders", shop_batches().at("1"), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  int folders = 0, files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(f.dir() + "/checkpoints")) {
    struct stat st;
    ASSERT_EQ(::stat(entry.path().c_str(), &st), 0);
    if (entry.is_directory()) {
      EXPECT_EQ(st.st_mode & 0777, 0700u) << entry.path();
      folders++;
    } else {
      EXPECT_EQ(st.st_mode & 0777, 0600u) << entry.path();
      files++;
    }
  }
  EXPECT_GE(folders, 6) << "three streams, each with its batches folder";
  EXPECT_GE(files, 7) << "metadata, lock and plans of each stream, and the window's state";
}

}  // namespace
}  // namespace lakestream::testing
