#include "storage/storage_emulators.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "storage/azure_store.h"
#include "storage/http_client.h"

namespace lakestream::testing {
namespace {

bool port_answers(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

}  // namespace

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string emulator_bin(const std::string& name) {
  std::string path = source_dir() + "/.deps/npm/node_modules/.bin/" + name;
  if (!std::filesystem::exists(path))
    ADD_FAILURE() << path << " is missing: run scripts/setup (it installs the storage emulators from npm)";
  return path;
}

ChildServer::ChildServer(const std::vector<std::string>& argv, int port, const std::string& log_path) : port_(port) {
  pid_ = fork();
  if (pid_ == 0) {
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(log, 1);
    dup2(log, 2);
    setpgid(0, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!port_answers(port_)) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << argv[0] << " did not listen on port " << port_ << " within 30 s; see " << log_path;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void ChildServer::stop() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

ChildServer::~ChildServer() { stop(); }

Azurite::Azurite()
    : server_({emulator_bin("azurite-blob"), "--blobHost", "127.0.0.1", "--blobPort", std::to_string(port_),
               "--silent", "--disableTelemetry", "--location", dir_.path()},
              port_, dir_ / "azurite.log") {}

std::string Azurite::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + kAccount; }

storage::StoreSettings Azurite::settings() const {
  return {{"endpoint", endpoint()}, {"account", kAccount}, {"account_key", kKey}};
}

void Azurite::create_container(const std::string& name) {
  // The one call the store itself never makes: a container is the user's to create.
  storage::HttpClient http;
  std::string date;
  {
    char buf[64];
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    date = buf;
  }
  std::string to_sign = "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-version:2021-08-06\n/" +
                        kAccount + "/" + kAccount + "/" + name + "\nrestype:container";
  std::string auth = std::string("SharedKey ") + kAccount + ":" + storage::azure_shared_key_signature(kKey, to_sign);
  storage::HttpResponse r = http.send(
      [&] {
        storage::HttpRequest request;
        request.method = "PUT";
        request.url = endpoint() + "/" + name + "?restype=container";
        request.headers = {{"x-ms-date", date}, {"x-ms-version", "2021-08-06"}, {"Authorization", auth}};
        return request;
      },
      "creating container " + name, 3);
  ASSERT_TRUE(r.status == 201 || r.status == 409) << "creating container " << name << ": HTTP " << r.status << " " << r.body;
}

S3rver::S3rver()
    // s3rver's continuation tokens use a cipher OpenSSL 3 keeps in its legacy provider.
    : server_({"env", "NODE_OPTIONS=--openssl-legacy-provider", emulator_bin("s3rver"), "--directory", dir_ / "data", "--address", "127.0.0.1", "--port",
               std::to_string(port_), "--silent", "--no-vhost-buckets", "--configure-bucket", kBucket},
              port_, dir_ / "s3rver.log") {}

std::string S3rver::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

storage::StoreSettings S3rver::settings() const {
  // s3rver's fixed credentials.
  return {{"endpoint", endpoint()}, {"access_key_id", "S3RVER"}, {"secret_access_key", "S3RVER"}, {"region", "us-east-1"}};
}

FlakyProxy::FlakyProxy(int target_port, int failures)
    : server_({"node", source_dir() + "/tests/storage/flaky_proxy.js", std::to_string(port_), std::to_string(target_port),
               std::to_string(failures)},
              port_, dir_ / "proxy.log") {}

}  // namespace lakestream::testing
