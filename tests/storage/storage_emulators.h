// The storage emulators the tests talk to, each a real server from the npm registry that
// scripts/setup installs under .deps/npm: Azurite (Microsoft's Azure Storage emulator) and
// s3rver (an S3-compatible server). Each instance runs as a child process on a free loopback
// port, with its data in memory or a temporary folder, and is stopped when destroyed.
#pragma once

#include <string>
#include <vector>

#include "storage/object_store.h"
#include "support/test_support.h"

namespace lakestream::testing {

// A child process (not the lakestream binary), killed when destroyed.
class ChildServer {
 public:
  ChildServer(const std::vector<std::string>& argv, int port, const std::string& log_path);
  ~ChildServer();
  ChildServer(const ChildServer&) = delete;
  ChildServer& operator=(const ChildServer&) = delete;
  int port() const { return port_; }
  void stop();

 private:
  int pid_ = -1;
  int port_;
};

// A free TCP port on 127.0.0.1 (bound, then released).
int free_port();

// The folder of the emulators' commands; fails the test when scripts/setup has not installed them.
std::string emulator_bin(const std::string& name);

class Azurite {
 public:
  static constexpr const char* kAccount = "devstoreaccount1";
  static constexpr const char* kKey =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
  Azurite();
  // Settings that reach this emulator (endpoint http://127.0.0.1:PORT/devstoreaccount1, its key).
  storage::StoreSettings settings() const;
  std::string endpoint() const;
  // Makes container `name` (Azure needs one before the first blob).
  void create_container(const std::string& name);
  int port() const { return server_.port(); }
  void stop() { server_.stop(); }

 private:
  TempDir dir_;
  int port_ = free_port();
  ChildServer server_;
};

class S3rver {
 public:
  static constexpr const char* kBucket = "lake";
  S3rver();
  storage::StoreSettings settings() const;
  std::string endpoint() const;
  int port() const { return server_.port(); }
  void stop() { server_.stop(); }

 private:
  TempDir dir_;
  int port_ = free_port();
  ChildServer server_;
};

// A proxy in front of a server that answers 503 to the first `failures` requests (or to all,
// with -1) and forwards the rest: the throttling and outages a cloud store has.
class FlakyProxy {
 public:
  FlakyProxy(int target_port, int failures);
  int port() const { return server_.port(); }
  void stop() { server_.stop(); }

 private:
  TempDir dir_;
  int port_ = free_port();
  ChildServer server_;
};

}  // namespace lakestream::testing
