// Silver's newest row per key within a batch (sinks/newest_wins.h, newest_per_key_sql) against a
// model in C++ that shares no code with it, over generated batches: keys of two columns with
// NULLs, an order_by with NULLs and many ties, resends of a row in a row and the same event
// again after another (A, B, A), a delete flag beside the row, and columns named like the SQL's
// own words (`s`, a space, a quote); both groupings (hashed and one sort). Of identical copies the
// newest position is the row, as of any two events that tie on order_by. And the same changes
// merged batch by batch with the rule against the table's row (existing_row_stays_sql), however
// they are cut into batches: the same table, positions included, as the model's.
#include "sinks/newest_wins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "sql/duckdb.h"

namespace lakestream {
namespace {

struct Change {
  std::optional<std::string> k1;
  std::optional<int> k2;
  std::optional<int> at;  // order_by
  int64_t partition = 0, offset = 0;
  std::optional<std::string> status;
  std::optional<double> s;  // a column named s
  std::optional<std::string> note;
  bool deleted = false;
};

using Key = std::pair<std::optional<std::string>, std::optional<int>>;

std::string text_or_null(const std::optional<std::string>& v) { return v ? "'" + *v + "'" : "NULL"; }

template <typename T>
std::string number_or_null(const std::optional<T>& v) {
  if (!v) return "NULL";
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", static_cast<double>(*v));
  return text;
}

// Oldest first: a NULL order_by oldest, then by value, then by (partition, offset).
bool older(const Change& a, const Change& b) {
  if (a.at != b.at) return !a.at || (b.at && *a.at < *b.at);
  return std::tie(a.partition, a.offset) < std::tie(b.partition, b.offset);
}

// The model: of a key's changes, the one no other is newer than.
std::map<Key, Change> newest_per_key(const std::vector<Change>& changes) {
  std::map<Key, Change> newest;
  for (const Change& c : changes) {
    auto [it, first] = newest.try_emplace({c.k1, c.k2}, c);
    if (!first && older(it->second, c)) it->second = c;
  }
  return newest;
}

// Generated changes: keys of two columns with NULLs, few order_by values (ties) and NULLs, each
// at a position of 3 partitions, a quarter of them copies of an earlier one (a resend, in any
// partition).
std::vector<Change> generated_changes(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  const int keys = std::max(1, count / 3);
  std::vector<Change> changes;
  int64_t next_offset[3] = {0, 0, 0};
  auto place = [&](Change c) {
    c.partition = pick(3);
    c.offset = next_offset[c.partition] += 1 + pick(3);
    changes.push_back(c);
  };
  while (static_cast<int>(changes.size()) < count) {
    if (!changes.empty() && pick(4) == 0) {  // a resend, or the same event again after others
      place(changes[pick(static_cast<int>(changes.size()))]);
      continue;
    }
    Change c;
    int key = pick(keys);
    if (key % 7 != 0) c.k1 = "k'" + std::to_string(key % 5);
    if (key % 11 != 0) c.k2 = key / 5;
    if (pick(6)) c.at = pick(8);  // few values: ties
    if (pick(5)) c.status = std::vector<std::string>{"placed", "shipped", "cancelled"}[pick(3)];
    if (pick(3)) c.s = std::ldexp(pick(1000) - 500, pick(20) - 10);
    if (pick(2)) c.note = "n" + std::to_string(pick(3));
    c.deleted = pick(8) == 0;
    place(c);
  }
  return changes;
}

// Creates the table `name` holding `changes` (none: empty), columns named like SQL's own words.
void create_changes(sql::Connection& con, const std::string& name, const std::vector<Change>& changes) {
  con.exec("CREATE OR REPLACE TABLE " + name + " (k1 VARCHAR, k2 INTEGER, \"at\" INTEGER, \"partition\" BIGINT, \"offset\" BIGINT, "
           "status VARCHAR, s DOUBLE, \"the note\" VARCHAR, \"it's deleted\" BOOLEAN)");
  std::string values;
  for (const Change& c : changes) {
    std::string k1 = c.k1 ? "'" + c.k1->substr(0, 1) + "''" + c.k1->substr(2) + "'" : "NULL";
    values += (values.empty() ? "(" : ", (") + k1 + ", " + number_or_null(c.k2) + ", " + number_or_null(c.at) + ", " +
              std::to_string(c.partition) + ", " + std::to_string(c.offset) + ", " + text_or_null(c.status) + ", " +
              (c.s ? "'" + number_or_null(c.s) + "'::DOUBLE" : "NULL") + ", " + text_or_null(c.note) + ", " +
              (c.deleted ? "true" : "false") + ")";
  }
  if (!values.empty()) con.exec("INSERT INTO " + name + " VALUES " + values);
}

void check_seed(uint32_t seed, int changes_in_batch, sql::Grouping grouping) {
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(changes_in_batch) + " changes, grouped " +
               (grouping == sql::Grouping::OneSort ? "in one sort" : "hashed"));
  const std::vector<Change> changes = generated_changes(seed, changes_in_batch);
  sql::Database db;
  sql::Connection con(db);
  create_changes(con, "changes", changes);

  NewestWins rule;
  rule.order_by = "at";
  rule.ties = {"partition", "offset"};
  sql::Rows got = con.query("SELECT k1, k2, \"at\", \"partition\", \"offset\", status, s, \"the note\", \"it's deleted\", "
                            "count(*) OVER (PARTITION BY k1, k2) AS copies FROM (" +
                            newest_per_key_sql(rule, {"k1", "k2"}, "changes", grouping) + ") ORDER BY \"partition\", \"offset\"");
  EXPECT_EQ(got.columns.front(), "k1");

  std::map<Key, Change> want = newest_per_key(changes);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) {
    EXPECT_EQ(got.text(i, "copies"), "1");
    Key key{got.at(i, "k1"), got.at(i, "k2") ? std::optional(std::stoi(*got.at(i, "k2"))) : std::nullopt};
    ASSERT_TRUE(want.count(key)) << got.text(i, "k1") << " " << got.text(i, "k2");
    const Change& w = want[key];
    SCOPED_TRACE("key " + key.first.value_or("NULL") + " " + (key.second ? std::to_string(*key.second) : "NULL"));
    EXPECT_EQ(got.text(i, "partition"), std::to_string(w.partition));
    EXPECT_EQ(got.text(i, "offset"), std::to_string(w.offset));
    EXPECT_EQ(got.at(i, "status"), w.status);
    EXPECT_EQ(got.at(i, "the note"), w.note);
    EXPECT_EQ(got.at(i, "s").has_value(), w.s.has_value());
    if (w.s && got.at(i, "s")) {
      EXPECT_EQ(std::stod(*got.at(i, "s")), *w.s);
    }
    EXPECT_EQ(got.text(i, "it's deleted"), w.deleted ? "true" : "false");
  }
}

TEST(NewestPerKey, IsTheNewestCopyOfEachKeysNewestEventAsAModelSays) {
  for (sql::Grouping grouping : {sql::Grouping::Hashed, sql::Grouping::OneSort}) {
    for (uint32_t seed = 1; seed <= 12; seed++) check_seed(seed, 5 + static_cast<int>(seed) * 20, grouping);
    check_seed(13, 1, grouping);
    check_seed(14, 3000, grouping);
  }
}

// The table silver holds after `changes` merged batch by batch as the stream merges them (the
// batch's newest row per key, then the rule against the table's row of the key), the batches
// being `changes` cut before each index of `cuts` (each partition's offsets rise through them, as
// a topic delivers them). Each row as its key and the position of the change it holds.
std::set<std::string> merged_in_batches(sql::Connection& con, const std::vector<Change>& changes,
                                        const std::vector<size_t>& cuts, sql::Grouping grouping) {
  NewestWins rule;
  rule.order_by = "at";
  rule.ties = {"partition", "offset"};
  const std::string match = "s.k1 IS NOT DISTINCT FROM t.k1 AND s.k2 IS NOT DISTINCT FROM t.k2";
  const std::string stays = existing_row_stays_sql(rule);
  create_changes(con, "silver", {});
  size_t begin = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(changes.size());
  for (size_t end : ends) {
    create_changes(con, "batch", std::vector<Change>(changes.begin() + static_cast<std::ptrdiff_t>(begin),
                                                     changes.begin() + static_cast<std::ptrdiff_t>(end)));
    begin = end;
    con.exec("CREATE OR REPLACE TABLE newest AS " + newest_per_key_sql(rule, {"k1", "k2"}, "batch", grouping));
    con.exec("CREATE OR REPLACE TABLE merged AS SELECT t.* FROM silver t WHERE NOT EXISTS (SELECT 1 FROM newest s WHERE " +
             match + " AND NOT (" + stays + ")) UNION ALL SELECT s.* FROM newest s WHERE NOT EXISTS (SELECT 1 FROM silver t WHERE " +
             match + " AND (" + stays + "))");
    con.exec("CREATE OR REPLACE TABLE silver AS SELECT * FROM merged");
  }
  std::set<std::string> rows;
  sql::Rows got = con.query("SELECT coalesce(k1, 'NULL') || '/' || coalesce(k2::VARCHAR, 'NULL') || ' at ' || \"partition\" || ':' || "
                            "\"offset\" AS row FROM silver");
  for (size_t i = 0; i < got.size(); i++) EXPECT_TRUE(rows.insert(got.text(i, "row")).second) << "a key twice: " << got.text(i, "row");
  return rows;
}

// Silver's rule across batches: however the changes are cut into batches (one, a few, one change
// each), the table holds the same rows, each key's row at the same position, which is the newest
// copy of the key's newest event as the model picks it. Copies of an event in two partitions, on
// both sides of another event's position, are what a rule keeping a resend's first copy got wrong.
TEST(NewestPerKey, MergedBatchByBatchTheTableIsTheSameLineageIncluded) {
  for (uint32_t seed = 1; seed <= 24; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<Change> changes = generated_changes(seed, 20 + static_cast<int>(seed) * 4);
    std::set<std::string> model;
    for (const auto& [key, c] : newest_per_key(changes))
      model.insert(key.first.value_or("NULL") + "/" + (key.second ? std::to_string(*key.second) : "NULL") + " at " +
                   std::to_string(c.partition) + ":" + std::to_string(c.offset));
    sql::Database db;
    sql::Connection con(db);
    std::mt19937 rng(seed * 7919);
    std::vector<std::vector<size_t>> cuttings = {{}};
    std::vector<size_t> each;
    for (size_t i = 1; i < changes.size(); i++) each.push_back(i);
    cuttings.push_back(each);
    for (int k = 0; k < 3; k++) {
      std::set<size_t> cut;
      for (int n = 1 + static_cast<int>(rng() % 5); n > 0; n--) cut.insert(1 + rng() % (changes.size() - 1));
      cuttings.emplace_back(cut.begin(), cut.end());
    }
    for (const auto& cuts : cuttings)
      for (sql::Grouping grouping : {sql::Grouping::Hashed, sql::Grouping::OneSort})
        EXPECT_EQ(merged_in_batches(con, changes, cuts, grouping), model) << cuts.size() + 1 << " batches";
  }
}

}  // namespace
}  // namespace lakestream
