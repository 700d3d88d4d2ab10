// The address file of a running `lakestream broker`: how `bootstrap = "embedded"` and
// `lakestream broker reset` find it. JSON: {"bootstrap", "pid", "generation", "topics"}.
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
};

// Writes the file atomically (its folder is created, private to the user).
void write_broker_address(const std::string& path, const BrokerAddress& address);

// Reads the file; nullopt when it does not exist; Error when it is not an address file.
std::optional<BrokerAddress> read_broker_address(const std::string& path);

// True while process `pid` exists.
bool process_alive(int pid);

}  // namespace lakestream
