// Reading a classic Delta checkpoint (one Parquet file, or several parts, with one action per
// row in the columns txn, add, remove, metaData, protocol).
#pragma once

#include <string>
#include <vector>

#include "table/delta_log_json.h"

namespace lakestream::delta {

// The actions stored in the checkpoint `files`; throws Error naming the file when DuckDB cannot
// read it or a row is malformed.
LogActions read_checkpoint(const std::vector<std::string>& files);

}  // namespace lakestream::delta
