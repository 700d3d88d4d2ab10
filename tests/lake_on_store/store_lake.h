// A lake whose tables live on a real storage emulator (s3rver or Azurite, tests/storage), for the
// tests that run the shop pipeline against it: the emulator, the [lake] section that points the
// pipeline at it, and the secret given only through the environment, as users are told to.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "shop/shop_scenario.h"
#include "storage/storage_emulators.h"

namespace lakestream::testing {

enum class Emulator { S3rver, Azurite };

inline const char* emulator_name(Emulator e) { return e == Emulator::S3rver ? "S3rver" : "Azurite"; }

// The store's secret reaches lakestream only through this variable, so that a test can look for
// it in everything lakestream printed or wrote.
constexpr const char* kSecretVariable = "LAKESTREAM_TEST_STORE_SECRET";

class StoreEmulator {
 public:
  explicit StoreEmulator(Emulator kind) : kind_(kind) {
    if (kind == Emulator::S3rver) {
      s3_ = std::make_unique<S3rver>();
    } else {
      azure_ = std::make_unique<Azurite>();
      azure_->create_container("lake");
    }
    setenv(kSecretVariable, secret().c_str(), 1);
  }
  ~StoreEmulator() { unsetenv(kSecretVariable); }

  Emulator kind() const { return kind_; }
  // The URL of folder `prefix` of the emulator's bucket or container.
  std::string url(const std::string& prefix) const {
    return (kind_ == Emulator::S3rver ? "s3://" : "az://") + std::string("lake/") + prefix;
  }
  std::string secret() const { return kind_ == Emulator::S3rver ? "S3RVER" : Azurite::kKey; }
  int port() const { return kind_ == Emulator::S3rver ? s3_->port() : azure_->port(); }
  // The endpoint as [lake.storage] writes it; `port` replaces the emulator's (a proxy in front).
  std::string endpoint(int port = 0) const {
    std::string e = kind_ == Emulator::S3rver ? s3_->endpoint() : azure_->endpoint();
    if (port == 0) return e;
    std::string own = ":" + std::to_string(this->port());
    e.replace(e.find(own), own.size(), ":" + std::to_string(port));
    return e;
  }
  // [lake] with the tables under `prefix`, and storage_section(port).
  std::string lake_section(const std::string& prefix, int port = 0, const std::string& extra = "") const {
    return "[lake]\ntables = \"" + url(prefix) + "\"\ncheckpoints = \"checkpoints\"\n" + extra + storage_section(port);
  }
  // [lake.storage] reaching the emulator (through `port` when given); the secret is
  // ${LAKESTREAM_TEST_STORE_SECRET}.
  std::string storage_section(int port = 0) const {
    std::string toml = "[lake.storage]\nendpoint = \"" + endpoint(port) + "\"\n";
    if (kind_ == Emulator::S3rver)
      toml += "access_key_id = \"S3RVER\"\nsecret_access_key = \"${" + std::string(kSecretVariable) + "}\"\n";
    else
      toml += "account = \"" + std::string(Azurite::kAccount) + "\"\naccount_key = \"${" + kSecretVariable + "}\"\n";
    // Few tries, so that a stopped store fails a run in seconds rather than a minute.
    toml += "max_attempts = 3\n";
    return toml;
  }
  storage::StoreSettings settings() const { return kind_ == Emulator::S3rver ? s3_->settings() : azure_->settings(); }
  void stop() {
    if (azure_) azure_->stop();
    if (s3_) s3_->stop();
  }

 private:
  Emulator kind_;
  std::unique_ptr<S3rver> s3_;
  std::unique_ptr<Azurite> azure_;
};

}  // namespace lakestream::testing
