// `lakestream broker` as a library: serve an embedded broker until told to stop, and ask a
// running one to wipe its topics. Signals are taken with sigwait in the serving thread, never
// handled asynchronously.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "broker/embedded_broker.h"

namespace lakestream {

struct BrokerServeOptions {
  std::vector<TopicSpec> topics;
  int brokers = 1;
  std::string name;          // "" or the NAME of bootstrap = "embedded:NAME"
  std::string address_file;  // empty: broker_address_file(name)
  int64_t retention_bytes = kEmbeddedDefaultRetentionBytes;  // what each partition keeps
  bool schema_registry = false;  // also serve the embedded schema registry
  int registry_port = 0;         // its port; 0: a free one
};

// Starts the broker, writes its address file, prints the address to `out`, and serves until
// SIGTERM or SIGINT (then removes the file and returns). SIGHUP wipes every topic and creates it
// again empty, on new ports, and rewrites the file; SIGUSR1 creates the topic request_add_topic
// asks for. Every second it prints what retention dropped
// (see retention_watch.h). Error when another broker already owns the file (the same name). Call
// from the main thread before other threads exist: it blocks those signals.
void serve_broker(const BrokerServeOptions& options, std::ostream& out);

// Asks the broker whose address is in `address_file` to create `topic` while it runs (its events
// stay): the request goes in a file beside the address file, then SIGUSR1; the broker answers in
// another. Error when no broker runs there, the topic exists, or it does not answer in time.
void request_add_topic(const std::string& address_file, const TopicSpec& topic, int timeout_ms = 10000);

// Sends SIGHUP to the broker whose address is in `address_file` and waits
// up to `timeout_ms` until the file shows its new address; returns it. Error when no broker is
// running there or it does not answer in time.
std::string request_broker_reset(const std::string& address_file, int timeout_ms = 10000);

}  // namespace lakestream
