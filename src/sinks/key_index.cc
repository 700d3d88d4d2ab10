#include "sinks/key_index.h"

#include <duckdb.h>

#include <functional>

#include "sql/memory_budget.h"
#include "sql/result_chunks.h"
#include "table/parquet_file.h"
#include "table/table_files.h"
#include "util/cpu_profile.h"
#include "util/error.h"

namespace lakestream {

namespace {

const delta::Column* column_named(const std::vector<delta::Column>& columns, const std::string& name) {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

std::string simple_type(const delta::Column& column) {
  return column.type.is_string() ? column.type.get<std::string>() : "";
}

bool is_integer_type(const std::string& type) {
  return type == "byte" || type == "short" || type == "integer" || type == "long";
}

// The column as the upsert's columns type it, so that the table's side (read from its files)
// and the batch's side hash the same values alike.
std::string typed(const delta::Column& column) {
  return "CAST(" + sql::quote_ident(column.name) + " AS " + delta::duckdb_type_of(column.type) + ")";
}

}  // namespace

std::optional<KeyIndex::Entry> KeyIndex::decode(duckdb_data_chunk chunk, idx_t row, idx_t first_column) {
  // The columns of encoded_sql, in its order: __h1, __h2, __order, __tie0, __tie1.
  const idx_t order_column = first_column + 2, tie0_column = first_column + 3, tie1_column = first_column + 4;
  if (!sql::valid(chunk, tie0_column, row) || !sql::valid(chunk, tie1_column, row)) return std::nullopt;
  Entry entry;
  entry.h1 = sql::column_data<uint64_t>(chunk, first_column)[row];
  entry.h2 = sql::column_data<uint64_t>(chunk, first_column + 1)[row];
  bool has_order = sql::valid(chunk, order_column, row);
  entry.order = has_order ? sql::column_data<int64_t>(chunk, order_column)[row] : 0;
  entry.file = has_order ? 0 : kOrderNull;
  entry.ties[0] = sql::column_data<int64_t>(chunk, tie0_column)[row];
  entry.ties[1] = sql::column_data<int64_t>(chunk, tie1_column)[row];
  return entry;
}

KeyIndex::KeyIndex(std::vector<std::string> key, NewestWins rule, std::vector<delta::Column> columns, int64_t budget_bytes)
    : key_(std::move(key)),
      rule_(std::move(rule)),
      columns_(std::move(columns)),
      budget_bytes_(budget_bytes > 0 ? budget_bytes : sql::default_memory_budget()) {}

bool KeyIndex::serves(const std::vector<delta::Column>& columns, const std::vector<std::string>& key, const NewestWins& rule) {
  if (key.empty() || rule.ties.size() > 2) return false;
  for (const auto& k : key) {
    const delta::Column* column = column_named(columns, k);
    // Floating point keys: -0.0 and 0.0 are one key to SQL but two texts.
    if (!column || !column->type.is_string()) return false;
    std::string type = simple_type(*column);
    if (type == "float" || type == "double") return false;
  }
  const delta::Column* order_by = column_named(columns, rule.order_by);
  if (!order_by) return false;
  std::string type = simple_type(*order_by);
  if (!is_integer_type(type) && type != "date" && type != "timestamp" && type != "timestamp_ntz") return false;
  for (const auto& tie : rule.ties)
    if (!column_named(columns, tie)) return false;
  return true;
}

bool KeyIndex::made_for(const std::vector<std::string>& key, const NewestWins& rule,
                        const std::vector<delta::Column>& columns) const {
  if (key != key_ || rule.order_by != rule_.order_by || rule.ties != rule_.ties || columns.size() != columns_.size())
    return false;
  for (size_t i = 0; i < columns.size(); i++)
    if (columns[i].name != columns_[i].name || columns[i].type != columns_[i].type) return false;
  return true;
}

std::string KeyIndex::key_hashes_sql() const {
  std::string h1, h2;
  for (const auto& k : key_) {
    std::string value = typed(*column_named(columns_, k));
    h1 += (h1.empty() ? "" : ", ") + value;
    // A second hash, of other bytes (the key's text): two keys alike in both are as good as never.
    h2 += (h2.empty() ? "" : ", chr(31), ") + ("coalesce(CAST(" + value + " AS VARCHAR), chr(30))");
  }
  return "hash(" + h1 + ") AS __h1, hash(concat(" + h2 + ")) AS __h2";
}

std::string KeyIndex::encoded_sql(const std::string& relation, const std::string& extra) const {
  const delta::Column& order_by = *column_named(columns_, rule_.order_by);
  std::string type = simple_type(order_by), order;
  if (is_integer_type(type)) order = "CAST(" + typed(order_by) + " AS BIGINT)";
  else if (type == "date") order = "CAST(" + typed(order_by) + " - DATE '1970-01-01' AS BIGINT)";
  else order = "epoch_us(" + typed(order_by) + ")";  // timestamp, timestamp_ntz: microseconds, exact
  std::string ties[2] = {"CAST(0 AS BIGINT)", "CAST(0 AS BIGINT)"};
  for (size_t i = 0; i < rule_.ties.size(); i++) ties[i] = "CAST(" + sql::quote_ident(rule_.ties[i]) + " AS BIGINT)";
  return "SELECT " + key_hashes_sql() + ", " + order + " AS __order, " + ties[0] +
         " AS __tie0, " + ties[1] + " AS __tie1" + extra + " FROM " + relation + " AS __r";
}

size_t KeyIndex::slot_of(uint64_t h1) const {
  size_t mask = slots_.size() - 1;
  size_t i = h1 & mask;
  while (slots_[i] != kNoEntry && entries_[slots_[i]].h1 != h1) i = (i + 1) & mask;
  return i;
}

void KeyIndex::grow(size_t rows) {
  size_t size = 16;
  while (size < rows * 2) size *= 2;
  if (size <= slots_.size()) return;
  std::vector<uint32_t> old = std::move(slots_);
  slots_.assign(size, kNoEntry);
  for (uint32_t entry : old)
    if (entry != kNoEntry) slots_[slot_of(entries_[entry].h1)] = entry;
}

void KeyIndex::insert(const Entry& entry) {
  if (static_cast<size_t>(rows() + 1) * 2 > slots_.size()) grow(static_cast<size_t>(rows() + 1));
  size_t slot = slot_of(entry.h1);
  if (slots_[slot] != kNoEntry) {
    Entry& there = entries_[slots_[slot]];
    if (there.h2 != entry.h2) unusable_ = true;  // two keys with one slot hash: read the table instead
    there = entry;  // the key's row moved (a purged file, or a replaced row)
    return;
  }
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
    entries_[index] = entry;
  } else {
    index = static_cast<uint32_t>(entries_.size());
    entries_.push_back(entry);
  }
  slots_[slot] = index;
}

void KeyIndex::erase(uint64_t h1, uint64_t h2) {
  if (slots_.empty()) return;
  size_t hole = slot_of(h1);
  if (slots_[hole] == kNoEntry || entries_[slots_[hole]].h2 != h2) return;
  free_.push_back(slots_[hole]);
  // Backward shift: the entries after the hole that may live in it move up, so that every probe
  // still finds its entry before an empty slot.
  size_t mask = slots_.size() - 1;
  for (size_t j = (hole + 1) & mask; slots_[j] != kNoEntry; j = (j + 1) & mask) {
    size_t home = entries_[slots_[j]].h1 & mask;
    bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = kNoEntry;
}

uint32_t KeyIndex::file_id(const std::string& readable_path, const std::string& table_path) {
  auto found = file_ids_.find(readable_path);
  if (found != file_ids_.end()) return found->second;
  uint32_t id = static_cast<uint32_t>(files_.size());
  if (id >= kOrderNull) throw Error("key index: too many files");
  files_.push_back(readable_path);
  table_paths_.push_back(table_path);
  file_ids_.emplace(readable_path, id);
  return id;
}

std::string KeyIndex::rows_with_positions_sql(const delta::Snapshot& table, const delta::AddFile& file) const {
  return "(" + delta::scan_sql_with_positions(delta::with_files(table, {file})) + ")";
}

void KeyIndex::load(sql::Connection& con, const delta::Snapshot& table, const delta::AddFile& file) {
  const uint32_t id = file_id(delta::readable_path(table.table, file.path, file.size), file.path);
  sql::for_each_chunk(con, encoded_sql(rows_with_positions_sql(table, file), ", __lakestream_row"),
                 [&](duckdb_data_chunk chunk, idx_t rows) {
    const auto* row = sql::column_data<int64_t>(chunk, 5);
    for (idx_t i = 0; i < rows; i++) {
      std::optional<Entry> entry = decode(chunk, i, 0);
      if (!entry || row[i] < 0 || row[i] > 0xFFFFFFFFll) {
        unusable_ = true;  // a NULL tie: SQL's list comparison decides those, not the index
        return;
      }
      entry->file |= id;
      entry->row = static_cast<uint32_t>(row[i]);
      insert(*entry);
    }
  });
}

bool KeyIndex::cover(sql::Connection& con, const delta::Snapshot& table) {
  CpuScope cpu_scope("key_index.cover");
  pending_.reset();
  if (unusable_) return false;
  std::unordered_set<std::string> files;
  for (const auto& file : table.files) files.insert(file.logical_key());
  const int64_t covered_version = table_.version;
  table_ = table;
  if (built_ && files == covered_) return true;
  if (built_ && follow(con, table, covered_version, files)) return true;
  if (unusable_) return false;
  return build(con, table, std::move(files));
}

std::unordered_set<std::string> KeyIndex::moved_rows_files(const delta::Snapshot& table, int64_t covered_version) const {
  std::unordered_set<std::string> moved;
  if (covered_version < 0 || table.version <= covered_version) return {};
  std::vector<delta::CommitEntry> commits;
  try {
    commits = delta::read_commits(table.table, covered_version + 1, table.version);
  } catch (const Error&) {
    return {};  // a commit is gone from the log: every new file is read whole
  }
  for (const auto& commit : commits) {
    bool changes_data = false;
    for (const auto& add : commit.adds) changes_data = changes_data || add.data_change;
    for (const auto& remove : commit.removes) changes_data = changes_data || remove.data_change;
    if (!changes_data) {
      for (const auto& add : commit.adds) moved.insert(add.logical_key());
      continue;
    }
    // A commit that changed rows is the stream's own, which the index followed already (its
    // files are among those it describes), or another writer's: then a file a later compaction
    // made may hold rows the index never saw, and every new file is read whole.
    for (const auto& add : commit.adds)
      if (!covered_.count(add.logical_key())) return {};
  }
  return moved;
}

bool KeyIndex::move(sql::Connection& con, const delta::Snapshot& table, const delta::AddFile& file,
                    const std::vector<bool>& gone) {
  if (slots_.empty()) return false;  // it holds no row to move
  const uint32_t id = file_id(delta::readable_path(table.table, file.path, file.size), file.path);
  bool moved = true;
  sql::for_each_chunk(con, "SELECT " + key_hashes_sql() + ", __lakestream_row FROM " + rows_with_positions_sql(table, file),
                 [&](duckdb_data_chunk chunk, idx_t rows) {
    const auto* h1 = sql::column_data<uint64_t>(chunk, 0);
    const auto* h2 = sql::column_data<uint64_t>(chunk, 1);
    const auto* row = sql::column_data<int64_t>(chunk, 2);
    for (idx_t i = 0; i < rows && moved; i++) {
      size_t slot = slot_of(h1[i]);
      // Each row must be one the index holds in a file gone, and the only one of its key.
      if (slots_[slot] == kNoEntry || row[i] < 0 || row[i] > 0xFFFFFFFFll) {
        moved = false;
        break;
      }
      Entry& entry = entries_[slots_[slot]];
      uint32_t from = entry.file & ~kOrderNull;
      if (entry.h2 != h2[i] || from >= gone.size() || !gone[from]) {
        moved = false;
        break;
      }
      entry.file = (entry.file & kOrderNull) | id;
      entry.row = static_cast<uint32_t>(row[i]);
    }
  });
  return moved;
}

bool KeyIndex::follow(sql::Connection& con, const delta::Snapshot& table, int64_t covered_version,
                      const std::unordered_set<std::string>& files) {
  CpuScope cpu_scope("key_index.follow");
  // The files gone, by their paths: removed, or given another deletion vector (the path stays,
  // some of its rows went; its live rows are read again below).
  std::unordered_set<std::string> gone_paths;
  for (const auto& key : covered_)
    if (!files.count(key)) gone_paths.insert(key.substr(0, key.find('\n')));
  std::vector<const delta::AddFile*> fresh;
  int64_t live_rows = 0;
  for (const auto& file : table.files) {
    std::optional<int64_t> rows = file.live_rows();
    if (!rows) return false;  // without its count the result cannot be checked: build it
    live_rows += *rows;
    if (!covered_.count(file.logical_key())) fresh.push_back(&file);
  }
  if (live_rows * kBytesPerRow > budget_bytes_) return false;
  std::vector<bool> gone(files_.size(), false);
  for (uint32_t id = 0; id < table_paths_.size(); id++) gone[id] = gone_paths.count(table_paths_[id]) > 0;
  try {
    // A compaction's files (commits that change no rows) hold rows the index has, moved: only
    // their keys and places are read, and each entry keeps its values.
    std::unordered_set<std::string> moved = moved_rows_files(table, covered_version);
    std::vector<const delta::AddFile*> read_whole;
    for (const auto* file : fresh) {
      if (!moved.count(file->logical_key())) read_whole.push_back(file);
      else if (move(con, table, *file, gone)) files_moved_++;
      else return false;
    }
    // What is left in the files gone was deleted (another writer's vector, a purge).
    std::vector<std::pair<uint64_t, uint64_t>> dropped;
    for (uint32_t entry : slots_) {
      if (entry == kNoEntry) continue;
      uint32_t id = entries_[entry].file & ~kOrderNull;
      if (id < gone.size() && gone[id]) dropped.emplace_back(entries_[entry].h1, entries_[entry].h2);
    }
    for (const auto& [h1, h2] : dropped) erase(h1, h2);
    for (uint32_t id = 0; id < gone.size(); id++) {
      if (!gone[id]) continue;
      file_ids_.erase(files_[id]);
      files_[id].clear();  // renumbered away by forget_unused_files; never looked up again
      table_paths_[id].clear();
    }
    // Files with rows it has not seen are read whole, as a build reads them.
    for (const auto* file : read_whole) {
      load(con, table, *file);
      if (unusable_) return false;
    }
  } catch (const Error&) {
    unusable_ = true;
    return false;
  }
  // Its rows must be the table's live rows, one entry a key: else (a change it cannot follow,
  // keys the other writer left twice) it is built again.
  if (rows() != live_rows) return false;
  covered_ = files;
  follows_++;
  forget_unused_files();
  return true;
}

void KeyIndex::forget_unused_files() {
  if (files_.size() <= 2 * covered_.size() + 1024) return;  // few enough: not worth a pass over the entries
  std::vector<uint32_t> renumbered(files_.size(), kNoEntry);
  std::vector<std::string> files, table_paths;
  for (uint32_t& entry : slots_) {
    if (entry == kNoEntry) continue;
    Entry& e = entries_[entry];
    uint32_t id = e.file & ~kOrderNull;
    if (renumbered[id] == kNoEntry) {
      renumbered[id] = static_cast<uint32_t>(files.size());
      files.push_back(files_[id]);
      table_paths.push_back(table_paths_[id]);
    }
    e.file = (e.file & kOrderNull) | renumbered[id];
  }
  files_ = std::move(files);
  table_paths_ = std::move(table_paths);
  file_ids_.clear();
  for (uint32_t id = 0; id < files_.size(); id++) file_ids_.emplace(files_[id], id);
}

bool KeyIndex::build(sql::Connection& con, const delta::Snapshot& table, std::unordered_set<std::string> files) {
  CpuScope build_scope("key_index.build");
  release();  // what it held goes first
  int64_t expected = 0;
  for (const auto& file : table.files) expected += file.live_rows().value_or(0);
  if (expected * kBytesPerRow > budget_bytes_) return false;  // too large to hold: the batch reads the table
  entries_.reserve(static_cast<size_t>(expected));
  grow(static_cast<size_t>(expected));
  try {
    // File by file: each query's result is one file's rows, never the table's.
    for (const auto& file : table.files) {
      load(con, table, file);
      if (unusable_) return false;
    }
  } catch (const Error&) {
    unusable_ = true;  // a value the index cannot hold (say, an infinite timestamp): read the table
    return false;
  }
  covered_ = std::move(files);
  built_ = true;
  builds_++;
  return true;
}

bool KeyIndex::existing_stays(const Entry& existing, const Entry& incoming) const {
  bool existing_null = existing.file & kOrderNull, incoming_null = incoming.file & kOrderNull;
  bool newer = incoming_null ? false : (existing_null || incoming.order > existing.order);
  bool same_order = existing_null == incoming_null && (existing_null || existing.order == incoming.order);
  if (same_order) {
    for (size_t i = 0; i < rule_.ties.size(); i++) {
      if (incoming.ties[i] == existing.ties[i]) continue;
      newer = incoming.ties[i] > existing.ties[i];
      break;
    }
  }
  return !newer;
}

std::optional<std::set<std::string>> KeyIndex::match(sql::Connection& con, const std::string& incoming,
                                                    const std::string& matched) {
  CpuScope cpu_scope("key_index.match");
  std::string keys;
  for (const auto& k : key_) keys += ", " + sql::quote_ident(k);
  try {
    con.exec("CREATE OR REPLACE TEMP TABLE upsert_index_incoming AS SELECT row_number() OVER () AS __n, * FROM (" +
             encoded_sql(incoming, keys) + ")");
  } catch (const Error&) {
    unusable_ = true;  // a value the index cannot hold (an infinite timestamp): the table is read
    return std::nullopt;
  }
  con.exec("CREATE OR REPLACE TEMP TABLE upsert_index_hits (n BIGINT, file VARCHAR, \"row\" BIGINT, keeps BOOLEAN)");
  std::set<std::string> files;
  {
    sql::Appender hits(con, "upsert_index_hits");
    sql::for_each_chunk(con, "SELECT __n, __h1, __h2, __order, __tie0, __tie1 FROM upsert_index_incoming",
                   [&](duckdb_data_chunk chunk, idx_t rows) {
      const auto* n = sql::column_data<int64_t>(chunk, 0);
      for (idx_t i = 0; i < rows && !unusable_; i++) {
        std::optional<Entry> in = decode(chunk, i, 1);
        if (!in) {
          unusable_ = true;  // a NULL tie in the batch: the table is read
          return;
        }
        if (slots_.empty()) break;
        size_t slot = slot_of(in->h1);
        if (slots_[slot] == kNoEntry) continue;
        const Entry& existing = entries_[slots_[slot]];
        if (existing.h2 != in->h2) continue;  // another key with the same slot hash: this one is new
        const std::string& file = files_[existing.file & ~kOrderNull];
        files.insert(file);
        hits.append_int64(n[i]);
        hits.append_text(file);
        hits.append_int64(existing.row);
        hits.append_bool(existing_stays(existing, *in));
        hits.end_row();
      }
    });
  }
  if (unusable_) {
    con.exec("DROP TABLE upsert_index_incoming; DROP TABLE upsert_index_hits");
    return std::nullopt;
  }
  std::string key_list;
  for (const auto& k : key_) key_list += (key_list.empty() ? "i." : ", i.") + sql::quote_ident(k);
  con.exec("CREATE OR REPLACE TEMP TABLE " + matched + " AS SELECT " + key_list +
           ", h.file AS __lakestream_file, h.\"row\" AS __lakestream_row, h.keeps AS __lakestream_keeps FROM "
           "upsert_index_incoming i JOIN upsert_index_hits h ON i.__n = h.n");
  con.exec("DROP TABLE upsert_index_incoming; DROP TABLE upsert_index_hits");
  return files;
}

void KeyIndex::expect_commit(sql::Connection& con, const std::string& winners, std::vector<std::string> removed_files,
                             std::vector<std::string> added_files, const delta::AddFile& written) {
  Pending pending;
  sql::for_each_chunk(con, "SELECT __h1, __h2 FROM (" + encoded_sql(winners, "") + ")", [&](duckdb_data_chunk chunk, idx_t rows) {
    const auto* h1 = sql::column_data<uint64_t>(chunk, 0);
    const auto* h2 = sql::column_data<uint64_t>(chunk, 1);
    for (idx_t i = 0; i < rows; i++) pending.replaced.emplace_back(h1[i], h2[i]);
  });
  pending.removed_files = std::move(removed_files);
  pending.added_files = std::move(added_files);
  if (!written.path.empty()) pending.written = written;
  pending_ = std::move(pending);
}

void KeyIndex::committed(sql::Connection& con) {
  if (!pending_ || !built_) return;
  CpuScope cpu_scope("key_index.committed");
  Pending pending = std::move(*pending_);
  pending_.reset();
  // The winners' old rows are gone (replaced, removed, or in a purged file); the written file
  // holds the new rows of those keys and the purged files' other rows, at their new places.
  for (const auto& [h1, h2] : pending.replaced) erase(h1, h2);
  for (const auto& file : pending.removed_files) covered_.erase(file);
  for (const auto& file : pending.added_files) covered_.insert(file);
  if (pending.written) {
    try {
      load(con, table_, *pending.written);
    } catch (const Error&) {
      unusable_ = true;
    }
  }
  if (rows() * kBytesPerRow > budget_bytes_) release();  // grown past its budget: the table is read from now on
  else forget_unused_files();  // the ids of files its commits removed
}

void KeyIndex::release() {
  std::vector<Entry>().swap(entries_);
  std::vector<uint32_t>().swap(free_);
  std::vector<uint32_t>().swap(slots_);
  files_.clear();
  table_paths_.clear();
  file_ids_.clear();
  covered_.clear();
  built_ = false;
}

}  // namespace lakestream
