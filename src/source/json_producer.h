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
};

// Sends every non-blank line of `lines` to `topic` as one message (values up to 10 MB), keyed by
// the top-level field `key_field` (strings as their text, other values as JSON; no key when
// `key_field` is empty). Lines that are not JSON are sent as they are, without a key: the ingest
// stream quarantines them, which tests rely on. Waits for every delivery report. Error when the
// producer cannot be set up, or the topic does not exist (on brokers that do not create topics on
// demand; the embedded broker does, with 4 partitions).
ProduceResult produce_json_lines(const KafkaSettings& kafka, const std::string& topic, const std::string& key_field,
                                 std::istream& lines);

}  // namespace lakestream
