#include "checkpoint/window_state_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint/checkpoint.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

WindowStateStore::WindowStateStore(sql::Connection& con, const Checkpoint& checkpoint, const std::string& stream)
    : con_(con), path_(path_in(checkpoint.path())) {
  CpuScope cpu_scope("state.attach");
  bool existed = path_exists(path_);
  if (!existed && checkpoint.last_planned() && !checkpoint.on_object_store())
    throw Error("the checkpoint of stream " + stream + " is damaged: its state " + path_ +
                " is missing but batches were planned; starting from empty state would count windows again. "
                "Restore the checkpoint folder from a backup, or start the stream over with a new checkpoint and a "
                "new table.");
  con_.exec("ATTACH " + sql::quote_literal(path_) + " AS " + alias());
  // DuckDB creates the file with the process umask; state is private to the stream.
  if (!existed) ::chmod(path_.c_str(), 0600);
}

WindowStateStore::~WindowStateStore() {
  CpuScope cpu_scope("state.detach");
  try {
    con_.exec(std::string("DETACH DATABASE IF EXISTS ") + alias());
  } catch (const Error&) {
    // Detaching only flushes; the state is already committed.
  }
}

void WindowStateStore::create_tables(const WindowStateShape& shape) {
  CpuScope cpu_scope("state.create_tables");
  // Created apart from the rest so that state made before it gains it too.
  auto record_history = [&] {
    con_.exec("CREATE TABLE IF NOT EXISTS " + table("watermark_history") + " (source_batch_id BIGINT, watermark BIGINT)");
  };
  if (con_.scalar_int("SELECT count(*) FROM duckdb_tables() WHERE database_name = '" + std::string(alias()) + "'") > 0) {
    record_history();
    return;
  }
  con_.exec("BEGIN TRANSACTION;"
            "CREATE TABLE " + table("meta") + " (key VARCHAR PRIMARY KEY, value BIGINT);"
            "CREATE TABLE " + table("windows") + " AS " + shape.windows + ";"
            "CREATE TABLE " + table("outbox") + " AS SELECT 0::BIGINT AS batch_id, " + shape.outbox_select +
            " FROM " + table("windows") + " LIMIT 0;" +
            (shape.dedup.empty() ? std::string() : "CREATE TABLE " + table("dedup") + " AS " + shape.dedup + ";") +
            "COMMIT");
  record_history();
}

namespace {

// The record's fields by their keys in the meta table: the one place that names them.
template <typename Meta, typename Visit>
void each_meta_field(Meta& meta, Visit visit) {
  visit("watermark", meta.watermark_us);
  visit("watermark_used", meta.watermark_used_us);
  visit("last_batch", meta.last_batch);
  visit("source_version", meta.source_version);
  visit("source_max_batch_id", meta.source_max_batch_id);
}

// The meta table `meta_table` as a record.
WindowStateMeta read_meta(sql::Connection& con, const std::string& meta_table) {
  std::map<std::string, int64_t> stored;
  for (const auto& row : con.query("SELECT key, value FROM " + meta_table).rows)
    if (row[0] && row[1]) stored[*row[0]] = std::stoll(*row[1]);
  WindowStateMeta meta;
  each_meta_field(meta, [&](const char* key, int64_t& field) {
    if (stored.count(key)) field = stored.at(key);
  });
  return meta;
}

}  // namespace

const WindowStateMeta& WindowStateStore::meta() const {
  if (!meta_) meta_ = read_meta(con_, table("meta"));
  return *meta_;
}

std::string WindowStateStore::set_meta_sql(const WindowStateMeta& meta) const {
  // One statement for every field: each statement of a transaction costs its planning.
  std::string values;
  each_meta_field(meta, [&](const char* key, const int64_t& value) {
    values += (values.empty() ? "(" : ", (") + sql::quote_literal(key) + ", " + std::to_string(value) + ")";
  });
  return "INSERT OR REPLACE INTO " + table("meta") + " VALUES " + values + ";";
}

int64_t WindowStateStore::size_bytes() const { return file_size_or_zero(path_); }

void WindowStateStore::publish(Checkpoint& checkpoint, int64_t batch) {
  if (!checkpoint.on_object_store()) return;
  // The file alone, without its WAL, is then the whole committed state.
  con_.exec(std::string("CHECKPOINT ") + alias());
  checkpoint.publish_state(batch);
}

void WindowStateStore::remove(const std::string& checkpoint_dir) {
  for (const std::string& file : {path_in(checkpoint_dir), path_in(checkpoint_dir) + ".wal"}) ::unlink(file.c_str());
}

std::optional<WindowStateMeta> read_window_state_meta(const std::string& path) {
  if (!path_exists(path)) return std::nullopt;
  sql::Database db;
  sql::Connection con(db);
  con.exec("ATTACH " + sql::quote_literal(path) + " AS s (READ_ONLY)");
  return read_meta(con, "s.meta");
}

std::optional<WindowProgress> read_window_progress(const Pipeline& pipeline, const Stream& stream) {
  std::string path = WindowStateStore::path_in(pipeline.checkpoint_path(stream.name));
  if (!path_exists(path)) return std::nullopt;
  sql::Database db;
  sql::Connection con(db);
  try {
    con.exec("ATTACH " + sql::quote_literal(path) + " AS s (READ_ONLY)");
  } catch (const Error& e) {
    throw Error("cannot read the state of stream " + stream.name + " (" + path + "); is it running? Run this again "
                "when the run has finished. (" + e.what() + ")");
  }
  WindowProgress p;
  WindowStateMeta meta = read_meta(con, "s.meta");
  p.watermark_us = meta.watermark_us;
  p.last_batch = meta.last_batch;
  p.source_max_batch_id = meta.source_max_batch_id;
  p.open_windows = con.scalar_int("SELECT count(*) FROM s.windows");
  if (!stream.dedup.empty()) p.dedup_keys = con.scalar_int("SELECT count(*) FROM s.dedup");
  if (con.scalar_int("SELECT count(*) FROM duckdb_tables() WHERE database_name = 's' AND table_name = 'watermark_history'") > 0)
    for (const auto& row : con.query("SELECT source_batch_id, watermark FROM s.watermark_history ORDER BY 1").rows)
      p.watermark_history.emplace_back(std::stoll(*row[0]), std::stoll(*row[1]));
  sql::Rows outbox = con.query("DESCRIBE s.outbox");
  for (size_t i = 0; i < outbox.size(); i++)
    if (outbox.text(i, "column_name") != "batch_id")
      p.output_columns.emplace_back(outbox.text(i, "column_name"), outbox.text(i, "column_type"));
  return p;
}

}  // namespace lakestream
