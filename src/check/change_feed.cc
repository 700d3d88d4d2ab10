#include "check/change_feed.h"

#include <algorithm>
#include <set>

#include "check/check_wording.h"
#include "table/change_rows.h"
#include "table/column_mapping.h"
#include "table/parquet_file.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "util/error.h"

namespace lakestream {

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

// The first version of the newest run of versions with the feed on, up to the snapshot's (which
// has it on); the oldest commit still in the log when the run goes back further.
int64_t feed_on_since(const delta::Snapshot& snapshot, const std::vector<delta::CommitEntry>& commits) {
  const int64_t oldest = commits.front().version;
  bool on = delta::change_data_feed_enabled(delta::load_table_shape(snapshot.table, oldest).metadata);
  int64_t since = oldest;
  for (const auto& commit : commits) {
    if (!commit.changes_metadata) continue;
    bool now_on = delta::change_data_feed_enabled(delta::load_table_shape(snapshot.table, commit.version).metadata);
    if (now_on && !on) since = commit.version;
    on = now_on;
  }
  return since;
}

// The first version from commits[first] on that the replay can start at: vacuum deletes the
// files of versions no reader inside the retention needs (change data files too), while their
// commits stay in the log longer. A start needs the files of the version before it (the rows the
// replay begins with) and every file the commits from it on read; past the last commit when no
// version has them.
int64_t first_replayable(const delta::Snapshot& snapshot, const std::vector<delta::CommitEntry>& commits, size_t first) {
  const int64_t since = commits[first].version;
  std::set<std::string> live;
  if (since > 0)
    for (const auto& file : delta::load_snapshot(snapshot.table, since - 1).files) live.insert(file.path);
  std::vector<std::string> all(live.begin(), live.end());
  for (size_t i = first; i < commits.size(); i++)
    for (auto& key : delta::change_feed_files(commits[i])) all.push_back(std::move(key));
  std::vector<std::string> gone_list = delta::missing_table_files(snapshot.table, all);
  if (gone_list.empty()) return since;
  std::set<std::string> gone(gone_list.begin(), gone_list.end());
  // From the newest commit back: whether it and every later one find their files.
  std::vector<bool> rest_whole(commits.size() + 1, true);
  for (size_t i = commits.size(); i-- > first;) {
    auto keys = delta::change_feed_files(commits[i]);
    rest_whole[i] = rest_whole[i + 1] && std::none_of(keys.begin(), keys.end(), [&](const std::string& k) { return gone.count(k); });
  }
  for (size_t i = first; i < commits.size(); i++) {
    bool live_whole = std::none_of(live.begin(), live.end(), [&](const std::string& k) { return gone.count(k); });
    if (live_whole && rest_whole[i]) return commits[i].version;
    for (const auto& removed : commits[i].removes) live.erase(removed.path);
    for (const auto& added : commits[i].adds) live.insert(added.path);
  }
  return snapshot.version + 1;
}

}  // namespace

std::string change_feed_sql(const delta::Snapshot& snapshot, int64_t from) {
  return delta::change_rows_sql(snapshot, delta::read_commits(snapshot.table, from, snapshot.version));
}

std::vector<CheckLine> check_change_feed(sql::Connection& con, const std::string& table, const delta::Snapshot& snapshot) {
  if (!snapshot.exists() || !delta::change_data_feed_enabled(snapshot.metadata)) return {};
  std::vector<CheckLine> lines;
  auto add = [&](const std::string& verdict, const std::string& text) { lines.push_back(check_line(verdict, text)); };
  const std::vector<delta::CommitEntry> commits =
      delta::read_commits(snapshot.table, delta::oldest_commit(snapshot.table), snapshot.version);
  const int64_t on_since = feed_on_since(snapshot, commits);
  const int64_t since = first_replayable(snapshot, commits, static_cast<size_t>(on_since - commits.front().version));
  if (since > snapshot.version) {
    add("note", table + "'s change data feed is not checked: vacuum has deleted files that every version of it in the log needs");
    return lines;
  }
  // The commits from `since` on, as read above (not read again).
  const std::vector<delta::CommitEntry> replayed(commits.begin() + (since - commits.front().version), commits.end());
  std::string changes = delta::change_rows_sql(snapshot, replayed);
  std::string names;
  for (const auto& c : snapshot.metadata.schema) names += (names.empty() ? "" : ", ") + q(c.name);
  // The rows before the first change, then the changes, each row counted +1 or -1: what is left
  // must be the table's rows now.
  std::string before = "SELECT " + names + ", 1 AS _n FROM (SELECT * FROM " + q(table) + " WHERE false)";
  if (since > 0) {
    delta::Snapshot base = delta::load_snapshot(snapshot.table, since - 1);
    before = "SELECT " + names + ", 1 AS _n FROM (" + delta::scan_sql(base) + ")";
  }
  sql::Rows counts = con.query(
      "SELECT count(*) FILTER (WHERE _change_type IS NOT NULL) AS changes, (SELECT count(*) FROM (SELECT " + names +
      ", sum(_n) AS _n FROM (" + before + " UNION ALL SELECT " + names +
      ", CASE WHEN _change_type IN ('insert', 'update_postimage') THEN 1 ELSE -1 END FROM (" + changes + ") UNION ALL SELECT " + names +
      ", -1 FROM " + q(table) + ") GROUP BY ALL HAVING sum(_n) <> 0)) AS differ FROM (" + changes + ")");
  int64_t n = std::stoll(counts.text(0, "changes")), differ = std::stoll(counts.text(0, "differ"));
  std::string versions = since == snapshot.version ? "version " + std::to_string(since)
                                                   : "versions " + std::to_string(since) + "-" + std::to_string(snapshot.version);
  if (differ == 0)
    add("ok", table + "'s change data feed (" + versions + ", " + count_of(n, "changes") + ") replays to its rows");
  else
    add("PROBLEM", table + "'s change data feed (" + versions + ") does not replay to its rows: " + count_of(differ, "rows") +
                       (differ == 1 ? " is" : " are") + " there another number of times than the feed says");
  return lines;
}

}  // namespace lakestream
