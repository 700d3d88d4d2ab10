// The operations tests' pipeline: the shop example without dedup (orders into bronze, silver
// and hourly sales with a 1-hour watermark), with the window's filter and the batch size as
// parameters; plus helpers to read what the operator sees (progress logs, status JSON, metrics
// over HTTP).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shop/shop_scenario.h"

namespace lakestream::testing {

inline std::string ops_pipeline(const std::string& filter = "status = 'placed'", int max_offsets_per_trigger = 0) {
  std::string toml = shop_pipeline(/*dedup=*/false);
  auto replace = [&](const std::string& from, const std::string& to) {
    auto at = toml.find(from);
    EXPECT_NE(at, std::string::npos) << from << " is no longer in the shop pipeline";
    if (at != std::string::npos) toml.replace(at, from.size(), to);
  };
  replace("filter = \"status = 'placed'\"", "filter = \"" + filter + "\"");
  if (max_offsets_per_trigger)
    replace("topic = \"orders\"\n", "topic = \"orders\"\nmax_offsets_per_trigger = " + std::to_string(max_offsets_per_trigger) + "\n");
  return toml;
}

// One placed order of 10.00 at 2026-10-01 `hhmm` UTC.
inline std::string order_at(int id, const std::string& hhmm) {
  return "{\"order_id\":" + std::to_string(id) + ",\"status\":\"placed\",\"amount\":10.00,\"event_time\":\"2026-10-01T" +
         hhmm.substr(0, 2) + ":" + hhmm.substr(2, 2) + ":00Z\"}\n";
}

inline int64_t file_size(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

inline std::vector<nlohmann::json> read_progress_log(const std::string& dir, const std::string& stream) {
  std::vector<nlohmann::json> records;
  std::ifstream in(dir + "/checkpoints/" + stream + "/progress.jsonl");
  std::string line;
  while (std::getline(in, line)) records.push_back(nlohmann::json::parse(line));
  return records;
}

// The stream's entry of `lakestream status --json`.
inline nlohmann::json stream_status(PipelineFixture& f, const std::string& stream) {
  CommandResult r = f.lakestream("status", {"--json"});
  nlohmann::json all = nlohmann::json::parse(r.out);
  for (const auto& s : all["streams"])
    if (s["name"] == stream) return s;
  ADD_FAILURE() << "no stream " << stream << " in status: " << r.out << r.err;
  return {};
}

inline int64_t total_lag(const nlohmann::json& status) {
  int64_t lag = 0;
  for (const auto& p : status["kafkaLag"]) lag += p["lag"].get<int64_t>();
  return lag;
}

// GET http://127.0.0.1:port/path over a plain socket; the response body ("" on failure).
inline std::string http_get(int port, const std::string& path, std::string* status_line = nullptr) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return "";
  }
  std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  (void)!write(fd, request.data(), request.size());
  std::string response;
  char buf[8192];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) response.append(buf, static_cast<size_t>(n));
  close(fd);
  auto body = response.find("\r\n\r\n");
  if (status_line) *status_line = response.substr(0, response.find("\r\n"));
  return body == std::string::npos ? "" : response.substr(body + 4);
}

// The port in a "... at http://127.0.0.1:PORT/..." line.
inline int port_in(const std::string& text) {
  auto at = text.find("http://127.0.0.1:");
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + 17));
}

}  // namespace lakestream::testing
