// The key index (sinks/key_index.h) against reading the table, and both against a model that
// shares no code with either: generated batches of upserts under silver's rule (two key columns,
// NULL in either; an order_by with ties and NULLs, broken by partition and offset; identical
// resends; deletes; -0.0 and NaN in an event column) into two merge-on-read tables, one merged
// with the index and one by reading its files. After every batch both tables must hold the
// model's rows. Between batches the tables are compacted now and then, and written by another
// writer (an upsert without the index), and a commit is built and never published: the index
// must notice each and follow it or build itself again (or stay, for the commit that never was).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "sinks/key_index.h"
#include "sinks/newest_wins.h"
#include "sinks/upsert.h"
#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/compaction.h"
#include "table/parquet_file.h"

namespace lakestream {
namespace {

std::vector<delta::Column> columns() {
  return {{"region", "string"}, {"id", "long"},     {"event_time", "timestamp"}, {"partition", "integer"},
          {"offset", "long"},   {"amount", "double"}, {"note", "string"}};
}

NewestWins rule() {
  NewestWins rule;
  rule.order_by = "event_time";
  rule.ties = {"partition", "offset"};
  return rule;
}

// One event as the model holds it.
struct Event {
  std::optional<std::string> region;
  std::optional<int64_t> id;
  std::optional<int64_t> time_us;
  int32_t partition = 0;
  int64_t offset = 0;
  double amount = 0;
  std::string note;
};

std::string sql_of(const Event& e) {
  auto amount = [](double a) -> std::string {
    if (std::isnan(a)) return "'NaN'::DOUBLE";
    if (a == 0 && std::signbit(a)) return "'-0.0'::DOUBLE";
    return std::to_string(a) + "::DOUBLE";
  };
  return "(" + (e.region ? "'" + *e.region + "'" : std::string("NULL")) + ", " +
         (e.id ? std::to_string(*e.id) : std::string("NULL")) + "::BIGINT, " +
         (e.time_us ? "make_timestamp(" + std::to_string(*e.time_us) + ")::TIMESTAMPTZ" : std::string("NULL::TIMESTAMPTZ")) +
         ", " + std::to_string(e.partition) + ", " + std::to_string(e.offset) + "::BIGINT, " + amount(e.amount) + ", '" +
         e.note + "')";
}

// The rule, written again for the model: newer by time (NULL oldest), then (partition, offset);
// the existing row stays unless the incoming one is newer (an identical resend too: its position is).
bool incoming_replaces(const Event& existing, const Event& incoming) {
  if (incoming.time_us != existing.time_us)
    return incoming.time_us && (!existing.time_us || *incoming.time_us > *existing.time_us);
  return std::tie(incoming.partition, incoming.offset) > std::tie(existing.partition, existing.offset);
}

using Key = std::pair<std::optional<std::string>, std::optional<int64_t>>;

class KeyIndexTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  sql::Database db;
  sql::Connection con{db};

  void create(const std::string& table) {
    delta::Commit commit(delta::load_snapshot(table));
    delta::Metadata metadata;
    metadata.schema = columns();
    metadata.configuration["delta.enableDeletionVectors"] = "true";
    commit.set_metadata(metadata);
    commit.publish();
  }

  // Merges the DuckDB table `incoming` into `table`, with the index when given; publishes unless told not to.
  void upsert(const std::string& table, KeyIndex* index, bool publish = true) {
    delta::Snapshot snapshot = delta::load_snapshot(table);
    delta::Commit commit(snapshot);
    upsert_rows(con, table, commit, snapshot, "incoming", {"region", "id"}, existing_row_stays_sql(rule()), columns(),
                "s.note = 'delete'", index);
    if (!publish) return;
    commit.publish();
    if (index) index->committed(con);
  }

  std::set<std::string> files_of(const std::string& table) {
    std::set<std::string> files;
    for (const auto& file : delta::load_snapshot(table).files) files.insert(file.logical_key());
    return files;
  }

  std::string rows_of(const std::string& table) {
    return "SELECT region, id, event_time, partition, \"offset\", amount, note FROM (" +
           delta::scan_sql(delta::load_snapshot(table)) + ")";
  }

  int64_t differing(const std::string& a, const std::string& b) {
    return con.scalar_int("SELECT count(*) FROM ((" + a + " EXCEPT ALL " + b + ") UNION ALL (" + b + " EXCEPT ALL " + a + "))");
  }
};

TEST_F(KeyIndexTest, MergesAsReadingTheTableDoesAndAsTheModelSays) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::string indexed = dir / ("indexed" + std::to_string(seed)), scanned = dir / ("scanned" + std::to_string(seed));
    create(indexed);
    create(scanned);
    KeyIndex index({"region", "id"}, rule(), columns());
    std::mt19937 random(seed);
    std::map<Key, Event> model;
    std::vector<Event> sent;
    int64_t offset = 0;
    int expected_covers = 0;
    bool changed_by_others = true;  // the first batch builds it; each change after is followed
    for (int batch = 1; batch <= 16; batch++) {
      // Unique keys within the batch (the stream merges the batch's newest per key first).
      std::map<Key, Event> incoming;
      int n = 1 + static_cast<int>(random() % 120);
      for (int i = 0; i < n; i++) {
        Event e;
        if (!sent.empty() && random() % 8 == 0) {
          e = sent[random() % sent.size()];  // a resend: the same event at a later position
        } else {
          static const char* regions[] = {"north", "south", "east", "west"};
          if (random() % 20) e.region = regions[random() % 4];
          if (random() % 25) e.id = static_cast<int64_t>(random() % 150);
          if (random() % 15) e.time_us = 1'700'000'000'000'000 + static_cast<int64_t>(random() % 40) * 1'000'000;
          int a = static_cast<int>(random() % 50);
          e.amount = a == 0 ? -0.0 : a == 1 ? std::nan("") : a * 0.25;
          e.note = random() % 9 == 0 ? "delete" : "b" + std::to_string(batch);
        }
        e.partition = static_cast<int32_t>(random() % 3);
        e.offset = ++offset;
        sent.push_back(e);
        incoming[{e.region, e.id}] = e;
      }
      std::string values;
      for (const auto& [key, e] : incoming) values += (values.empty() ? "" : ", ") + sql_of(e);
      con.exec("CREATE OR REPLACE TABLE incoming AS SELECT * FROM (VALUES " + values +
               ") t(region, id, event_time, partition, \"offset\", amount, note)");
      for (const auto& [key, e] : incoming) {
        auto found = model.find(key);
        if (found != model.end() && !incoming_replaces(found->second, e)) continue;
        if (e.note == "delete") model.erase(key);
        else model[key] = e;
      }
      if (batch == 7) {
        // A commit built with the index and never published: the index must not follow it.
        upsert(indexed, &index, false);
      }
      // Batch 12 is merged by another writer (without the index).
      bool other_writer = batch == 12;
      if (changed_by_others && !other_writer) expected_covers++;
      changed_by_others = false;
      auto files_before = files_of(indexed);
      upsert(indexed, other_writer ? nullptr : &index);
      if (other_writer) changed_by_others = files_of(indexed) != files_before;
      upsert(scanned, nullptr);
      std::string model_rows;
      for (const auto& [key, e] : model) model_rows += (model_rows.empty() ? "" : ", ") + sql_of(e);
      std::string model_sql = model_rows.empty() ? rows_of(scanned) + " WHERE false"
                                                 : "SELECT * FROM (VALUES " + model_rows + ")";
      EXPECT_EQ(differing(rows_of(indexed), model_sql), 0) << "seed " << seed << " batch " << batch;
      EXPECT_EQ(differing(rows_of(scanned), model_sql), 0) << "seed " << seed << " batch " << batch;
      if (!other_writer) {
        EXPECT_EQ(index.rows(), static_cast<int64_t>(model.size())) << "seed " << seed << " batch " << batch;
      }
      if (batch % 5 == 0) {
        auto before = files_of(indexed);
        delta::compact_table(con, indexed, 1 << 30);  // rows move: the index builds again
        changed_by_others = changed_by_others || files_of(indexed) != before;
      }
    }
    // Each follow was one the table's change called for, no more (the index followed the stream's
    // own commits by itself), and each was followed: built once, at the first batch.
    EXPECT_EQ(index.builds() + index.follows(), expected_covers) << "seed " << seed;
    EXPECT_EQ(index.builds(), 1) << "seed " << seed;
  }
}

// A compaction of a few small files beside a large one: the index moves the compacted files'
// entries to the merged file, reading only its keys, and reads none of the large one again. The merges after it
// find what reading the table finds, however the rows moved.
TEST_F(KeyIndexTest, FollowsACompactionOfSmallFilesWithoutReadingTheTable) {
  std::string indexed = dir / "indexed", scanned = dir / "scanned";
  create(indexed);
  create(scanned);
  KeyIndex index({"region", "id"}, rule(), columns());
  int64_t offset = 0;
  auto batch = [&](int64_t first_id, int64_t n, int64_t time_s, const std::string& note) {
    con.exec("CREATE OR REPLACE TABLE incoming AS SELECT 'north' AS region, (" + std::to_string(first_id) +
             " + i)::BIGINT AS id, make_timestamp(" + std::to_string(time_s) +
             " * 1000000)::TIMESTAMPTZ AS event_time, 0 AS partition, (" + std::to_string(offset) +
             " + i)::BIGINT AS \"offset\", i * 0.5 AS amount, '" + note + "' AS note FROM range(" + std::to_string(n) +
             ") t(i)");
    offset += n;
    upsert(indexed, &index);
    upsert(scanned, nullptr);
  };
  batch(0, 20000, 1, "big");
  for (int b = 0; b < 12; b++) batch(100000 + b * 10, 10, 2, "small" + std::to_string(b));
  batch(0, 5, 3, "old keys");  // a vector on the large file
  ASSERT_EQ(index.builds(), 1);
  auto before = files_of(indexed);
  delta::CompactionResult merged = delta::compact_small_files(con, indexed, delta::AutoCompaction{1 << 20, 4});
  ASSERT_GT(merged.files_removed, 1);
  ASSERT_NE(files_of(indexed), before);
  // Keys of the merged files, of the large one, and new ones; one marked for deletion.
  batch(100000, 25, 4, "after");
  batch(19990, 15, 4, "delete");
  batch(1, 3, 5, "again");
  EXPECT_EQ(index.builds(), 1);
  EXPECT_EQ(index.follows(), 1);
  EXPECT_EQ(index.files_moved(), merged.files_added);  // the merged files' keys and places read, nothing else
  EXPECT_EQ(differing(rows_of(indexed), rows_of(scanned)), 0);
  EXPECT_EQ(index.rows(), con.scalar_int("SELECT count(*) FROM (" + rows_of(scanned) + ")"));
}

// Another writer's newer rows, then a compaction that merges its file: the merged file's rows are
// not only the index's rows moved, so it is read whole, and the older event that follows keeps
// the other writer's rows (an index that took the merge for a move would keep the old values and
// let the older event replace them).
TEST_F(KeyIndexTest, ACompactionAfterAnotherWritersChangeIsReadWhole) {
  std::string indexed = dir / "indexed", scanned = dir / "scanned";
  create(indexed);
  create(scanned);
  KeyIndex index({"region", "id"}, rule(), columns());
  auto batch = [&](int64_t n, int64_t time_s, const std::string& note, bool other_writer) {
    con.exec("CREATE OR REPLACE TABLE incoming AS SELECT 'north' AS region, i::BIGINT AS id, make_timestamp(" +
             std::to_string(time_s) + " * 1000000)::TIMESTAMPTZ AS event_time, 0 AS partition, i::BIGINT AS \"offset\", "
             "i * 0.5 AS amount, '" + note + "' AS note FROM range(" + std::to_string(n) + ") t(i)");
    upsert(indexed, other_writer ? nullptr : &index);
    upsert(scanned, nullptr);
  };
  batch(3000, 1, "first", false);
  batch(10, 10, "other writer", true);
  delta::CompactionResult merged = delta::compact_table(con, indexed, 1 << 30);
  ASSERT_GT(merged.files_removed, 1);
  batch(10, 5, "older", false);
  EXPECT_EQ(index.builds(), 1);
  EXPECT_EQ(index.follows(), 1);
  EXPECT_EQ(index.files_moved(), 0);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + rows_of(indexed) + ") WHERE note = 'other writer'"), 10);
  EXPECT_EQ(differing(rows_of(indexed), rows_of(scanned)), 0);
}

// A table too large for the index's memory budget is read instead: the same rows, nothing built.
TEST_F(KeyIndexTest, ATableOverTheBudgetIsReadInstead) {
  std::string table = dir / "t";
  create(table);
  KeyIndex index({"region", "id"}, rule(), columns(), 10 * KeyIndex::kBytesPerRow);
  for (int batch = 0; batch < 3; batch++) {
    con.exec("CREATE OR REPLACE TABLE incoming AS SELECT 'north' AS region, i::BIGINT AS id, make_timestamp(" +
             std::to_string(batch) + " * 1000000)::TIMESTAMPTZ AS event_time, 0 AS partition, (" + std::to_string(batch) +
             " * 100 + i)::BIGINT AS \"offset\", i * 1.0 AS amount, 'b" + std::to_string(batch) + "' AS note FROM range(" +
             std::to_string(batch == 0 ? 8 : 30) + ") t(i)");
    upsert(table, &index);
  }
  EXPECT_EQ(index.builds(), 1);  // the first batch's 8 rows fit; 30 do not
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + rows_of(table) + ") WHERE note = 'b2'"), 30);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + rows_of(table) + ")"), 30);
}

// A batch with a NULL tie (SQL's list comparison decides those) is merged by reading the table,
// and so is every batch after it: the same rows as a table merged without an index.
TEST_F(KeyIndexTest, ABatchWithANullTieIsMergedByReadingTheTable) {
  std::string indexed = dir / "indexed", scanned = dir / "scanned";
  create(indexed);
  create(scanned);
  KeyIndex index({"region", "id"}, rule(), columns());
  auto batch = [&](int n, int64_t time_us, const std::string& partition, const std::string& note) {
    con.exec("CREATE OR REPLACE TABLE incoming AS SELECT 'north' AS region, i::BIGINT AS id, make_timestamp(" +
             std::to_string(time_us) + ")::TIMESTAMPTZ AS event_time, " + partition +
             "::INTEGER AS partition, i::BIGINT AS \"offset\", 1.0 AS amount, '" + note + "' AS note FROM range(" +
             std::to_string(n) + ") t(i)");
    upsert(indexed, &index);
    upsert(scanned, nullptr);
  };
  batch(5, 1000000, "0", "first");
  batch(8, 1000000, "NULL", "second");  // the same time, a NULL partition
  batch(6, 2000000, "1", "third");
  EXPECT_EQ(index.builds(), 1);
  EXPECT_EQ(differing(rows_of(indexed), rows_of(scanned)), 0);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + rows_of(indexed) + ") WHERE note = 'third'"), 6);
}

// A key index is only offered what it can hold exactly.
TEST(KeyIndexServes, IntegerDateAndTimestampOrderAndNoFloatingKeys) {
  EXPECT_TRUE(KeyIndex::serves(columns(), {"region", "id"}, rule()));
  NewestWins by_amount = rule();
  by_amount.order_by = "amount";
  EXPECT_FALSE(KeyIndex::serves(columns(), {"region", "id"}, by_amount));
  EXPECT_FALSE(KeyIndex::serves(columns(), {"amount"}, rule()));
  NewestWins three_ties = rule();
  three_ties.ties = {"partition", "offset", "id"};
  EXPECT_FALSE(KeyIndex::serves(columns(), {"region", "id"}, three_ties));
  NewestWins by_offset = rule();
  by_offset.order_by = "offset";
  EXPECT_TRUE(KeyIndex::serves(columns(), {"id"}, by_offset));
}

}  // namespace
}  // namespace lakestream
