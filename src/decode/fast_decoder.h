// The fast path of the record decoder: decodes the plain, well-formed JSON that makes up nearly
// all of a topic straight into typed column vectors, in one pass over the bytes, and declines
// everything else. Declined records go through decode_records (the SQL decoder), which stays
// the one authority on what a record means and why a bad one is quarantined: a record the fast
// path accepts must decode there to the same values with no reason (tests/decode checks both
// paths on the same records).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "pipeline/pipeline.h"
#include "sql/chunk_table.h"

namespace lakestream {

class FastDecoder {
 public:
  // For the schema of `source`; its fields go to columns 0..fields-1 of the appender given to
  // decode(), in schema order, with the types Field::duckdb_type() names.
  explicit FastDecoder(const Source& source);

  // Writes the fields of `json` (valid UTF-8, at most max_value_bytes) into the current row of
  // `out` and returns true; returns false, with the row's field columns unspecified, for any
  // record outside the plain subset: not a flat object of unescaped keys and values, a key
  // twice, a required field missing or null, a value of the wrong JSON kind, a number with an
  // exponent, more decimals than the scale or more digits than fit, a timestamp not written
  // 2026-10-01T09:05:00[.ffffff](Z|+hh:mm), and so on.
  bool decode(std::string_view json, sql::ChunkTable& out) const;

 private:
  // The slot of field `key`, or slots_.size() when the schema has no such field.
  size_t find_slot(std::string_view key, size_t from) const;

  struct Slot {
    const Field* field;
    duckdb_type storage;  // decimals: the integer width
    int64_t scale_factor; // decimals: 10^scale
  };
  std::vector<Slot> slots_;
  bool usable_ = true;  // false when a field's type has no fast form (decimals wider than 18 digits)
};

}  // namespace lakestream
