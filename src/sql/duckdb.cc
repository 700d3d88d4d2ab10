#include "sql/duckdb.h"

#include <atomic>

#include "util/cpu_profile.h"
#include "util/error.h"

namespace lakestream::sql {

namespace {

std::atomic<bool> statements_shown{false};

// DuckDB's message, and the statement's start when asked for. DuckDB quotes the statement's line
// after a blank line ("\n\nLINE 1: SELECT ..."); that goes too, unless statements are shown.
std::string failure(const std::string& message, const std::string& sql) {
  if (statements_shown) {
    constexpr size_t kMax = 300;
    return "SQL failed: " + message + "\n  in: " + (sql.size() <= kMax ? sql : sql.substr(0, kMax) + " ...");
  }
  std::string text = message.substr(0, message.find("\n\nLINE "));
  return "SQL failed: " + text + " (--verbose shows the statement)";
}

}  // namespace

void show_statements_in_errors(bool shown) { statements_shown = shown; }

duckdb_database Database::handle() {
  if (db_) return db_;
  const std::string& path = path_;
  duckdb_config config = nullptr;
  duckdb_create_config(&config);
  // Extensions come built in; never reach for the network to install one.
  duckdb_set_config(config, "autoinstall_known_extensions", "false");
  duckdb_set_config(config, "autoload_known_extensions", "false");
  // DuckDB 1.4 keeps every Parquet byte it read in memory by default, and drops it only at the
  // memory limit (80% of RAM). A service reads each new file once and never again, so the cache
  // only grew: about 0.5 MB/s per stage at 10,000 events/s (the soak), for no hit.
  duckdb_set_config(config, "enable_external_file_cache", "false");
  char* err = nullptr;
  duckdb_state state = duckdb_open_ext(path.empty() ? nullptr : path.c_str(), &db_, config, &err);
  duckdb_destroy_config(&config);
  if (state == DuckDBError) {
    std::string msg = err ? err : "unknown error";
    if (err) duckdb_free(err);
    db_ = nullptr;
    throw Error("cannot open database " + (path.empty() ? std::string("in memory") : path) + ": " + msg);
  }
  return db_;
}

Database::~Database() {
  if (db_) duckdb_close(&db_);
}

const std::optional<std::string>& Rows::at(size_t row, const std::string& column) const {
  for (size_t c = 0; c < columns.size(); c++)
    if (columns[c] == column) return rows.at(row).at(c);
  throw Error("internal: no column " + column + " in result");
}

std::string Rows::text(size_t row, const std::string& column) const {
  const auto& v = at(row, column);
  return v ? *v : std::string();
}

bool Database::first_time(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_.insert(name).second;
}

duckdb_connection Connection::handle() {
  if (con_) return con_;
  if (duckdb_connect(db_.handle(), &con_) == DuckDBError) {
    con_ = nullptr;
    throw Error("cannot connect to DuckDB");
  }
  exec("SET TimeZone = 'UTC'");
  return con_;
}

ScopedSetting::ScopedSetting(Connection& con, const std::string& name, const std::string& value)
    : con_(con), name_(name), old_value_(con.scalar("SELECT current_setting(" + quote_literal(name) + ")").value_or("")) {
  con_.exec("SET " + name_ + " = " + quote_literal(value));
}

ScopedSetting::~ScopedSetting() {
  try {
    con_.exec("SET " + name_ + " = " + quote_literal(old_value_));
  } catch (const Error&) {
    // The connection is failing with the run; the setting goes with it.
  }
}

void Connection::keep_setting(const std::string& name, const std::string& value) {
  auto kept = kept_settings_.find(name);
  if (kept != kept_settings_.end() && kept->second == value) return;
  exec("SET " + name + " = " + quote_literal(value));
  kept_settings_[name] = value;
}

Connection::~Connection() {
  if (con_) duckdb_disconnect(&con_);
}

namespace {
// A statement's profile label: its first words, digits as '#', so that one statement made for
// different batches adds up under one label.
std::string statement_label(const std::string& sql) {
  std::string label = "sql: ";
  for (char c : sql.substr(0, 48)) label += c == '\n' ? ' ' : (c >= '0' && c <= '9') ? '#' : c;
  return label;
}
}  // namespace

duckdb_result Connection::result_of(const std::string& sql) {
  duckdb_result result;
  if (duckdb_query(handle(), sql.c_str(), &result) == DuckDBError) {
    std::string msg = duckdb_result_error(&result) ? duckdb_result_error(&result) : "unknown error";
    duckdb_destroy_result(&result);
    throw Error(failure(msg, sql));
  }
  return result;
}

void Connection::exec(const std::string& sql) {
  std::optional<CpuScope> cpu_scope;
  if (CpuScope::enabled()) cpu_scope.emplace(statement_label(sql));
  duckdb_result result = result_of(sql);
  duckdb_destroy_result(&result);
}

namespace {

// Types duckdb_value_string() cannot render (it gives ""): their rows are asked for as text.
bool needs_text_cast(duckdb_type type) {
  switch (type) {
    case DUCKDB_TYPE_TIMESTAMP_TZ:
    case DUCKDB_TYPE_TIME_TZ:
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_STRUCT:
    case DUCKDB_TYPE_MAP:
    case DUCKDB_TYPE_ARRAY:
    case DUCKDB_TYPE_UNION:
    case DUCKDB_TYPE_ENUM:
      return true;
    default:
      return false;
  }
}

}  // namespace

Rows Connection::query(const std::string& sql) {
  std::optional<CpuScope> cpu_scope;
  if (CpuScope::enabled()) cpu_scope.emplace(statement_label(sql));
  duckdb_result result = result_of(sql);
  idx_t ncols = duckdb_column_count(&result);
  for (idx_t c = 0; c < ncols; c++) {
    if (!needs_text_cast(duckdb_column_type(&result, c))) continue;
    // Run it again with every column cast to VARCHAR, which DuckDB renders itself.
    duckdb_result as_text;
    std::string text_sql = "SELECT COLUMNS(*)::VARCHAR FROM (" + sql + ") AS lakestream_q";
    if (duckdb_query(con_, text_sql.c_str(), &as_text) == DuckDBSuccess) {
      duckdb_destroy_result(&result);
      result = as_text;
    } else {
      duckdb_destroy_result(&as_text);
    }
    break;
  }
  Rows rows;
  for (idx_t c = 0; c < ncols; c++) rows.columns.emplace_back(duckdb_column_name(&result, c));
  idx_t nrows = duckdb_row_count(&result);
  rows.rows.reserve(nrows);
  for (idx_t r = 0; r < nrows; r++) {
    std::vector<std::optional<std::string>> row;
    row.reserve(ncols);
    for (idx_t c = 0; c < ncols; c++) {
      if (duckdb_value_is_null(&result, c, r)) {
        row.emplace_back(std::nullopt);
      } else {
        duckdb_string s = duckdb_value_string(&result, c, r);
        row.emplace_back(std::string(s.data, s.size));
        duckdb_free(s.data);
      }
    }
    rows.rows.push_back(std::move(row));
  }
  duckdb_destroy_result(&result);
  return rows;
}

std::optional<std::string> Connection::scalar(const std::string& sql) {
  Rows rows = query(sql);
  if (rows.empty() || rows.columns.empty()) return std::nullopt;
  return rows.rows[0][0];
}

int64_t Connection::scalar_int(const std::string& sql) {
  auto v = scalar(sql);
  return v ? std::stoll(*v) : 0;
}

Appender::Appender(Connection& con, const std::string& table) : table_(table) {
  if (duckdb_appender_create(con.handle(), nullptr, table.c_str(), &appender_) == DuckDBError) {
    std::string msg = duckdb_appender_error(appender_) ? duckdb_appender_error(appender_) : "unknown error";
    duckdb_appender_destroy(&appender_);
    throw Error("cannot append to " + table + ": " + msg);
  }
}

Appender::~Appender() {
  if (appender_) duckdb_appender_destroy(&appender_);
}

void Appender::check(duckdb_state state, const char* what) {
  if (state == DuckDBError) {
    const char* msg = duckdb_appender_error(appender_);
    throw Error(std::string("cannot ") + what + " into " + table_ + ": " + (msg ? msg : "unknown error"));
  }
}

void Appender::append_int32(int32_t v) { check(duckdb_append_int32(appender_, v), "append"); }
void Appender::append_int64(int64_t v) { check(duckdb_append_int64(appender_, v), "append"); }
void Appender::append_text(const char* data, size_t size) {
  check(duckdb_append_varchar_length(appender_, data, size), "append");
}
void Appender::append_blob(const void* data, size_t size) {
  check(duckdb_append_blob(appender_, data, size), "append");
}
void Appender::append_bool(bool v) { check(duckdb_append_bool(appender_, v), "append"); }
void Appender::append_timestamp_us(int64_t micros) {
  duckdb_timestamp ts{micros};
  check(duckdb_append_timestamp(appender_, ts), "append");
}
void Appender::append_null() { check(duckdb_append_null(appender_), "append"); }
void Appender::end_row() { check(duckdb_appender_end_row(appender_), "end a row"); }
void Appender::flush() { check(duckdb_appender_flush(appender_), "flush"); }

std::string quote_ident(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string quote_literal(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

}  // namespace lakestream::sql
