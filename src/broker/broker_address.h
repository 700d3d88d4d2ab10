// The address file of a running `lakestream broker`: how `bootstrap = "embedded"` and
// `lakestream broker reset` find it, and `schema_registry = "embedded"` its registry. JSON:
// {"bootstrap", "pid", "generation", "topics", "schemaRegistry"}.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "broker/embedded_broker.h"

namespace lakestream {

struct BrokerAddress {
  std::string bootstrap;
  int pid = 0;
  int generation = 0;  // counts resets, so a waiter can tell a new address from the old one
  std::vector<TopicSpec> topics;
  std::string schema_registry = {};  // "http://127.0.0.1:PORT" when it serves one, else empty
};

// Writes the file atomically (its folder is created, private to the user).
void write_broker_address(const std::string& path, const BrokerAddress& address);

// Reads the file; nullopt when it does not exist; Error when it is not an address file.
std::optional<BrokerAddress> read_broker_address(const std::string& path);

// The URL of a source's schema_registry setting: "embedded" / "embedded:NAME" is the registry the
// running `lakestream broker --schema-registry` wrote in its address file; anything else is
// returned as is. Error when that broker is not running or serves no registry.
std::string resolve_schema_registry(const std::string& registry);

// True while process `pid` exists.
bool process_alive(int pid);

}  // namespace lakestream
