// The Kafka limit: how fast a plain librdkafka consumer reads a topic to its end doing nothing
// with the records. No ingest can beat it; the benchmark states ingest as a share of it.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream::bench {

// Reads every partition of `topic` on `bootstrap` from its start to its end (as of now) and
// returns the number of records read. Error when the topic is missing or a read fails.
int64_t consume_to_end(const std::string& bootstrap, const std::string& topic);

}  // namespace lakestream::bench
