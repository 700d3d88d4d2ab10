#include "sql/chunk_table.h"

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include "util/error.h"

namespace lakestream::sql {

namespace {

constexpr const char* kFunction = "lakestream_chunks";

duckdb_type physical_type(duckdb_logical_type type) {
  duckdb_type id = duckdb_get_type_id(type);
  if (id != DUCKDB_TYPE_DECIMAL) return id;
  return duckdb_decimal_internal_type(type);
}

// The live tables by id: the table function's argument names one, so that a query can never
// reach a table that is gone (it gets a clear error instead).
std::mutex registry_mutex;
std::map<uint64_t, const ChunkTable*> registry;
std::atomic<uint64_t> next_id{1};

const ChunkTable* find_table(uint64_t id) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry.find(id);
  return it == registry.end() ? nullptr : it->second;
}

struct Scan {
  size_t next_chunk = 0;
};

void bind(duckdb_bind_info info) {
  duckdb_value argument = duckdb_bind_get_parameter(info, 0);
  uint64_t id = static_cast<uint64_t>(duckdb_get_int64(argument));
  duckdb_destroy_value(&argument);
  const ChunkTable* table = find_table(id);
  if (!table) {
    duckdb_bind_set_error(info, "lakestream_chunks: no such chunk table (it was dropped)");
    return;
  }
  for (const auto& [name, type] : table->columns()) duckdb_bind_add_result_column(info, name.c_str(), type);
  duckdb_bind_set_cardinality(info, table->rows(), true);
  duckdb_bind_set_bind_data(info, const_cast<ChunkTable*>(table), nullptr);
}

void init(duckdb_init_info info) {
  duckdb_init_set_init_data(info, new Scan, [](void* scan) { delete static_cast<Scan*>(scan); });
  duckdb_init_set_max_threads(info, 1);
}

// Hands over the next chunk: each output vector refers to the held chunk's buffers (no copy).
void scan(duckdb_function_info info, duckdb_data_chunk output) {
  auto* table = static_cast<const ChunkTable*>(duckdb_function_get_bind_data(info));
  auto* state = static_cast<Scan*>(duckdb_function_get_init_data(info));
  const auto& chunks = table->chunks();
  while (state->next_chunk < chunks.size() && duckdb_data_chunk_get_size(chunks[state->next_chunk]) == 0)
    state->next_chunk++;
  if (state->next_chunk == chunks.size()) {
    duckdb_data_chunk_set_size(output, 0);
    return;
  }
  duckdb_data_chunk chunk = chunks[state->next_chunk++];
  for (idx_t c = 0; c < table->columns().size(); c++)
    duckdb_vector_reference_vector(duckdb_data_chunk_get_vector(output, c), duckdb_data_chunk_get_vector(chunk, c));
  duckdb_data_chunk_set_size(output, duckdb_data_chunk_get_size(chunk));
}

// Registers the table function once per database.
void register_function(Connection& con) {
  if (!con.database().first_time(kFunction)) return;
  duckdb_table_function function = duckdb_create_table_function();
  duckdb_table_function_set_name(function, kFunction);
  duckdb_logical_type id_type = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_table_function_add_parameter(function, id_type);
  duckdb_destroy_logical_type(&id_type);
  duckdb_table_function_set_bind(function, bind);
  duckdb_table_function_set_init(function, init);
  duckdb_table_function_set_function(function, scan);
  duckdb_state state = duckdb_register_table_function(con.handle(), function);
  duckdb_destroy_table_function(&function);
  if (state == DuckDBError) throw Error("cannot register the table function lakestream_chunks with DuckDB");
}

}  // namespace

ChunkTable::ChunkTable(Connection& con, const std::vector<std::pair<std::string, std::string>>& columns)
    : id_(next_id++) {
  register_function(con);
  // The logical types exactly as DuckDB reads the type names: from an empty result.
  std::string select;
  for (const auto& [name, type] : columns) select += std::string(select.empty() ? "" : ", ") + "NULL::" + type;
  duckdb_result result;
  if (duckdb_query(con.handle(), ("SELECT " + select + " LIMIT 0").c_str(), &result) == DuckDBError) {
    std::string message = duckdb_result_error(&result);
    duckdb_destroy_result(&result);
    throw Error("cannot hold rows of these column types: " + message);
  }
  for (size_t c = 0; c < columns.size(); c++) {
    columns_.push_back({columns[c].first, duckdb_column_logical_type(&result, c)});
    storage_.push_back(physical_type(columns_.back().second));
  }
  duckdb_destroy_result(&result);
  capacity_ = duckdb_vector_size();
  vectors_.resize(columns_.size());
  data_.resize(columns_.size());
  validity_.resize(columns_.size());
  start_chunk();
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry[id_] = this;
}

ChunkTable::~ChunkTable() {
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry.erase(id_);
  }
  for (auto& chunk : chunks_) duckdb_destroy_data_chunk(&chunk);
  for (auto& [name, type] : columns_) duckdb_destroy_logical_type(&type);
}

duckdb_type ChunkTable::storage_type(size_t column) const { return storage_.at(column); }

std::string ChunkTable::scan_sql() const { return std::string(kFunction) + "(" + std::to_string(id_) + ")"; }

void ChunkTable::start_chunk() {
  std::vector<duckdb_logical_type> types;
  for (const auto& [name, type] : columns_) types.push_back(type);
  duckdb_data_chunk chunk = duckdb_create_data_chunk(types.data(), types.size());
  chunks_.push_back(chunk);
  for (size_t c = 0; c < columns_.size(); c++) {
    vectors_[c] = duckdb_data_chunk_get_vector(chunk, c);
    duckdb_vector_ensure_validity_writable(vectors_[c]);
    data_[c] = duckdb_vector_get_data(vectors_[c]);
    validity_[c] = duckdb_vector_get_validity(vectors_[c]);
  }
  row_ = 0;
}

void ChunkTable::set_text(size_t column, const char* data, size_t size) {
  if (size <= sizeof(duckdb_string_t::value.inlined.inlined)) {
    // Short strings (keys, codes, statuses: most of an event) live inside the vector's slot,
    // zero-padded, as DuckDB's string_t keeps them; only longer ones need its string heap.
    duckdb_string_t& slot = static_cast<duckdb_string_t*>(data_[column])[row_];
    slot = {};
    slot.value.inlined.length = static_cast<uint32_t>(size);
    std::memcpy(slot.value.inlined.inlined, data, size);
  } else {
    duckdb_vector_assign_string_element_len(vectors_[column], row_, data, size);
  }
  duckdb_validity_set_row_valid(validity_[column], row_);
}

void ChunkTable::set_null(size_t column) { duckdb_validity_set_row_invalid(validity_[column], row_); }

void ChunkTable::end_row() {
  row_++;
  rows_++;
  duckdb_data_chunk_set_size(chunks_.back(), row_);
  if (row_ == capacity_) start_chunk();
}

}  // namespace lakestream::sql
