#include "check/check.h"

#include <filesystem>
#include <set>

#include "check/change_feed.h"
#include "check/check_wording.h"
#include "check/iceberg_view.h"
#include "check/lake_views.h"
#include "check/stream_input.h"
#include "pipeline/change_columns.h"
#include "check/window_recount.h"
#include "check/window_verdict.h"
#include "checkpoint/window_state_store.h"
#include "sql/duckdb.h"
#include "sql/memory_budget.h"
#include "table/commit_record.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "table/seen_batches.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/files.h"
#include "util/plural.h"

namespace lakestream {

bool CheckResult::has_problem() const {
  for (const auto& l : lines)
    if (l.verdict == "PROBLEM" || l.verdict == "LIMIT") return true;
  return false;
}

bool CheckResult::has_error() const {
  for (const auto& l : lines)
    if (l.verdict == "error") return true;
  return false;
}

int CheckResult::exit_code() const { return has_problem() ? 1 : has_error() ? 2 : 0; }

std::string format_check(const CheckResult& result, bool examples) {
  std::string out;
  for (const auto& l : result.lines) {
    std::string verdict = l.verdict;
    if (verdict.size() < 8) verdict += std::string(8 - verdict.size(), ' ');
    out += verdict + l.text + "\n";
    if (!examples || (l.examples.empty() && l.why.empty())) continue;
    std::string records;
    for (const auto& e : l.examples) records += (records.empty() ? "" : ", ") + e;
    if (!records.empty()) records = std::string(l.examples.size() == 1 ? "e.g. record " : "e.g. records ") + records;
    out += std::string(8, ' ') + records + (l.why.empty() ? "" : (records.empty() ? "" : "; ") + l.why + " lists them all") + "\n";
  }
  return out;
}

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

// `text` as one word of a shell command: as it is when it is safe, else in single quotes.
std::string shell_word(const std::string& text) {
  bool safe = !text.empty();
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("-_./:=@%+,").find(c) == std::string::npos) safe = false;
  if (safe) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command that lists the records of a window (check/why.h), named as `window` says.
std::string why_window_command(const Pipeline& pipeline, const std::string& window) {
  std::error_code no_cwd;
  bool default_file = pipeline.path.empty() || pipeline.path == "lakestream.toml" ||
                      pipeline.path == (std::filesystem::current_path(no_cwd) / "lakestream.toml").string();
  return "lakestream why" + (default_file ? std::string() : " -p " + shell_word(pipeline.path)) + " --window " + shell_word(window);
}

// The medallion layer a table belongs to, by the kind of stream that writes it.
std::string layer_of(const Pipeline& pipeline, const std::string& table) {
  const Stream* writer = pipeline.writer_of(table);
  if (!writer) return table;
  switch (writer->kind) {
    case StreamKind::Ingest: return "bronze";
    case StreamKind::Latest: return "silver";
    case StreamKind::Window: return "gold";
  }
  return table;
}

class Checker {
 public:
  Checker(const Pipeline& pipeline, const delta::TimeRange& range, const sql::MemoryBudget& budget)
      : pipeline_(pipeline), con_(db_), range_(range) {
    budget.apply(con_);
  }

  CheckResult run() {
    // A table whose log names a data file that is gone cannot be read at all: a PROBLEM, and the
    // tables made from it cannot be checked.
    report_missing_files();
    slices_ = window_slices(pipeline_, range_);
    snapshots_ = create_lake_views(con_, pipeline_, slices_, &unreadable_);
    for (const Stream* stream : pipeline_.in_dependency_order()) {
      // A table that cannot be checked gets an error line, and the others are checked on.
      try {
        check_stream(*stream);
      } catch (const std::exception& e) {
        std::string reason = e.what();
        for (char& c : reason)
          if (c == '\n') c = ' ';
        add("error", stream->table + " could not be checked: " + reason);
      }
    }
    return result_;
  }

 private:
  void check_stream(const Stream& stream) {
    if (missing_files_.count(stream.table)) return;  // its PROBLEM line says it all
    for (const auto& table : {stream.from, stream.table + "_quarantine"})
      if (missing_files_.count(table))
        throw Error(table + " cannot be read: a data file its log names is missing (see its PROBLEM line)");
    std::vector<std::string> read = {stream.table};
    if (stream.kind == StreamKind::Ingest) read.push_back(stream.table + "_quarantine");
    else read.push_back(stream.from);
    for (const auto& table : read)
      if (unreadable_.count(table)) throw Error(table + " cannot be read: " + unreadable_.at(table));
    if (!snapshots_.count(stream.table)) {
      add("waiting", stream.table + " is not written yet: " + not_written_reason(stream));
      return;
    }
    if (stream.kind != StreamKind::Ingest && !snapshots_.count(stream.from))
      throw Error("its source table " + stream.from + " does not exist");
    switch (stream.kind) {
      case StreamKind::Ingest: check_ingest(stream); break;
      case StreamKind::Latest:
        if (range_.is_everything()) check_latest(stream);
        else add("note", stream.table + " is not checked for a time range: the newest state of each " + stream.entity +
                             " needs all of " + stream.from + "; run check without --since/--until for it");
        break;
      case StreamKind::Window: check_window(stream); break;
    }
    // A table whose change data feed is on: the feed must replay to its rows; a table with an
    // Iceberg view: the view must be of its newest version (whole tables only).
    if (range_.is_everything() && !slices_.count(stream.table)) {
      for (auto& line : check_change_feed(con_, stream.table, snapshots_.at(stream.table))) result_.lines.push_back(std::move(line));
      for (auto& line : check_iceberg_view(stream.table, snapshots_.at(stream.table))) result_.lines.push_back(std::move(line));
    }
  }

  // Why a table is not there yet: its stream has not run, or (a window table in append mode) ran
  // but no window has closed.
  std::string not_written_reason(const Stream& stream) {
    if (stream.kind == StreamKind::Window && snapshots_.count(stream.from) && read_window_progress(pipeline_, stream))
      return "no window has closed yet";
    return "run `lakestream run` first";
  }

  void add(const std::string& verdict, const std::string& text) { result_.lines.push_back(check_line(verdict, text)); }

  void report_missing_files() {
    for (const auto& table : pipeline_.table_names()) {
      delta::Snapshot snapshot;
      try {
        snapshot = delta::load_snapshot(pipeline_.table_path(table));
      } catch (const std::exception&) {
        continue;  // an unreadable log: its stream's check says so
      }
      std::vector<std::string> paths;
      for (const auto& file : snapshot.files) paths.push_back(file.path);
      for (const auto& path : delta::missing_table_files(snapshot.table, paths)) {
        add("PROBLEM", table + " version " + std::to_string(snapshot.version) + " names data file " + path +
                           ", which is missing: the table cannot be read. Restore the file from a backup (lakestream "
                           "vacuum never deletes a file the current version names)");
        missing_files_.insert(table);
      }
    }
  }

  std::string event_columns(const std::vector<delta::Column>& columns, const std::string& prefix = "") {
    std::string list;
    for (const auto& c : columns)
      if (!is_lineage_column(c.name)) list += (list.empty() ? "" : ", ") + prefix + q(c.name);
    return list;
  }

  void check_ingest(const Stream& stream) {
    const std::string& table = stream.table;
    const auto& columns = snapshots_.at(table).metadata.schema;
    int64_t rows = con_.scalar_int("SELECT count(*) FROM " + q(table));
    // After a topic went back or was recreated (accepted by fail_on_data_loss = false) offsets start over: an
    // offset is unique within each era between two such gaps.
    std::string era = "0";
    for (int64_t batch : went_back_batches(stream)) era += " + (_batch_id >= " + std::to_string(batch) + ")::INT";
    int64_t offsets = con_.scalar_int("SELECT count(DISTINCT (partition, \"offset\", " + era + ")) FROM " + q(table));
    if (rows == offsets) {
      add("ok", table + " has " + count_of(rows, "events") + ", each offset once");
    } else {
      add("PROBLEM", table + " has " + count_of(rows, "rows") + " for " + count_of(offsets, "offsets") + ": " +
                         std::to_string(rows - offsets) + " written more than once");
    }
    std::string quarantine = table + "_quarantine";
    if (snapshots_.count(quarantine)) {
      int64_t bad = con_.scalar_int("SELECT count(*) FROM " + q(quarantine));
      int64_t both = con_.scalar_int("SELECT count(*) FROM " + q(quarantine) + " qq JOIN " + q(table) +
                                     " b USING (partition, \"offset\")");
      if (both > 0)
        add("PROBLEM", counted(both, "record is", "records are") + " both in " + table + " and in " + quarantine);
      if (bad > 0)
        add("note", count_of(bad, "records") + (bad == 1 ? " did not fit the schema and is in " : " did not fit the schema and are in ") +
                        quarantine + " with the reason");
    }
    if (stream.max_quarantine_share >= 0) {
      int64_t bad = snapshots_.count(quarantine) ? con_.scalar_int("SELECT count(*) FROM " + q(quarantine)) : 0;
      double share = rows + bad > 0 ? static_cast<double>(bad) / static_cast<double>(rows + bad) : 0;
      add(share <= stream.max_quarantine_share ? "ok" : "LIMIT",
          quarantine + " holds " + percent_text(share) + " of the records read (" + std::to_string(bad) + " of " +
              std::to_string(rows + bad) + "); the limit is " + percent_text(stream.max_quarantine_share) + limit_key(stream, "max_quarantine_share"));
    }
    int64_t distinct_events =
        con_.scalar_int("SELECT count(*) FROM (SELECT DISTINCT " + event_columns(columns) + " FROM " + q(table) + ")");
    if (rows > distinct_events) {
      const Source* source = pipeline_.find_source(stream.source);
      add("note", std::to_string(rows - distinct_events) + " of them sent twice by " +
                      (source ? source->sent_twice_by : std::string("the producer")));
    }
    for (const auto& [version, batch_id, gap] : data_loss(stream)) {
      std::string partition = "partition " + std::to_string(gap.partition);
      std::string read_up_to = std::to_string(gap.read_up_to);
      const std::string& reason = gap.reason;
      std::string what = reason == "partition gone" ? partition + " of the topic vanished after offset " + read_up_to
                         : partition + " went on from offset " + std::to_string(gap.continued_from.value_or(-1)) +
                               " after " + read_up_to + " (" +
                               (reason == "went back"   ? "the topic went back"
                                : reason == "recreated" ? "the topic was recreated"
                                                        : "older records aged out") +
                               ")";
      add("note", stream.table + " may lack records: " + what + ", accepted by fail_on_data_loss = false in version " +
                      std::to_string(version));
    }
  }

  // Offsets skipped under fail_on_data_loss = false, as the bronze commits recorded them, each
  // with the table version and the batch that recorded it.
  struct RecordedGap {
    int64_t version = 0;   // of the table
    int64_t batch_id = 0;  // the batch that stepped over it
    DataLoss gap;
  };
  std::vector<RecordedGap> data_loss(const Stream& stream) {
    std::vector<RecordedGap> gaps;
    const auto& snapshot = snapshots_.at(stream.table);
    for (const auto& commit : delta::read_commits(snapshot.table, delta::oldest_commit(snapshot.table), snapshot.version)) {
      auto record = commit_record_of(commit.commit_info);
      if (!record) continue;
      for (const auto& gap : record->data_loss) gaps.push_back({commit.version, record->batch_id.value_or(0), gap});
    }
    return gaps;
  }

  std::vector<int64_t> went_back_batches(const Stream& stream) {
    std::vector<int64_t> batches;
    for (const auto& recorded : data_loss(stream))
      if (recorded.gap.reason == "went back" || recorded.gap.reason == "recreated") batches.push_back(recorded.batch_id);
    return batches;
  }

  void check_latest(const Stream& stream) {
    const StreamInput input = stream_input(con_, stream, snapshots_.at(stream.from));
    const auto& source_columns = input.columns;
    const std::string& source = input.relation;
    const auto& columns = snapshots_.at(stream.table).metadata.schema;
    std::vector<std::string> compared;
    for (const auto& c : columns)
      if (!is_lineage_column(c.name) && delta::has_column(source_columns, c.name)) compared.push_back(c.name);
    std::string list, keys, match, differs;
    for (const auto& c : compared) {
      list += (list.empty() ? "" : ", ") + q(c);
      differs += (differs.empty() ? "" : " OR ") + ("e." + q(c) + " IS DISTINCT FROM s." + q(c));
    }
    for (const auto& k : stream.key) {
      keys += (keys.empty() ? "" : ", ") + q(k);
      match += (match.empty() ? "" : " AND ") + ("e." + q(k) + " IS NOT DISTINCT FROM s." + q(k));
    }
    bool kafka_position = delta::has_column(source_columns, "partition") && delta::has_column(source_columns, "offset");
    std::string position = kafka_position ? "max([\"partition\"::BIGINT, \"offset\"])" : "NULL";
    // The newest distinct event per key, a tie going to the later Kafka position (partition, then
    // offset, of its last copy); a NULL in a key column is a value like any other, as in GROUP BY.
    // With deletes, the replay of the change log: a key whose newest event is a delete is absent.
    std::string delete_flag = stream.deletes.empty() ? "" : ", coalesce((" + stream.deletes + "), false) AS _delete";
    // Of a change data feed, a later version's change is the newer at the same order_by (a
    // delete repeats the row it deletes).
    std::string later_change = stream.read == SourceRead::Changes ? std::string(kCommitVersionColumn) + " DESC, " : "";
    std::string newest = "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY " + keys + " ORDER BY " +
                         q(stream.order_by) + " DESC NULLS LAST, " + later_change + "_position DESC) AS _rank FROM (SELECT " + list + ", " +
                         position + " AS _position" + delete_flag + " FROM " + source + " GROUP BY ALL)) WHERE _rank = 1";
    std::string expected = "SELECT " + list + ", true AS _in FROM (" + newest + ")" +
                           (stream.deletes.empty() ? "" : " WHERE NOT _delete");
    sql::Rows r = con_.query("SELECT count(*) FILTER (WHERE e._in) AS expected, "
                             "count(*) FILTER (WHERE s._in IS NULL) AS missing, "
                             "count(*) FILTER (WHERE e._in IS NULL) AS extra, "
                             "count(*) FILTER (WHERE e._in AND s._in AND (" + differs + ")) AS wrong FROM (" + expected +
                             ") e FULL OUTER JOIN (SELECT " + list + ", true AS _in FROM " + q(stream.table) + ") s ON " + match);
    int64_t n = std::stoll(r.text(0, "expected")), missing = std::stoll(r.text(0, "missing")),
            extra = std::stoll(r.text(0, "extra")), wrong = std::stoll(r.text(0, "wrong"));
    std::string entity = stream.entity.empty() ? "row" : stream.entity;
    int64_t came_back = extra > 0 && stream.deletes_retention ? came_back_after_retention(stream, compared, newest) : 0;
    extra -= came_back;
    if (missing == 0 && extra == 0 && wrong == 0) {
      add("ok", stream.table + " has the newest state of all " + count_of(n, entity));
      if (!stream.deletes.empty()) {
        int64_t deleted = con_.scalar_int("SELECT count(*) FROM (" + newest + ") WHERE _delete") - came_back;
        if (deleted > 0)
          add("note", count_of(deleted, entity) + " deleted from " + stream.table + ": the newest change of each in " +
                          stream.from + " is a delete");
        if (came_back > 0)
          add("note", count_of(came_back, entity) + " back in " + stream.table + " after " +
                          (came_back == 1 ? "its delete was" : "their deletes were") + " forgotten (deletes_retention = " +
                          stream.deletes_retention->text + "): an older change of each came after");
      }
      check_staleness(stream, "max(" + q(stream.order_by) + ")", "max(" + q(stream.order_by) + ")");
      return;
    }
    add("PROBLEM", stream.table + " is not the newest state of each " + entity + " in " + layer_of(pipeline_, stream.from) +
                       ": " + std::to_string(wrong) + " wrong, " + std::to_string(missing) + " missing, " +
                       std::to_string(extra) + " extra, of " + count_of(n, entity));
  }

  // The rows of `stream.table` a forgotten delete lets back: the key's newest change (`newest`,
  // over the `compared` columns) is a delete past deletes_retention at the source's newest change, and the row is
  // one of the key's changes older than the delete. The stream forgets a delete only then, and
  // a change of it read after that goes in as into an empty table; which one stays depends on
  // the batches, so check accepts any older change rather than one.
  int64_t came_back_after_retention(const Stream& stream, const std::vector<std::string>& compared, const std::string& newest) {
    std::string ob = q(stream.order_by), list, same_row, key_ds, key_cs;
    for (const auto& k : stream.key) {
      key_ds += (key_ds.empty() ? "" : " AND ") + ("d." + q(k) + " IS NOT DISTINCT FROM s." + q(k));
      key_cs += " AND c." + q(k) + " IS NOT DISTINCT FROM s." + q(k);
    }
    for (const auto& c : compared) {
      list += (list.empty() ? "" : ", ") + q(c);
      same_row += " AND c." + q(c) + " IS NOT DISTINCT FROM s." + q(c);
    }
    return con_.scalar_int(
        "SELECT count(*) FROM (SELECT " + list + " FROM " + q(stream.table) + ") s JOIN (" + newest + ") d ON " + key_ds +
        " WHERE d._delete AND coalesce(d." + ob + " < (SELECT max(" + ob + ") FROM " + q(stream.from) + ") - " +
        deletes_retention_sql(*stream.deletes_retention) + ", d." + ob + " IS NULL) AND EXISTS (SELECT 1 FROM " +
        q(stream.from) + " c WHERE NOT coalesce((" + stream.deletes + "), false)" + key_cs + same_row + " AND (c." + ob +
        " IS NULL OR c." + ob + " <= d." + ob + "))");
  }

  void check_window(const Stream& stream);

  int window_tables() const {
    int n = 0;
    for (const auto& s : pipeline_.streams) n += s.kind == StreamKind::Window;
    return n;
  }
  void check_late_share(const Stream& stream,
                        const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>>& late_by_window);

  static std::string limit_key(const Stream& stream, const std::string& key) {
    return " (streams." + stream.name + "." + key + ")";
  }

  // Freshness: how far the table's newest event (`table_newest`, SQL over the table) is behind its
  // source's (`source_newest`, over the table it reads), against max_staleness.
  void check_staleness(const Stream& stream, const std::string& table_newest, const std::string& source_newest) {
    if (stream.max_staleness_us <= 0) return;
    auto source_us = con_.scalar("SELECT epoch_us(" + source_newest + ") FROM " + q(stream.from));
    auto table_us = con_.scalar("SELECT epoch_us(" + table_newest + ") FROM " + q(stream.table));
    if (!source_us) return;  // nothing to be behind of
    int64_t lag = table_us ? std::max<int64_t>(0, std::stoll(*source_us) - std::stoll(*table_us)) : -1;
    std::string limit = "; the limit is " + duration_words(stream.max_staleness_us) + limit_key(stream, "max_staleness");
    if (lag < 0) {
      add("LIMIT", stream.table + " has no event yet while " + stream.from + " has" + limit);
    } else {
      add(lag <= stream.max_staleness_us ? "ok" : "LIMIT",
          stream.table + " is " + duration_words(lag) + " behind " + stream.from + "'s newest event" + limit);
    }
  }

  const Pipeline& pipeline_;
  sql::Database db_;
  sql::Connection con_;
  delta::TimeRange range_;
  std::map<std::string, TableSlice> slices_;
  std::map<std::string, delta::Snapshot> snapshots_;
  std::map<std::string, std::string> unreadable_;  // table -> why it cannot be read
  std::set<std::string> missing_files_;            // tables whose log names a missing data file
  CheckResult result_;
};

void Checker::check_window(const Stream& stream) {
  const StreamInput input = stream_input(con_, stream, snapshots_.at(stream.from),
                                        slices_.count(stream.from) ? &slices_.at(stream.from).range : nullptr);
  const auto& source_columns = input.columns;
  const delta::Snapshot& gold = snapshots_.at(stream.table);
  std::string source = layer_of(pipeline_, stream.from);
  auto progress = read_window_progress(pipeline_, stream);
  int64_t watermark = progress ? progress->watermark_us : 0;

  // Which source batch each written window had seen: the tag on its file (per run of rows in a
  // merged file, table/seen_batches.h), else the commit that wrote the file. A file known from a
  // log checkpoint carries the checkpoint's version; its adding commit, when still in the log,
  // says which one really wrote it.
  con_.exec("CREATE OR REPLACE TEMP TABLE check_boundary (file VARCHAR, first_row BIGINT, end_row BIGINT, boundary BIGINT)");
  {
    delta::Table gold_table = gold.table.path().empty() ? delta::Table(pipeline_.table_path(stream.table)) : gold.table;
    std::map<std::string, int64_t> added_in;
    std::map<int64_t, std::optional<int64_t>> boundary_of_version;
    for (const auto& commit : delta::read_commits(gold_table, delta::oldest_commit(gold_table), gold.version)) {
      // A file added again with a new deletion vector keeps the commit that wrote its rows.
      for (const auto& added : commit.adds)
        if (!added.deletion_vector || !added_in.count(added.path)) added_in[added.path] = commit.version;
      auto record = commit_record_of(commit.commit_info);
      boundary_of_version[commit.version] = record ? record->source_max_batch_id : std::nullopt;
    }
    sql::Appender appender(con_, "check_boundary");
    const delta::Table& table = gold.table;  // as the scan names its files
    for (const auto& file : gold.files) {
      std::vector<std::pair<int64_t, std::optional<int64_t>>> runs;  // first row, boundary (none: unknown)
      if (auto tagged = delta::seen_batches_of(file)) {
        for (const auto& run : *tagged) runs.push_back({run.first_row, run.batch});
      } else {
        auto boundary = boundary_of_version.find(added_in.count(file.path) ? added_in.at(file.path) : file.version);
        runs.push_back({0, boundary == boundary_of_version.end() ? std::nullopt : boundary->second});
      }
      for (size_t i = 0; i < runs.size(); i++) {
        appender.append_text(delta::readable_path(table, file.path, file.size));
        appender.append_int64(runs[i].first);
        appender.append_int64(i + 1 < runs.size() ? runs[i + 1].first : INT64_MAX);
        if (runs[i].second) appender.append_int64(*runs[i].second);
        else appender.append_null();
        appender.end_row();
      }
    }
  }
  std::string key = window_key_sql(stream);
  std::vector<std::string> types = aggregate_types(stream, gold.metadata.schema);
  std::string aggs = window_aggregates_sql(stream, types);
  std::string gold_columns = q(stream.window_column) + " AS ws";
  for (const auto& g : stream.group_by) gold_columns += ", " + q(g);
  for (const auto& a : stream.aggregates) gold_columns += ", " + q(a.name);
  con_.exec("CREATE OR REPLACE TEMP TABLE check_gold AS SELECT " + gold_columns + ", b.boundary FROM (" +
            delta::scan_sql_with_positions(gold) + ") g LEFT JOIN check_boundary b ON g.__lakestream_file = b.file AND "
            "g.__lakestream_row >= b.first_row AND g.__lakestream_row < b.end_row");
  // A file read for the range may hold windows outside it too: those are not checked here.
  if (slices_.count(stream.table))
    con_.exec("DELETE FROM check_gold WHERE NOT (" + slices_.at(stream.table).range.contains_sql("ws") + ")");
  // Late by design: a copy older than the watermark its source batch met (the stream records that
  // watermark per source batch). The batch truth: each event once, late or not. What the stream
  // should have counted: each event once among the copies that were on time.
  MetWatermarks met;
  if (progress) met = {progress->watermark_history, progress->watermark_us};
  create_window_copies(con_, stream, source_columns, input.relation, met, "check_copies");
  create_window_events(con_, stream, source_columns, "check_copies", "true", "check_events");
  create_window_events(con_, stream, source_columns, "check_copies", "NOT _late", "check_counted");
  con_.exec("CREATE OR REPLACE TEMP TABLE check_recount AS SELECT " + key + ", " + aggs + " FROM check_events GROUP BY " + key);
  std::string same = "e.ws = g.ws";
  for (const auto& g : stream.group_by) same += " AND e." + q(g) + " IS NOT DISTINCT FROM g." + q(g);
  std::string e_key = window_key_sql(stream, "e");
  // The recount of only the events that had arrived when the window was written, and were on time.
  con_.exec("CREATE OR REPLACE TEMP TABLE check_arrived AS SELECT " + e_key + ", count(*) AS _arrived FROM check_events e "
            "JOIN check_gold g ON " + same + " WHERE e._batch <= g.boundary GROUP BY " + e_key);
  // The aggregates name the events' columns unqualified, and a group column of gold may have the
  // name of one (group_by = ["n"], sum(n)): they run over the events alone, the join done inside.
  con_.exec("CREATE OR REPLACE TEMP TABLE check_before AS SELECT " + e_key + ", " + aggs +
            " FROM (SELECT e.* FROM check_counted e JOIN check_gold g ON " + same +
            " WHERE e._batch <= g.boundary) e GROUP BY " + e_key);

  auto join_on = [&](const std::string& alias) {
    std::string on = alias + ".ws = k.ws";
    for (const auto& g : stream.group_by) on += " AND " + alias + "." + q(g) + " IS NOT DISTINCT FROM k." + q(g);
    return on;
  };
  std::string select = "SELECT epoch_us(k.ws) AS ws_us, strftime(k.ws, '%H:%M') AS hm, strftime(k.ws, '%Y-%m-%d %H:%M') "
                       "AS ymdhm, strftime(k.ws, '%Y-%m-%d') AS ymd, g.ws IS NOT NULL AS written, r.ws IS NOT NULL AS counted, "
                       "coalesce(r._events, 0) AS r_events, coalesce(b._events, 0) AS b_events, coalesce(a._arrived, 0) AS a_events";
  std::string g_eq_r = "true", g_eq_b = "true";
  for (const auto& gname : stream.group_by) select += ", k." + q(gname) + "::VARCHAR AS " + q("k_" + gname);
  for (size_t i = 0; i < stream.aggregates.size(); i++) {
    std::string a = q(stream.aggregates[i].name), n = std::to_string(i);
    select += ", g." + a + "::VARCHAR AS g" + n + ", r." + a + "::VARCHAR AS r" + n;
    g_eq_r += " AND " + same_aggregate_sql(stream, i, types[i], "g", "r");
    g_eq_b += " AND " + same_aggregate_sql(stream, i, types[i], "g", "b");
  }
  select += ", (" + g_eq_r + ") AS g_eq_r, (b.ws IS NOT NULL AND " + g_eq_b + ") AS g_eq_b";
  std::string group_order;  // qualified: every joined table has the group columns
  for (const auto& g : stream.group_by) group_order += ", k." + q(g);
  sql::Rows rows = con_.query(select + " FROM (SELECT " + key + " FROM check_gold UNION SELECT " + key +
                              " FROM check_recount) k LEFT JOIN check_gold g ON " + join_on("g") +
                              " LEFT JOIN check_recount r ON " + join_on("r") + " LEFT JOIN check_arrived a ON " + join_on("a") +
                              " LEFT JOIN check_before b ON " + join_on("b") + " ORDER BY " + window_key_sql(stream, "k"));

  constexpr int64_t kDayUs = 24LL * 3600 * 1000 * 1000;
  // Times alone name the windows when they all start and end within one day; else the date shows.
  bool one_day = true;
  for (size_t i = 0; i < rows.size(); i++) {
    int64_t start_in_day = ((std::stoll(rows.text(i, "ws_us")) % kDayUs) + kDayUs) % kDayUs;
    if (rows.text(i, "ymd") != rows.text(0, "ymd") || start_in_day + stream.window_us > kDayUs) one_day = false;
  }
  // With several window tables, each line names its own.
  std::string table_prefix = window_tables() > 1 ? stream.table + " " : "";
  std::string noun = window_noun(stream.window_us);
  int count_index = -1;
  for (size_t i = 0; i < stream.aggregates.size(); i++)
    if (stream.aggregates[i].function == "count" && count_index < 0) count_index = static_cast<int>(i);

  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> late_by_window;  // label -> (late, events)
  for (size_t i = 0; i < rows.size(); i++) {
    std::string label = table_prefix + (stream.window_us % kDayUs == 0 ? rows.text(i, "ymd")
                                        : one_day                     ? rows.text(i, "hm")
                                                                      : rows.text(i, "ymdhm"));
    for (const auto& gname : stream.group_by) label += " " + rows.at(i, "k_" + gname).value_or("NULL");
    std::vector<std::optional<std::string>> g, r;
    for (size_t a = 0; a < stream.aggregates.size(); a++) {
      g.push_back(value_text(types[a], rows.at(i, "g" + std::to_string(a))));
      r.push_back(value_text(types[a], rows.at(i, "r" + std::to_string(a))));
    }
    // Up to 3 of the window's records in `records` (check_events: each event once; check_copies:
    // every copy) that pass `which` (over e, the record, and g, the written window), and the
    // command that lists them all, for the line just added.
    auto point_at = [&](const std::string& records, const std::string& which) {
      std::string window = stream.table + " " + (stream.window_us % kDayUs == 0 ? rows.text(i, "ymd") : rows.text(i, "ymdhm"));
      std::string in_window = "epoch_us(e.ws) = " + rows.text(i, "ws_us");
      for (const auto& gname : stream.group_by) {
        auto value = rows.at(i, "k_" + gname);
        window += " " + value.value_or("NULL");
        in_window += " AND e." + q(gname) + (value ? "::VARCHAR = " + sql::quote_literal(*value) : " IS NULL");
      }
      CheckLine& line = result_.lines.back();
      line.window = window;
      line.why = why_window_command(pipeline_, window);
      sql::Rows found = con_.query("SELECT e._position[1]::VARCHAR || ':' || e._position[2]::VARCHAR AS at FROM " + records +
                                   " e LEFT JOIN check_gold g ON " + same + " WHERE " + in_window + " AND e._position IS NOT NULL AND (" +
                                   which + ") ORDER BY e._position LIMIT 3");
      for (size_t f = 0; f < found.size(); f++) line.examples.push_back(found.text(f, "at"));
    };
    // Late in a written window: what was late against the watermark, or came after the window was written.
    const std::string late_in_written = "e._late OR NOT coalesce(e._batch <= g.boundary, false)";
    WindowFacts facts;
    facts.label = label;
    facts.noun = noun;
    facts.source = source;
    facts.written = rows.text(i, "written") == "true";
    facts.counted = rows.text(i, "counted") == "true";
    facts.final = std::stoll(rows.text(i, "ws_us")) + stream.window_us <= watermark;
    facts.update_mode = stream.output == OutputMode::Update;
    facts.values_match_recount = rows.text(i, "g_eq_r") == "true";
    facts.values_match_on_time = rows.text(i, "g_eq_b") == "true";
    facts.events = std::stoll(rows.text(i, "r_events"));
    facts.events_before = std::stoll(rows.text(i, "b_events"));
    facts.arrived = std::stoll(rows.text(i, "a_events"));
    facts.written_values = values_phrase(stream, g);
    facts.recount_values = values_phrase(stream, r);
    if (count_index >= 0) {
      if (g[count_index]) facts.written_count = std::stoll(*g[count_index]);
      if (r[count_index]) facts.recount_count = std::stoll(*r[count_index]);
      facts.count_name = stream.aggregates[count_index].name;
    }
    WindowVerdict verdict = window_verdict(facts);
    if (verdict.late_of_events) late_by_window.push_back({label, *verdict.late_of_events});
    add(verdict.verdict, verdict.text);
    switch (verdict.examples) {
      case WindowExamples::None: break;
      case WindowExamples::AllEvents: point_at("check_events", "true"); break;
      case WindowExamples::LateEvents: point_at("check_events", late_in_written); break;
      case WindowExamples::OnTimeCopies: point_at("check_copies", "NOT e._late"); break;
    }
  }
  check_late_share(stream, late_by_window);
  check_staleness(stream, "max(" + q(stream.window_column) + ") + to_microseconds(" + std::to_string(stream.window_us) + ")",
                  "max(" + q(stream.event_time) + ")");
}

void Checker::check_late_share(const Stream& stream,
                               const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>>& late_by_window) {
  if (stream.max_late_share < 0) return;
  std::string noun = window_noun(stream.window_us);
  std::string limit = "; the limit is " + percent_text(stream.max_late_share) + limit_key(stream, "max_late_share");
  double worst = 0;
  std::string worst_label;
  for (const auto& [label, counts] : late_by_window) {
    double share = static_cast<double>(counts.first) / static_cast<double>(counts.second);
    if (share > worst) worst = share, worst_label = label;
    if (share > stream.max_late_share)
      add("LIMIT", label + " lost " + percent_text(share) + " of its events to the watermark (" +
                       std::to_string(counts.first) + " of " + std::to_string(counts.second) + ")" + limit);
  }
  if (worst <= stream.max_late_share)
    add("ok", stream.table + ": late events were at most " + percent_text(worst) + " of any " + noun + "'s" +
                  (worst_label.empty() ? "" : " (" + worst_label + ")") + limit);
}

}  // namespace

CheckResult check_pipeline(const Pipeline& pipeline, const delta::TimeRange& range, int64_t memory_limit) {
  sql::MemoryBudget budget(memory_limit);
  return Checker(pipeline, range, budget).run();
}

}  // namespace lakestream
