// A thin RAII layer over DuckDB's C API: the embedded SQL engine that parses records, writes and
// reads Parquet, and runs every filter, aggregate and recount. Nothing in lakestream evaluates SQL
// by hand; it builds SQL text and hands it here.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lakestream::sql {

// Whether an Error from a failed statement shows the statement (lakestream's own SQL, which a user
// did not write and rarely needs): off unless the CLI's --verbose turns it on for the process.
void show_statements_in_errors(bool shown);

// One DuckDB database: in memory when `path` is empty, else the file at `path`. It opens when
// first used, so a run that finds nothing new never pays for starting DuckDB.
class Database {
 public:
  explicit Database(const std::string& path = "") : path_(path) {}
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  // Opens the database if it is not open yet; throws Error when it cannot be opened.
  duckdb_database handle();
  // True the first time it is asked for `name` (a function of ours to register once).
  bool first_time(const std::string& name);

 private:
  std::string path_;
  duckdb_database db_ = nullptr;
  std::mutex mutex_;
  std::set<std::string> done_;
};

// A query's result with every value rendered as text (NULL as nullopt): for small results such
// as metadata, stats and check lines. Bulk data stays inside DuckDB.
struct Rows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;

  size_t size() const { return rows.size(); }
  bool empty() const { return rows.empty(); }
  // The value at (row, column name); throws Error for an unknown column.
  const std::optional<std::string>& at(size_t row, const std::string& column) const;
  // The same, with NULL as "".
  std::string text(size_t row, const std::string& column) const;
};

// A connection; its session time zone is UTC, so timestamps print and parse as UTC. Like the
// database, it connects when first used.
class Connection {
 public:
  explicit Connection(Database& db) : db_(db) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements; throws Error with DuckDB's message and the SQL's start.
  void exec(const std::string& sql);
  // Runs `sql` and hands over DuckDB's result, which the caller destroys (duckdb_destroy_result);
  // throws Error as exec does. For results read as vectors (sql/copy_stats.cc).
  duckdb_result result_of(const std::string& sql);
  Rows query(const std::string& sql);
  // The first column of the first row; nullopt for NULL or no row.
  std::optional<std::string> scalar(const std::string& sql);
  // The first column of the first row as an integer (0 for NULL or no row).
  int64_t scalar_int(const std::string& sql);

  // Sets a DuckDB setting for good (a long-running process keeps it rather than setting and
  // restoring it around every run: setting `threads` stops or starts DuckDB's worker threads).
  // Does nothing when this connection already set it to `value`.
  void keep_setting(const std::string& name, const std::string& value);

  // Connects (opening the database) if not connected yet.
  duckdb_connection handle();
  // The database this connection is to (for a second connection that works alongside).
  Database& database() { return db_; }

 private:
  Database& db_;
  duckdb_connection con_ = nullptr;
  std::map<std::string, std::string> kept_settings_;
};

// Sets a DuckDB setting for as long as it lives, then puts the old value back.
class ScopedSetting {
 public:
  ScopedSetting(Connection& con, const std::string& name, const std::string& value);
  ~ScopedSetting();
  ScopedSetting(const ScopedSetting&) = delete;
  ScopedSetting& operator=(const ScopedSetting&) = delete;

 private:
  Connection& con_;
  std::string name_;
  std::string old_value_;
};

// Appends rows to a table quickly (DuckDB's appender): for raw Kafka records.
class Appender {
 public:
  Appender(Connection& con, const std::string& table);
  ~Appender();
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;

  void append_int32(int32_t v);
  void append_int64(int64_t v);
  void append_text(const char* data, size_t size);
  void append_text(const std::string& s) { append_text(s.data(), s.size()); }
  void append_blob(const void* data, size_t size);
  void append_bool(bool v);
  void append_timestamp_us(int64_t micros_since_epoch);
  void append_null();
  void end_row();
  void flush();

 private:
  void check(duckdb_state state, const char* what);
  duckdb_appender appender_ = nullptr;
  std::string table_;
};

// SQL quoting: "identifier" and 'literal', with embedded quotes doubled.
std::string quote_ident(const std::string& name);
std::string quote_literal(const std::string& value);

}  // namespace lakestream::sql
