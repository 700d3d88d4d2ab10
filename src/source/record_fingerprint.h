// A Kafka record's fingerprint: what tells the record at an offset from another one written there
// after the topic was deleted and created again (offsets start over, so an offset alone says
// nothing). The ingest stream keeps the fingerprint of the last record it read per partition and
// trusts its position only while the record there still has it.
#pragma once

#include <string>

#include "source/kafka_reader.h"

namespace lakestream {

// 16 hex digits of a 64-bit FNV-1a hash over the record's timestamp, key and value (each with its
// length, so that a key's last bytes never read as the value's first). Stable across versions:
// checkpoints keep it.
std::string record_fingerprint(const KafkaRecord& record);

}  // namespace lakestream
