// Sending JSON lines to a Kafka topic, one message per line: what `lakestream produce`, the demo
// and the tests use to feed a topic. Idempotent producer, so a retry never doubles a message.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include "pipeline/pipeline.h"

namespace lakestream {

struct ProduceResult {
  int64_t delivered = 0;
  int64_t failed = 0;
  int64_t without_key = 0;  // lines sent with no key: the key field was missing or the line not JSON
  std::string first_error;  // of the first failed delivery, empty if none
  // Delivered records the brokers no longer hold when the sending ended: retention deleted them
  // (the embedded broker keeps its --retention per partition). 0 when all are there.
  int64_t gone = 0;
  std::string gone_detail;  // per partition: "partition 0 now starts at offset 52000", ...
};

// Sends every non-blank line of `lines` to `topic` as one message (values up to 10 MB), keyed by
// the top-level field `key_field` (strings as their text, other values as JSON; no key when
// `key_field` is empty); a line `null` is sent as Kafka's null value (a tombstone). Lines that
// are not JSON are sent as they are, without a key: the ingest
// stream quarantines them, which tests rely on. Waits for every delivery report, then compares
// each partition's log start with the offsets delivered to it (`gone`). Error when the producer
// cannot be set up, or the topic does not exist.
ProduceResult produce_json_lines(const KafkaSettings& kafka, const std::string& topic, const std::string& key_field,
                                 std::istream& lines);

}  // namespace lakestream
