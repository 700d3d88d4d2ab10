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

int64_t WindowStateStore::meta(const std::string& key, int64_t fallback) const {
  if (!meta_) {
    meta_.emplace();
    for (const auto& row : con_.query("SELECT key, value FROM " + table("meta")).rows)
      if (row[0] && row[1]) (*meta_)[*row[0]] = std::stoll(*row[1]);
  }
  auto it = meta_->find(key);
  return it == meta_->end() ? fallback : it->second;
}

std::string WindowStateStore::set_meta_sql(const std::string& key, int64_t value) const {
  return "INSERT OR REPLACE INTO " + table("meta") + " VALUES (" + sql::quote_literal(key) + ", " +
         std::to_string(value) + ");";
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
  auto meta = [&](const char* key, int64_t fallback) {
    auto v = con.scalar(std::string("SELECT value FROM s.meta WHERE key = '") + key + "'");
    return v ? std::stoll(*v) : fallback;
  };
  p.watermark_us = meta("watermark", 0);
  p.last_batch = meta("last_batch", -1);
  p.open_windows = con.scalar_int("SELECT count(*) FROM s.windows");
  if (!stream.dedup.empty()) p.dedup_keys = con.scalar_int("SELECT count(*) FROM s.dedup");
  if (con.scalar_int("SELECT count(*) FROM duckdb_tables() WHERE database_name = 's' AND table_name = 'watermark_history'") > 0)
    for (const auto& row : con.query("SELECT source_batch_id, watermark FROM s.watermark_history ORDER BY 1").rows)
      p.watermark_history.emplace_back(std::stoll(*row[0]), std::stoll(*row[1]));
  return p;
}

}  // namespace lakestream
