// Copy-on-write merges: over generated batches the table must hold after every batch what a model
// in C++ holds (a map of each key's row, sharing no code with the upsert), for keys of two columns
// with NULLs, a rule that keeps the newer existing row, and deletes. And when updates follow the
// newest keys (orders moving on a few minutes after they were placed), a batch must rewrite about
// the rows still being updated, not a file that every new key joins and that grows with the table;
// an update of an old key rewrites the file that holds that key. With the files' key sets
// (sinks/file_key_sets.h) the merges give the same, and the files a set says hold a batch's keys
// are those a query over each file finds them in.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "sinks/file_key_sets.h"
#include "sinks/upsert.h"
#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/parquet_file.h"
#include "table/table_files.h"

namespace lakestream {
namespace {

std::vector<delta::Column> columns() {
  return {{"id", "long"}, {"region", "string"}, {"version", "long"}, {"note", "string"}};
}

struct Change {
  std::optional<int64_t> id;
  std::string region;
  int64_t version;
  std::string note;  // "delete" removes the key
};

using Key = std::pair<std::optional<int64_t>, std::string>;

struct Stored {
  int64_t version;
  std::string note;
};

// The model's rule, written apart from the upsert: the existing row stays when its version is
// greater; otherwise the change replaces it, or removes it when it is a delete.
void apply(std::map<Key, Stored>& model, const Change& change) {
  Key key{change.id, change.region};
  auto found = model.find(key);
  if (found != model.end() && found->second.version > change.version) return;
  if (change.note == "delete")
    model.erase(key);
  else
    model[key] = {change.version, change.note};
}

std::string line(const Key& key, const Stored& row) {
  return (key.first ? std::to_string(*key.first) : "NULL") + "|" + key.second + "|" + std::to_string(row.version) + "|" + row.note;
}

std::vector<std::string> table_lines(sql::Connection& con, const std::string& table) {
  sql::Rows rows = con.query("SELECT coalesce(CAST(id AS VARCHAR), 'NULL') || '|' || region || '|' || version || '|' || note FROM (" +
                             delta::scan_sql(delta::load_snapshot(table)) + ")");
  std::vector<std::string> lines;
  for (const auto& row : rows.rows) lines.push_back(*row[0]);
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::vector<std::string> model_lines(const std::map<Key, Stored>& model) {
  std::vector<std::string> lines;
  for (const auto& [key, row] : model) lines.push_back(line(key, row));
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Merges one batch (one change per key, as the latest stream hands the sink) and returns the
// rows of the files the commit removed: what it rewrote.
int64_t merge(sql::Connection& con, const std::string& table, const std::vector<Change>& batch,
              FileKeySets* key_sets = nullptr) {
  std::string values;
  for (const auto& c : batch)
    values += (values.empty() ? "" : ", ") + ("((" + (c.id ? std::to_string(*c.id) : "NULL") + ")::BIGINT, '" + c.region + "', " +
                                              std::to_string(c.version) + "::BIGINT, '" + c.note + "')");
  con.exec("CREATE OR REPLACE TABLE incoming AS SELECT * FROM (VALUES " + values + ") t(id, region, version, note)");
  delta::Snapshot before = delta::load_snapshot(table);
  delta::Commit commit(before);
  if (before.version < 0) {
    delta::Metadata metadata;
    metadata.schema = columns();
    commit.set_metadata(metadata);
  }
  upsert_rows(con, table, commit, before, "(SELECT * FROM incoming)", {"id", "region"}, "t.version > s.version", columns(),
              "s.note = 'delete'", nullptr, key_sets);
  commit.publish();
  std::set<std::string> kept;
  for (const auto& file : delta::load_snapshot(table).files) kept.insert(file.path);
  int64_t rewritten = 0;
  for (const auto& file : before.files)
    if (!kept.count(file.path)) rewritten += file.live_rows().value_or(0);
  return rewritten;
}

// Generated batches: new keys rising, updates of the newest `window` keys, and with `anywhere`
// also updates of any key so far, keys with a NULL id, and changes older than the row they meet.
struct Feed {
  uint32_t seed;
  int batches;
  int window;
  bool anywhere;
  int old_key_every = 0;  // every so many batches, one update of a key in the oldest half too (0: none)
  int64_t key_sets_budget = -1;  // merged with the files' key sets of this budget (0: the default; -1: none)
};

struct FeedOutcome {
  int64_t most_rewritten = 0;  // the most rows one batch rewrote
  int64_t batch_rows_max = 0;
  size_t files = 0;
  int hot_checked = 0;  // batches whose new keys were checked to join the hot file
};

// Whether the file holding the table's greatest id also holds id `id`.
bool greatest_key_file_holds(sql::Connection& con, const std::string& table, int64_t id) {
  delta::Snapshot snapshot = delta::load_snapshot(table);
  std::string greatest_file;
  std::optional<int64_t> greatest;
  for (const auto& file : snapshot.files) {
    const std::string path = sql::quote_literal(delta::readable_path(snapshot.table, file.path, file.size));
    std::optional<std::string> top = con.scalar("SELECT max(id) FROM read_parquet(" + path + ")");
    if (!top) continue;
    if (int64_t m = std::stoll(*top); !greatest || m > *greatest) {
      greatest = m;
      greatest_file = path;
    }
  }
  return !greatest_file.empty() &&
         con.scalar_int("SELECT count(*) FROM read_parquet(" + greatest_file + ") WHERE id = " + std::to_string(id)) > 0;
}

FeedOutcome run_feed(const Feed& feed) {
  testing::TempDir dir;
  const std::string table = dir / "t";
  sql::Database db;
  sql::Connection con(db);
  std::mt19937 random(feed.seed);
  std::map<Key, Stored> model;
  FeedOutcome outcome;
  std::optional<FileKeySets> key_sets;
  if (feed.key_sets_budget >= 0) key_sets.emplace(feed.key_sets_budget);
  int64_t next_id = 1000;
  for (int b = 1; b <= feed.batches; b++) {
    std::map<Key, Change> batch;  // one change per key
    int n = 20 + static_cast<int>(random() % 120);
    for (int i = 0; i < n; i++) {
      Change c;
      c.region = random() % 3 ? "eu" : "us";
      c.version = b * 10 + static_cast<int64_t>(random() % 25) - 12;  // sometimes older than what it meets
      c.note = "v" + std::to_string(b);
      uint32_t roll = random() % 100;
      if (roll < 60 || next_id < 1000 + feed.window) {
        c.id = next_id++;
      } else if (roll < 92 || !feed.anywhere) {
        c.id = next_id - 1 - static_cast<int64_t>(random() % feed.window);  // one of the newest moves on
        if (random() % 8 == 0) c.note = "delete";
      } else if (roll < 97) {
        c.id = 1000 + static_cast<int64_t>(random() % static_cast<uint64_t>(next_id - 1000));  // any key so far
        if (random() % 4 == 0) c.note = "delete";
      } else {
        c.id = std::nullopt;  // a NULL id is a key too (with its region)
      }
      batch[{c.id, c.region}] = c;
    }
    if (feed.old_key_every > 0 && b % feed.old_key_every == 0) {
      Change old{1000 + static_cast<int64_t>(random() % static_cast<uint64_t>((next_id - 1000) / 2)), "eu", b * 10,
                 "old" + std::to_string(b)};
      batch[{old.id, old.region}] = old;
    }
    std::vector<Change> changes;
    for (const auto& [key, change] : batch) changes.push_back(change);
    // The greatest id whose row this batch replaces (kept, not deleted), and whether it adds keys.
    std::optional<int64_t> greatest_replaced;
    bool adds_keys = false;
    for (const auto& change : changes) {
      auto found = model.find({change.id, change.region});
      if (found == model.end()) adds_keys = true;
      else if (change.id && change.note != "delete" && found->second.version <= change.version)
        greatest_replaced = std::max(greatest_replaced.value_or(*change.id), *change.id);
    }
    for (const auto& change : changes) apply(model, change);
    outcome.most_rewritten =
        std::max(outcome.most_rewritten, merge(con, table, changes, key_sets ? &*key_sets : nullptr));
    outcome.batch_rows_max = std::max<int64_t>(outcome.batch_rows_max, static_cast<int64_t>(changes.size()));
    EXPECT_EQ(table_lines(con, table), model_lines(model)) << "seed " << feed.seed << " batch " << b;
    // The new keys join the hot file, the one holding the greatest key the batch replaced (not,
    // say, the old key's file, which is rewritten on its own).
    if (feed.old_key_every > 0 && adds_keys && greatest_replaced) {
      outcome.hot_checked++;
      EXPECT_TRUE(greatest_key_file_holds(con, table, *greatest_replaced)) << "seed " << feed.seed << " batch " << b;
    }
    if (::testing::Test::HasFailure()) break;
  }
  outcome.files = delta::load_snapshot(table).files.size();
  return outcome;
}

TEST(CopyOnWrite, GivesWhatTheModelGivesForUpdatesAnywhereNullKeysAndOlderChanges) {
  for (uint32_t seed : {11u, 12u, 13u}) run_feed({seed, 40, 300, true});
}

// With the files' key sets, and with a budget so small that they are let go at the first file.
TEST(CopyOnWrite, WithTheFilesKeySetsGivesWhatTheModelGives) {
  for (uint32_t seed : {14u, 15u, 16u}) run_feed({seed, 40, 300, true, 3, 0});
  run_feed({17, 30, 300, true, 3, 1});
}

TEST(CopyOnWrite, UpdatesOfTheNewestKeysRewriteAboutThoseKeysNotTheTable) {
  const Feed feed{21, 120, 300, false};
  FeedOutcome outcome = run_feed(feed);
  // About 6,000 keys by the end. A batch rewrites the keys from the least it updates up (about
  // the window), and the settled ones below until they are written apart (as many again).
  const int64_t bound = 3 * (feed.window + outcome.batch_rows_max);
  EXPECT_LE(outcome.most_rewritten, bound);
  EXPECT_GT(outcome.files, 4u);
}

// An update of an old key rewrites the file that holds it, on its own: not merged into the file
// the newest keys keep changing (which would then hold the old keys too and grow with the table).
TEST(CopyOnWrite, AnUpdateOfAnOldKeyRewritesItsOwnFileNotTheHotOne) {
  const Feed feed{22, 160, 300, false, 4};
  FeedOutcome outcome = run_feed(feed);
  // The hot file's bound (as above), and the settled file the old key is in: about as large.
  const int64_t bound = 6 * (feed.window + outcome.batch_rows_max);
  EXPECT_LE(outcome.most_rewritten, bound);
  EXPECT_GT(outcome.files, 4u);
  EXPECT_GT(outcome.hot_checked, feed.batches / 2);
}

// A batch replacing more rows than a service's (20,000 and up: grouped on every core, not sorted)
// rewrites the files holding them and puts its new keys in the one with the greatest replaced key.
TEST(CopyOnWrite, ALargeBatchReplacesAcrossFilesAndItsNewKeysJoinTheHotOne) {
  testing::TempDir dir;
  const std::string table = dir / "t";
  sql::Database db;
  sql::Connection con(db);
  std::map<Key, Stored> model;
  auto run = [&](int64_t version, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
    std::vector<Change> changes;
    for (const auto& [from, to] : ranges)
      for (int64_t id = from; id <= to; id++) changes.push_back({id, "eu", version, "v" + std::to_string(version)});
    for (const auto& change : changes) apply(model, change);
    merge(con, table, changes);
    EXPECT_EQ(table_lines(con, table), model_lines(model)) << "version " << version;
  };
  run(1, {{1, 25'000}});        // one file
  run(2, {{25'001, 50'000}});   // new keys only: a second file
  ASSERT_EQ(delta::load_snapshot(table).files.size(), 2u);
  run(3, {{1, 12'000}, {25'001, 37'000}, {50'001, 50'100}});  // 24,000 replaced in both, 100 new
  EXPECT_TRUE(greatest_key_file_holds(con, table, 37'000));
}

// Files whose keys rise, with scattered old keys among them (each file's range then spans nearly
// every key), negative keys, keys next to the 64-bit ends, and NULLs; and batches of such keys:
// the files the key sets say hold one of a batch's keys are exactly those a query of each file
// finds one in (a NULL key matching a file with a NULL key), whatever the statistics allowed
// (of two candidates or more: one is the merge's to read).
TEST(FileKeySetsChoose, ExactlyTheFilesHoldingABatchsKeys) {
  for (uint32_t seed : {31u, 32u, 33u, 34u}) {
    testing::TempDir dir;
    const std::string table = dir / "t";
    sql::Database db;
    sql::Connection con(db);
    std::mt19937_64 random(seed);
    auto scattered = [&]() -> std::optional<int64_t> {
      switch (random() % 8) {
        case 0: return std::nullopt;
        case 1: return std::numeric_limits<int64_t>::max() - static_cast<int64_t>(random() % 3);
        case 2: return std::numeric_limits<int64_t>::min() + static_cast<int64_t>(random() % 3);
        case 3: return -static_cast<int64_t>(random() % 1000);
        default: return static_cast<int64_t>(random() % 100'000);
      }
    };
    FileKeySets sets;
    int64_t next = 200'000;
    for (int b = 0; b < 12; b++) {
      std::map<Key, Change> batch;
      const int rising = 50 + static_cast<int>(random() % 400);
      for (int i = 0; i < rising; i++) {
        int64_t id = next++;
        if (random() % 5 == 0) next++;  // a gap: runs end
        batch[{id, "eu"}] = {id, "eu", b, "v"};
      }
      for (int i = static_cast<int>(random() % 6); i > 0; i--) {
        std::optional<int64_t> id = scattered();
        batch[{id, "us"}] = {id, "us", b, "v"};
      }
      std::vector<Change> changes;
      for (const auto& [key, change] : batch) changes.push_back(change);
      merge(con, table, changes, b % 2 ? &sets : nullptr);  // sets read for some files, others new to them
      // A batch to look up: some keys of the table, some not, sometimes a NULL.
      std::string values;
      for (int i = 1 + static_cast<int>(random() % 40); i > 0; i--) {
        std::optional<int64_t> id =
            random() % 2 ? scattered() : std::optional<int64_t>(next - 1 - static_cast<int64_t>(random() % 3000));
        values += (values.empty() ? "" : ", ") + ("((" + (id ? std::to_string(*id) : "NULL") + ")::BIGINT)");
      }
      con.exec("CREATE OR REPLACE TABLE looked_up AS SELECT * FROM (VALUES " + values + ") t(id)");
      delta::Snapshot snapshot = delta::load_snapshot(table);
      std::set<std::string> expected, chosen;
      for (const auto& file : snapshot.files) {
        const std::string path = sql::quote_literal(delta::readable_path(snapshot.table, file.path, file.size));
        if (con.scalar_int("SELECT count(*) FROM read_parquet(" + path + ") f WHERE f.id IN (SELECT id FROM looked_up) OR "
                           "(f.id IS NULL AND EXISTS (SELECT 1 FROM looked_up WHERE id IS NULL))") > 0)
          expected.insert(file.path);
      }
      for (const auto& file : sets.holding(con, snapshot, snapshot.files, "looked_up", "id")) chosen.insert(file.path);
      if (snapshot.files.size() < 2) {  // one candidate is handed back as it is: the merge reads it
        EXPECT_EQ(chosen.size(), snapshot.files.size());
        continue;
      }
      EXPECT_EQ(chosen, expected) << "seed " << seed << " batch " << b;
    }
    EXPECT_GT(sets.files_read(), 0);
    EXPECT_GT(sets.memory_bytes(), 0);
  }
}

TEST(FileKeySetsServe, IntegerKeysOnly) {
  EXPECT_TRUE(FileKeySets::serves({"id", "long"}));
  EXPECT_TRUE(FileKeySets::serves({"id", "integer"}));
  EXPECT_TRUE(FileKeySets::serves({"id", "short"}));
  EXPECT_FALSE(FileKeySets::serves({"id", "string"}));
  EXPECT_FALSE(FileKeySets::serves({"id", "double"}));
  EXPECT_FALSE(FileKeySets::serves({"id", "timestamp"}));
}

}  // namespace
}  // namespace lakestream
