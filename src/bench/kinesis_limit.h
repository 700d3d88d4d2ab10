// The Kinesis limit: how fast a plain GetRecords reader reads a stream to its tip doing nothing
// with the records (each shard read at most 5 times a second, as Kinesis allows and the ingest
// stream does). The benchmark states Kinesis ingest as a share of it.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream::bench {

// Reads every shard of Kinesis stream `stream` at `endpoint` from its start to its tip, and
// returns the number of records read. Error when the stream is missing or a read fails.
int64_t read_kinesis_to_end(const std::string& endpoint, const std::string& stream);

}  // namespace lakestream::bench
