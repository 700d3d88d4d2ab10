// DuckDB's library is loaded on first use (dlopen), not when the process starts: loading it costs
// more than the rest of a run that finds nothing new (about 12 ms of CPU for its relocations and
// static initializers, against 2 to 3 ms for a plain Kafka client), and such a run never needs
// SQL. Every function of DuckDB's C API that lakestream calls is defined here to call the
// library's own, looked up once. A function not listed here fails to link: add its line, with
// the prototype duckdb.h gives it.
#include <duckdb.h>

#include "util/shared_library.h"

namespace lakestream::sql {
namespace {

// Found through the binary's RUNPATH (DuckDB's folder in a build tree, ../lib/lakestream in an
// installed package), then the system's paths.
constinit SharedLibrary duckdb_library("libduckdb.so",
                                       "DuckDB 1.4's library belongs beside the binary in ../lib/lakestream/ (make install puts it there)");

}  // namespace
}  // namespace lakestream::sql

#define FORWARD(ret, name, params, args) LAKESTREAM_FORWARD(lakestream::sql::duckdb_library, ret, name, params, args)

extern "C" {
// jemalloc's control, as DuckDB's build names it (sql/freed_memory.cc).
FORWARD(int, duckdb_je_mallctl, (const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen), (name, oldp, oldlenp, newp, newlen))
FORWARD(duckdb_state, duckdb_append_blob, (duckdb_appender appender, const void* data, idx_t length), (appender, data, length))
FORWARD(duckdb_state, duckdb_append_bool, (duckdb_appender appender, bool value), (appender, value))
FORWARD(duckdb_state, duckdb_append_int32, (duckdb_appender appender, int32_t value), (appender, value))
FORWARD(duckdb_state, duckdb_append_int64, (duckdb_appender appender, int64_t value), (appender, value))
FORWARD(duckdb_state, duckdb_append_null, (duckdb_appender appender), (appender))
FORWARD(duckdb_state, duckdb_append_timestamp, (duckdb_appender appender, duckdb_timestamp value), (appender, value))
FORWARD(duckdb_state, duckdb_append_varchar_length, (duckdb_appender appender, const char* val, idx_t length), (appender, val, length))
FORWARD(duckdb_state, duckdb_appender_create, (duckdb_connection connection, const char* schema, const char* table, duckdb_appender* out_appender), (connection, schema, table, out_appender))
FORWARD(duckdb_state, duckdb_appender_destroy, (duckdb_appender* appender), (appender))
FORWARD(duckdb_state, duckdb_appender_end_row, (duckdb_appender appender), (appender))
FORWARD(const char*, duckdb_appender_error, (duckdb_appender appender), (appender))
FORWARD(duckdb_state, duckdb_appender_flush, (duckdb_appender appender), (appender))
FORWARD(void, duckdb_bind_add_result_column, (duckdb_bind_info info, const char* name, duckdb_logical_type type), (info, name, type))
FORWARD(duckdb_value, duckdb_bind_get_parameter, (duckdb_bind_info info, idx_t index), (info, index))
FORWARD(void, duckdb_bind_set_bind_data, (duckdb_bind_info info, void* bind_data, duckdb_delete_callback_t destroy), (info, bind_data, destroy))
FORWARD(void, duckdb_bind_set_cardinality, (duckdb_bind_info info, idx_t cardinality, bool is_exact), (info, cardinality, is_exact))
FORWARD(void, duckdb_bind_set_error, (duckdb_bind_info info, const char* error), (info, error))
FORWARD(void, duckdb_close, (duckdb_database* database), (database))
FORWARD(idx_t, duckdb_column_count, (duckdb_result* result), (result))
FORWARD(duckdb_logical_type, duckdb_column_logical_type, (duckdb_result* result, idx_t col), (result, col))
FORWARD(const char*, duckdb_column_name, (duckdb_result* result, idx_t col), (result, col))
FORWARD(duckdb_type, duckdb_column_type, (duckdb_result* result, idx_t col), (result, col))
FORWARD(duckdb_state, duckdb_connect, (duckdb_database database, duckdb_connection* out_connection), (database, out_connection))
FORWARD(duckdb_state, duckdb_create_config, (duckdb_config* out_config), (out_config))
FORWARD(duckdb_data_chunk, duckdb_create_data_chunk, (duckdb_logical_type* types, idx_t column_count), (types, column_count))
FORWARD(duckdb_logical_type, duckdb_create_logical_type, (duckdb_type type), (type))
FORWARD(duckdb_table_function, duckdb_create_table_function, (), ())
FORWARD(idx_t, duckdb_data_chunk_get_size, (duckdb_data_chunk chunk), (chunk))
FORWARD(duckdb_vector, duckdb_data_chunk_get_vector, (duckdb_data_chunk chunk, idx_t col_idx), (chunk, col_idx))
FORWARD(void, duckdb_data_chunk_set_size, (duckdb_data_chunk chunk, idx_t size), (chunk, size))
FORWARD(duckdb_type, duckdb_decimal_internal_type, (duckdb_logical_type type), (type))
FORWARD(void, duckdb_destroy_config, (duckdb_config* config), (config))
FORWARD(void, duckdb_destroy_data_chunk, (duckdb_data_chunk* chunk), (chunk))
FORWARD(void, duckdb_destroy_extracted, (duckdb_extracted_statements* extracted_statements), (extracted_statements))
FORWARD(void, duckdb_destroy_logical_type, (duckdb_logical_type* type), (type))
FORWARD(void, duckdb_destroy_result, (duckdb_result* result), (result))
FORWARD(void, duckdb_destroy_table_function, (duckdb_table_function* table_function), (table_function))
FORWARD(void, duckdb_destroy_value, (duckdb_value* value), (value))
FORWARD(void, duckdb_disconnect, (duckdb_connection* connection), (connection))
FORWARD(idx_t, duckdb_extract_statements, (duckdb_connection connection, const char* query, duckdb_extracted_statements* out_extracted_statements), (connection, query, out_extracted_statements))
FORWARD(const char*, duckdb_extract_statements_error, (duckdb_extracted_statements extracted_statements), (extracted_statements))
FORWARD(duckdb_data_chunk, duckdb_fetch_chunk, (duckdb_result result), (result))
FORWARD(void, duckdb_free, (void* ptr), (ptr))
FORWARD(void*, duckdb_function_get_bind_data, (duckdb_function_info info), (info))
FORWARD(void*, duckdb_function_get_init_data, (duckdb_function_info info), (info))
FORWARD(int64_t, duckdb_get_int64, (duckdb_value val), (val))
FORWARD(duckdb_type, duckdb_get_type_id, (duckdb_logical_type type), (type))
FORWARD(void, duckdb_init_set_init_data, (duckdb_init_info info, void* init_data, duckdb_delete_callback_t destroy), (info, init_data, destroy))
FORWARD(void, duckdb_init_set_max_threads, (duckdb_init_info info, idx_t max_threads), (info, max_threads))
FORWARD(duckdb_vector, duckdb_list_vector_get_child, (duckdb_vector vector), (vector))
FORWARD(duckdb_state, duckdb_open_ext, (const char* path, duckdb_database* out_database, duckdb_config config, char**out_error), (path, out_database, config, out_error))
FORWARD(duckdb_state, duckdb_query, (duckdb_connection connection, const char* query, duckdb_result* out_result), (connection, query, out_result))
FORWARD(duckdb_state, duckdb_register_table_function, (duckdb_connection con, duckdb_table_function function), (con, function))
FORWARD(const char*, duckdb_result_error, (duckdb_result* result), (result))
FORWARD(idx_t, duckdb_row_count, (duckdb_result* result), (result))
FORWARD(duckdb_state, duckdb_set_config, (duckdb_config config, const char* name, const char* option), (config, name, option))
FORWARD(const char*, duckdb_string_t_data, (duckdb_string_t* string), (string))
FORWARD(uint32_t, duckdb_string_t_length, (duckdb_string_t string), (string))
FORWARD(duckdb_vector, duckdb_struct_vector_get_child, (duckdb_vector vector, idx_t index), (vector, index))
FORWARD(void, duckdb_table_function_add_parameter, (duckdb_table_function table_function, duckdb_logical_type type), (table_function, type))
FORWARD(void, duckdb_table_function_set_bind, (duckdb_table_function table_function, duckdb_table_function_bind_t bind), (table_function, bind))
FORWARD(void, duckdb_table_function_set_function, (duckdb_table_function table_function, duckdb_table_function_t function), (table_function, function))
FORWARD(void, duckdb_table_function_set_init, (duckdb_table_function table_function, duckdb_table_function_init_t init), (table_function, init))
FORWARD(void, duckdb_table_function_set_name, (duckdb_table_function table_function, const char* name), (table_function, name))
FORWARD(bool, duckdb_validity_row_is_valid, (uint64_t* validity, idx_t row), (validity, row))
FORWARD(void, duckdb_validity_set_row_invalid, (uint64_t* validity, idx_t row), (validity, row))
FORWARD(void, duckdb_validity_set_row_valid, (uint64_t* validity, idx_t row), (validity, row))
FORWARD(bool, duckdb_value_is_null, (duckdb_result* result, idx_t col, idx_t row), (result, col, row))
FORWARD(duckdb_string, duckdb_value_string, (duckdb_result* result, idx_t col, idx_t row), (result, col, row))
FORWARD(void, duckdb_vector_assign_string_element_len, (duckdb_vector vector, idx_t index, const char* str, idx_t str_len), (vector, index, str, str_len))
FORWARD(void, duckdb_vector_ensure_validity_writable, (duckdb_vector vector), (vector))
FORWARD(void*, duckdb_vector_get_data, (duckdb_vector vector), (vector))
FORWARD(uint64_t*, duckdb_vector_get_validity, (duckdb_vector vector), (vector))
FORWARD(void, duckdb_vector_reference_vector, (duckdb_vector to_vector, duckdb_vector from_vector), (to_vector, from_vector))
FORWARD(idx_t, duckdb_vector_size, (), ())
}
