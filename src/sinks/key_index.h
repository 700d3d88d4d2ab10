// Where each live row of a merge-on-read table is, by key, with the values silver's rule
// (sinks/newest_wins.h) compares: so that a batch finds the rows its keys replace without
// reading the table. With keys spread at random every file may hold one of a batch's keys, and
// reading every file's keys made each batch cost what the table costs to scan; with the index a
// batch costs what its own rows cost (a hash lookup per incoming key).
//
// Per live row it keeps two 64-bit hashes of the key (DuckDB's hash() for the slot, a hash of
// the key's text to tell two keys with one hash apart), the order_by value as a 64-bit integer,
// up to two ties, and the row's file and position: 48 bytes a row, with its slots about 60 MB a
// million keys. It lives in memory, is built from the table's rows when first used, and follows
// the stream's own commits by reading only the file each commit adds. When the table's files are
// not the ones it describes (a compaction, another writer) it follows that change too: the
// entries of the files gone (or whose deletion vector changed) are dropped and the new files
// read, so a compaction costs what it rewrote, not the table; it is built again only when the
// rows it then holds are not the table's count. Nothing of it is stored, so a crash loses
// nothing: the next run builds it again.
//
// It is built only when it fits in a quarter of the machine's memory (the budget check and recount
// take too, sql/memory_budget.h); a larger table is read instead.
//
// It serves keys of any type but floating point, and order_by columns that are integers, dates
// or timestamps (the values a 64-bit integer holds exactly); upsert_rows reads the table for the
// others, and whenever the index cannot serve (a NULL tie, two keys whose two hashes both agree).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <duckdb.h>

#include "sinks/newest_wins.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream {

class KeyIndex {
 public:
  // `columns`: the upsert's columns (the writer's shape); the rule's columns are among them.
  // `budget_bytes` 0: a quarter of the machine's memory.
  KeyIndex(std::vector<std::string> key, NewestWins rule, std::vector<delta::Column> columns, int64_t budget_bytes = 0);

  // What a row of the table costs the index: its entry and its share of the slots.
  static constexpr int64_t kBytesPerRow = 64;

  // Whether an index can serve these keys and this rule (their column types).
  static bool serves(const std::vector<delta::Column>& columns, const std::vector<std::string>& key, const NewestWins& rule);
  // Whether this index was made for exactly these (a schema change or another rule needs a new one).
  bool made_for(const std::vector<std::string>& key, const NewestWins& rule, const std::vector<delta::Column>& columns) const;

  // Makes the index describe `table` (a snapshot whose metadata is in the writer's shape): kept
  // when it describes those very files (path and deletion vector), built from the files' rows
  // otherwise. Drops what expect_commit noted. False when it cannot serve this table.
  bool cover(sql::Connection& con, const delta::Snapshot& table);

  // Creates the DuckDB table `matched`: for each row of `incoming` (one per key, the upsert's
  // columns) whose key the table holds, the key columns, `__lakestream_file` and
  // `__lakestream_row` (where the existing row is) and `__lakestream_keeps` (whether the existing
  // row stays, by the rule). Returns the files (readable paths) holding them; nullopt when the
  // batch has what the index cannot compare (a NULL tie, an infinite timestamp): then the table
  // is read, now and from then on.
  std::optional<std::set<std::string>> match(sql::Connection& con, const std::string& incoming, const std::string& matched);

  // What the commit being built on the covered snapshot does: its winners (the keys whose rows
  // it replaces or removes: the DuckDB table `winners`), the files it removes and adds (by
  // AddFile::logical_key()), and the data file it writes (empty path: none).
  void expect_commit(sql::Connection& con, const std::string& winners, std::vector<std::string> removed_files,
                     std::vector<std::string> added_files, const delta::AddFile& written);

  // The commit expect_commit described was published: the index follows it, reading the new
  // file's keys. (A commit that did not publish leaves the index describing the snapshot before
  // it; the next cover() finds the table's files changed and builds it again.)
  void committed(sql::Connection& con);

  int64_t rows() const { return static_cast<int64_t>(entries_.size() - free_.size()); }
  // Whether it describes a table now (built and not let go).
  bool built() const { return built_; }
  // The memory its entries and slots hold.
  int64_t memory_bytes() const {
    return static_cast<int64_t>(entries_.capacity() * sizeof(Entry) + slots_.capacity() * sizeof(uint32_t) +
                                free_.capacity() * sizeof(uint32_t));
  }
  int64_t builds() const { return builds_; }
  // How often it followed a change of the table's files that was not its own commit.
  int64_t follows() const { return follows_; }
  // How many files of those changes it followed by their keys alone (a compaction's rows, moved).
  int64_t files_moved() const { return files_moved_; }

 private:
  struct Entry {
    uint64_t h1 = 0, h2 = 0;  // the key's two hashes
    int64_t order = 0;        // order_by as an integer (see order_value_sql)
    int64_t ties[2] = {0, 0};
    uint32_t file = 0;        // kOrderNull set: order_by is NULL
    uint32_t row = 0;
  };
  static constexpr uint32_t kOrderNull = 0x80000000u;
  static constexpr uint32_t kNoEntry = 0xFFFFFFFFu;

  // SQL selecting, for each row of `relation`, the hashes and rule values (and `extra` after them).
  std::string encoded_sql(const std::string& relation, const std::string& extra) const;
  // The live rows of one file of `table`, each with its __lakestream_row, as a relation.
  std::string rows_with_positions_sql(const delta::Snapshot& table, const delta::AddFile& file) const;
  // Reads the live rows of one file of `table` into the index.
  void load(sql::Connection& con, const delta::Snapshot& table, const delta::AddFile& file);
  // Builds it from every file of `table` (whose logical keys are `files`); false when it cannot serve.
  bool build(sql::Connection& con, const delta::Snapshot& table, std::unordered_set<std::string> files);
  // Follows a change of the table's files from covered_ (at covered_version) to `files` (those of
  // `table`): false when it had better be built again.
  bool follow(sql::Connection& con, const delta::Snapshot& table, int64_t covered_version,
              const std::unordered_set<std::string>& files);
  // The files (logical keys) that commits after covered_version added without changing rows (a
  // compaction), when every commit that changed rows is one the index followed; else none.
  std::unordered_set<std::string> moved_rows_files(const delta::Snapshot& table, int64_t covered_version) const;
  // Moves the entries of `file`'s rows (each one in a file `gone`) to their places in it, reading
  // only its keys; false when a row is not one of those.
  bool move(sql::Connection& con, const delta::Snapshot& table, const delta::AddFile& file, const std::vector<bool>& gone);
  // The SELECT items of a key's two hashes, __h1 and __h2.
  std::string key_hashes_sql() const;
  // Once the ids outnumber twice the files described (and a thousand more), renumbers the files
  // the entries name, forgetting the others (a file id per commit otherwise piles up over a
  // service's weeks).
  void forget_unused_files();
  void insert(const Entry& entry);
  void erase(uint64_t h1, uint64_t h2);
  size_t slot_of(uint64_t h1) const;
  void grow(size_t rows);
  uint32_t file_id(const std::string& readable_path, const std::string& table_path);
  // Lets go of every entry and its memory; describes no table.
  void release();
  // The hashes and rule values of row `row` of a chunk of encoded_sql, from `first_column` on
  // (the row's place left unset); nullopt when a tie is NULL.
  static std::optional<Entry> decode(duckdb_data_chunk chunk, idx_t row, idx_t first_column);
  // Whether the existing row stays against an incoming one of the same key (the rule).
  bool existing_stays(const Entry& existing, const Entry& incoming) const;

  std::vector<std::string> key_;
  NewestWins rule_;
  std::vector<delta::Column> columns_;
  int64_t budget_bytes_;

  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;   // entries no longer used
  std::vector<uint32_t> slots_;  // open addressing by h1: an entry's index, or kNoEntry
  std::vector<std::string> files_;                         // readable paths, by file id
  std::vector<std::string> table_paths_;                   // the table's paths, by file id
  std::unordered_map<std::string, uint32_t> file_ids_;    // by readable path
  std::unordered_set<std::string> covered_;  // logical keys of the files described
  delta::Snapshot table_;                     // the covered snapshot (its metadata reads new files)
  bool built_ = false;
  bool unusable_ = false;  // a NULL tie or two keys alike in both hashes: the table is read instead
  int64_t builds_ = 0;
  int64_t follows_ = 0;
  int64_t files_moved_ = 0;

  struct Pending {
    std::vector<std::pair<uint64_t, uint64_t>> replaced;  // the winners' keys
    std::vector<std::string> removed_files, added_files;
    std::optional<delta::AddFile> written;
  };
  std::optional<Pending> pending_;
};

}  // namespace lakestream
