#include "check/why.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "check/check_wording.h"
#include "check/lake_views.h"
#include "check/window_recount.h"
#include "checkpoint/window_state_store.h"
#include "pipeline/bronze_layout.h"
#include "sql/duckdb.h"
#include "table/commit_record.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "util/error.h"

namespace lakestream {

namespace {

// What a stream that does not read its source's appends reads of it, as why names it:
// "orders's change data feed (read = "changes")".
std::string what_is_read(const Stream& s) {
  return (s.read == SourceRead::Changes ? s.from + "'s change data feed" : s.from + " skipping versions that change rows") +
         " (read = \"" + source_read_name(s.read) + "\")";
}

std::string q(const std::string& name) { return sql::quote_ident(name); }

// Microseconds since the epoch as "2026-10-01 09:59:00" (UTC), with the fraction when there is one.
std::string utc_text(int64_t us) {
  int64_t seconds = us / 1000000, fraction = us % 1000000;
  if (fraction < 0) seconds -= 1, fraction += 1000000;
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  std::string result = text;
  if (fraction) {
    char digits[16];
    std::snprintf(digits, sizeof digits, ".%06lld", static_cast<long long>(fraction));
    result += digits;
    while (result.back() == '0') result.pop_back();
  }
  return result;
}

// What a record's trail names as where it came from: the Kafka topic, or the Kinesis stream.
std::string records_of(const Source* source) {
  if (!source) return "";
  return source->is_kinesis() ? source->kinesis.stream : source->topic;
}

std::string position_text(const std::string& partition, const std::string& offset) {
  return "partition " + partition + " offset " + offset;
}

// What why has read of a bronze log: its span, and the version of each batch met so far.
struct BronzeLog {
  bool listed = false;
  int64_t oldest = 0, latest = -1;
  std::map<int64_t, int64_t> known;  // batch id -> version
};

// The bronze version batch `batch` was committed at, when its commit is still in the log. Each
// commit holds at most one batch and batch ids grow with versions (a worker's batch id is its
// version), so batch b is at version b or later: the search reads from there up, a few commits
// at a time, not the whole log (a service's bronze log is long).
std::optional<int64_t> version_of_batch(const std::string& table_path, int64_t batch, BronzeLog& log) {
  if (!log.listed) {
    log.latest = delta::latest_version(table_path);
    log.oldest = delta::oldest_commit(table_path);
    log.listed = true;
  }
  std::map<int64_t, int64_t>& known = log.known;
  if (auto it = known.find(batch); it != known.end()) return it->second;
  constexpr int64_t kCommitsPerRead = 16;
  const int64_t latest = log.latest;
  for (int64_t from = std::max(batch, log.oldest); from <= latest; from += kCommitsPerRead) {
    bool past = false;
    for (const auto& commit : delta::read_commits(table_path, from, std::min(latest, from + kCommitsPerRead - 1))) {
      auto record = commit_record_of(commit.commit_info);
      if (!record || !record->batch_id) continue;
      known[*record->batch_id] = commit.version;
      if (*record->batch_id >= batch) past = true;
    }
    if (past) break;
  }
  if (auto it = known.find(batch); it != known.end()) return it->second;
  return std::nullopt;
}

// The newest source version a latest stream's table says it read (its newest commit that says).
std::optional<int64_t> source_version_read(const std::string& table_path) {
  int64_t latest = delta::latest_version(table_path);
  if (latest < 0) return std::nullopt;
  int64_t oldest = std::max(delta::oldest_commit(table_path), latest - 20);
  auto commits = delta::read_commits(table_path, oldest, latest);
  for (auto it = commits.rbegin(); it != commits.rend(); ++it)
    if (auto record = commit_record_of(it->commit_info); record && record->table) return record->table->to_version;
  return std::nullopt;
}

class Tracer {
 public:
  Tracer(const Pipeline& pipeline) : pipeline_(pipeline), con_(db_) { snapshots_ = create_lake_views(con_, pipeline_); }

  WhyAnswer run(const WhyRequest& request) {
    WhyAnswer answer;
    bool any_bronze = false;
    std::vector<std::string> unknown_fields;
    for (const Stream* ingest : pipeline_.in_dependency_order()) {
      if (ingest->kind != StreamKind::Ingest) continue;
      if (!request.table.empty() && request.table != ingest->table) continue;
      any_bronze = true;
      const Source* source = pipeline_.find_source(ingest->source);
      std::string topic = records_of(source);
      for (const std::string& table : {ingest->table, ingest->table + "_quarantine"}) {
        if (!snapshots_.count(table)) continue;
        bool quarantine = table != ingest->table;
        auto where = match_condition(request, *ingest, snapshots_.at(table).metadata.schema, quarantine, unknown_fields);
        if (!where) continue;
        std::string arrival = arrival_column(snapshots_.at(table).metadata.schema);
        sql::Rows rows = con_.query("SELECT \"partition\"::VARCHAR AS p, \"offset\"::VARCHAR AS o, " +
                                    (arrival.empty() ? std::string("NULL::BIGINT") : "epoch_us(" + q(arrival) + ")") + " AS ts, key" +
                                    std::string(quarantine ? ", " + q(kReasonColumn) + " AS reason" : ", _batch_id") +
                                    " FROM " + q(table) + " WHERE " + *where + " ORDER BY \"partition\", \"offset\"");
        for (size_t i = 0; i < rows.size(); i++) {
          if (static_cast<int64_t>(answer.trails.size()) >= request.limit) {
            answer.more++;
            continue;
          }
          RecordTrail trail = record_of(topic, rows, i);
          if (quarantine) {
            trail.steps.push_back({table, "quarantined", rows.at(i, "reason").value_or("(no reason recorded)")});
          } else {
            trace(*ingest, rows.text(i, "p"), rows.text(i, "o"), std::stoll(rows.text(i, "_batch_id")), trail);
          }
          answer.trails.push_back(std::move(trail));
        }
      }
    }
    if (!any_bronze)
      throw Error(request.table.empty() ? "the pipeline has no ingest stream, so no Kafka record to trace"
                                        : "--table " + request.table + " is not a table an ingest stream writes");
    if (answer.trails.empty() && !unknown_fields.empty()) {
      std::string names;
      for (const auto& n : unknown_fields) names += (names.empty() ? "" : ", ") + n;
      throw Error("no bronze table has the column " + names + "; name a column of bronze (lakestream query \"describe <table>\")");
    }
    return answer;
  }

 // The records of one window (request.window): those it did not count first, then those it did.
  WhyAnswer run_window(const WhyRequest& request) {
    WindowName name = window_named(request.window);
    const Stream& s = *name.stream;
    if (s.read != SourceRead::Appends)
      throw Error(s.name + " reads " + what_is_read(s) + ", whose records why does not list; lakestream check verifies its windows");
    if (!snapshots_.count(s.from)) throw Error(s.from + ", which " + s.name + " reads, does not exist yet: no record to list");
    const auto& source_columns = snapshots_.at(s.from).metadata.schema;
    if (!delta::has_column(source_columns, "partition") || !delta::has_column(source_columns, "offset"))
      throw Error(s.from + " keeps no partition and offset, so the records of " + s.table + "'s windows cannot be named");
    if (!progress_.count(s.name)) progress_[s.name] = read_window_progress(pipeline_, s);
    const auto& progress = progress_.at(s.name);
    if (!progress || progress->last_batch < 0) throw Error(s.name + " has not run yet, so it has judged no record; run lakestream run first");
    std::string suffix = prepare_window(s, *progress);
    std::string copies = "why_copies" + suffix;

    // The window: its start as given (a date, a time of day, or both), and its group values.
    std::string when = "true", groups = "true";
    if (!name.date.empty()) when += " AND strftime(ws, '%Y-%m-%d') = " + sql::quote_literal(name.date);
    if (!name.time.empty())
      when += " AND strftime(ws, '" + std::string(name.time.size() > 5 ? "%H:%M:%S" : "%H:%M") + "') = " + sql::quote_literal(name.time);
    for (size_t i = 0; i < name.groups.size(); i++)
      groups += " AND coalesce(" + q(s.group_by[i]) + "::VARCHAR, 'NULL') = " + sql::quote_literal(name.groups[i]);
    sql::Rows starts = con_.query("SELECT DISTINCT epoch_us(ws) AS ws_us, strftime(ws, '%Y-%m-%d %H:%M') AS label FROM " + copies +
                                  " WHERE " + when + " AND " + groups + " ORDER BY 1");
    std::string noun = window_noun(s.window_us);
    WhyAnswer answer;
    if (starts.size() == 0) {
      answer.window = s.table + ": no " + noun + " starting at " + name.given +
                      " holds a record of " + s.from;
      return answer;
    }
    if (starts.size() > 1) {
      std::string some;
      for (size_t i = 0; i < starts.size() && i < 4; i++) some += (i ? ", " : "") + starts.text(i, "label");
      throw Error("--window \"" + request.window + "\" names " + std::to_string(starts.size()) + " " + noun + "s of " + s.table +
                  " (" + some + (starts.size() > 4 ? ", ..." : "") + "); give its " + (name.date.empty() ? "date" : "time") +
                  " too, e.g. \"" + starts.text(0, "label") + "\"");
    }
    std::string ws_us = starts.text(0, "ws_us");
    answer.window = s.table + ", the " + noun + " " + starts.text(0, "label");
    for (const auto& g : name.groups) answer.window += " " + g;

    // Its records: every copy in it, and the source's records its filter left out.
    std::string arrival = arrival_column(source_columns);
    std::string kafka_columns = (arrival.empty() ? std::string("NULL::BIGINT") : "epoch_us(" + q(arrival) + ")") +
                                " AS ts, " + (delta::has_column(source_columns, "key") ? "key::VARCHAR" : "NULL::VARCHAR") + " AS key";
    std::string batch = delta::has_column(source_columns, "_batch_id") ? "_batch_id" : "NULL::BIGINT";
    std::string in_window = "epoch_us(" + q(s.event_time) + ") >= " + ws_us + " AND epoch_us(" + q(s.event_time) + ") < " + ws_us +
                            " + " + std::to_string(s.window_us);
    std::string records = "SELECT _position[1] AS p, _position[2] AS o, _batch AS b, " + kafka_columns + ", _position IN (SELECT _position FROM why_counted" +
                          suffix + ") AS counted FROM " + copies + " WHERE epoch_us(ws) = " + ws_us + " AND " + groups;
    if (!s.filter.empty())
      records += " UNION ALL SELECT \"partition\", \"offset\", " + batch + ", " + kafka_columns + ", false FROM " + q(s.from) + " WHERE " +
                 in_window + " AND " + groups + " AND NOT coalesce((" + s.filter + "), false)";
    sql::Rows rows = con_.query("SELECT p::VARCHAR AS p, o::VARCHAR AS o, b::VARCHAR AS b, ts::VARCHAR AS ts, key FROM (" + records +
                                ") ORDER BY counted, p, o");
    std::string topic = topic_of(s.from);
    for (size_t i = 0; i < rows.size(); i++) {
      if (static_cast<int64_t>(answer.trails.size()) >= request.limit) {
        answer.more++;
        continue;
      }
      RecordTrail trail = record_of(topic, rows, i);
      std::optional<int64_t> source_batch;
      if (auto b = rows.at(i, "b")) source_batch = std::stoll(*b);
      trace_window(s, rows.text(i, "p"), rows.text(i, "o"), source_batch, trail);
      const std::string& verdict = trail.steps.back().verdict;
      auto counted = std::find_if(answer.verdicts.begin(), answer.verdicts.end(), [&](const auto& v) { return v.first == verdict; });
      if (counted == answer.verdicts.end()) answer.verdicts.push_back({verdict, 1});
      else counted->second++;
      answer.trails.push_back(std::move(trail));
    }
    return answer;
  }

 private:
  // Row i of `rows` (its columns p, o, ts in microseconds, key) as the Kafka record a trail begins with.
  static RecordTrail record_of(const std::string& topic, const sql::Rows& rows, size_t i) {
    RecordTrail trail;
    trail.topic = topic;
    trail.partition = std::stoi(rows.text(i, "p"));
    trail.offset = std::stoll(rows.text(i, "o"));
    if (auto ts = rows.at(i, "ts")) trail.timestamp = utc_text(std::stoll(*ts));
    trail.key = rows.at(i, "key");
    return trail;
  }

  // A window as check's lines name it: the window stream (named first, or the only one), its
  // start's date and time of day (either may be left out), and the values of its first groups.
  struct WindowName {
    const Stream* stream = nullptr;
    std::string date, time;
    std::vector<std::string> groups;
    std::string given;  // the words after the table's name
  };

  WindowName window_named(const std::string& text) const {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<const Stream*> windows;
    for (const Stream* s : pipeline_.in_dependency_order())
      if (s->kind == StreamKind::Window) windows.push_back(s);
    if (windows.empty()) throw Error("the pipeline has no window stream, so no window to open");
    WindowName name;
    for (const Stream* s : windows)
      if (!words.empty() && (words[0] == s->table || words[0] == s->name)) name.stream = s;
    if (name.stream) words.erase(words.begin());
    else if (windows.size() == 1) name.stream = windows[0];
    else {
      std::string tables;
      for (const Stream* s : windows) tables += (tables.empty() ? "" : ", ") + s->table;
      throw Error("--window \"" + text + "\": name the window table first, one of " + tables + " (e.g. --window \"" +
                  windows[0]->table + " 09:00\")");
    }
    for (const auto& w : words) name.given += (name.given.empty() ? "" : " ") + w;
    auto digits = [](const std::string& w, const std::string& shape) {
      if (w.size() != shape.size()) return false;
      for (size_t i = 0; i < w.size(); i++)
        if (shape[i] == '9' ? !std::isdigit(static_cast<unsigned char>(w[i])) : w[i] != shape[i]) return false;
      return true;
    };
    if (!words.empty() && words[0].size() > 11 && words[0][10] == 'T' && digits(words[0].substr(0, 10), "9999-99-99")) {
      std::string time = words[0].substr(11);  // 2026-10-01T09:00, as ISO writes it
      words[0] = words[0].substr(0, 10);
      words.insert(words.begin() + 1, time);
    }
    if (!words.empty() && digits(words[0], "9999-99-99")) {
      name.date = words[0];
      words.erase(words.begin());
    }
    if (!words.empty()) {
      std::string time = words[0];
      if (!time.empty() && time.back() == 'Z') time.pop_back();
      if (digits(time, "99:99") || digits(time, "99:99:99")) {
        name.time = time;
        words.erase(words.begin());
      }
    }
    if (name.date.empty() && name.time.empty())
      throw Error("--window \"" + text + "\": give the window's start as check names it: 09:00, \"2026-10-01 09:00\" or 2026-10-01" +
                  std::string(name.stream->group_by.empty() ? "" : ", then its group values"));
    // A group value may hold spaces: the last group takes the words left.
    while (!name.stream->group_by.empty() && words.size() > name.stream->group_by.size()) {
      words[words.size() - 2] += " " + words.back();
      words.pop_back();
    }
    if (words.size() > name.stream->group_by.size())  // no group columns
      throw Error("--window \"" + text + "\": " + name.stream->table + " has no group columns, so nothing follows the window's start");
    name.groups = words;
    return name;
  }

  // The Kafka topic whose records `table` holds: its ingest stream's, through any latest streams.
  std::string topic_of(const std::string& table) const {
    for (const Stream* s : pipeline_.in_dependency_order()) {
      if (s->table != table) continue;
      if (s->kind != StreamKind::Ingest) return topic_of(s->from);
      const Source* source = pipeline_.find_source(s->source);
      return records_of(source);
    }
    return "";
  }

  // The SQL condition that finds the request's records in `table` (bronze or its quarantine);
  // none when the table cannot hold them (a field it does not have).
  std::optional<std::string> match_condition(const WhyRequest& request, const Stream& ingest,
                                             const std::vector<delta::Column>& columns, bool quarantine,
                                             std::vector<std::string>& unknown_fields) {
    if (request.position)
      return "\"partition\" = " + std::to_string(request.position->first) + " AND \"offset\" = " +
             std::to_string(request.position->second);
    std::string where = "true";
    for (const auto& [name, value] : request.fields) {
      if (name.empty()) {
        // A bare value: the Kafka key, or the one-column key of a latest stream reading this table.
        std::string any = "key = " + sql::quote_literal(value.value_or(""));
        if (!quarantine)
          for (const Stream* s : pipeline_.in_dependency_order())
            if (s->kind == StreamKind::Latest && s->from == ingest.table && s->key.size() == 1 && delta::has_column(columns, s->key[0]))
              any += " OR " + same_value(columns, s->key[0], value);
        where += " AND (" + any + ")";
      } else if (delta::has_column(columns, name)) {
        where += " AND " + same_value(columns, name, value);
      } else {
        if (!quarantine) unknown_fields.push_back(name);
        return std::nullopt;
      }
    }
    return where;
  }

  // Whether column `name` holds `value`: as the column's type ("22" finds the decimal 22.00, an
  // ISO time a timestamp), or as its text; NULL for none.
  static std::string same_value(const std::vector<delta::Column>& columns, const std::string& name,
                                const std::optional<std::string>& value) {
    if (!value) return q(name) + " IS NULL";
    std::string typed;
    for (const auto& c : columns)
      if (c.name == name) typed = " OR " + q(name) + " = TRY_CAST(" + sql::quote_literal(*value) + " AS " + delta::duckdb_type_of(c.type) + ")";
    return "(" + q(name) + "::VARCHAR = " + sql::quote_literal(*value) + typed + ")";
  }

  // The record's row in `table` as a relation.
  std::string record_in(const std::string& table, const std::string& p, const std::string& o) {
    return "(SELECT * FROM " + q(table) + " WHERE \"partition\" = " + p + " AND \"offset\" = " + o + ")";
  }

  // Whether `table` holds the record at partition p, offset o (a table that keeps no positions
  // holds none that why can name).
  bool holds(const std::string& table, const std::string& p, const std::string& o) {
    if (!snapshots_.count(table)) return false;
    const auto& columns = snapshots_.at(table).metadata.schema;
    if (!delta::has_column(columns, "partition") || !delta::has_column(columns, "offset")) return false;
    return con_.scalar_int("SELECT count(*) FROM " + record_in(table, p, o)) > 0;
  }

  void trace(const Stream& ingest, const std::string& p, const std::string& o, int64_t batch, RecordTrail& trail) {
    const std::string& bronze = ingest.table;
    std::optional<int64_t> bronze_version = version_of_batch(pipeline_.table_path(bronze), batch, bronze_logs_[bronze]);
    trail.steps.push_back({bronze, "written",
                           "by batch " + std::to_string(batch) + " of " + ingest.name +
                               (bronze_version ? ", at version " + std::to_string(*bronze_version) : " (its commit has left the log)")});
    std::set<std::string> reached{bronze};  // tables the trail went through
    for (const Stream* s : pipeline_.in_dependency_order()) {
      if (s->kind == StreamKind::Ingest || !reached.count(s->from)) continue;
      reached.insert(s->table);
      if (s->read != SourceRead::Appends) {
        trail.steps.push_back({s->table, "not traced",
                               s->name + " reads " + what_is_read(*s) + ", which why does not follow; lakestream check verifies " + s->table});
        continue;
      }
      if (!holds(s->from, p, o)) {
        trail.steps.push_back({s->table, "not read", "it is not in " + s->from + " (above), which " + s->name + " reads"});
        continue;
      }
      if (s->kind == StreamKind::Latest) trace_latest(*s, p, o, s->from == bronze ? bronze_version : std::nullopt, trail);
      else trace_window(*s, p, o, s->from == bronze ? std::optional<int64_t>(batch) : std::nullopt, trail);
    }
  }

  void trace_latest(const Stream& s, const std::string& p, const std::string& o, std::optional<int64_t> bronze_version,
                    RecordTrail& trail) {
    if (!snapshots_.count(s.table)) {
      trail.steps.push_back({s.table, "waiting", s.name + " has not written " + s.table + " yet"});
      return;
    }
    if (bronze_version) {
      if (!version_read_.count(s.name)) version_read_[s.name] = source_version_read(pipeline_.table_path(s.table));
      const auto& read = version_read_.at(s.name);
      if (read && *read < *bronze_version) {
        trail.steps.push_back({s.table, "waiting", s.name + " has read " + s.from + " up to version " + std::to_string(*read) +
                                                       "; this record came in version " + std::to_string(*bronze_version)});
        return;
      }
    }
    const auto& columns = snapshots_.at(s.table).metadata.schema;
    const auto& source_columns = snapshots_.at(s.from).metadata.schema;
    std::string record = record_in(s.from, p, o);
    std::string on = "true";
    for (const auto& k : s.key) on += " AND t." + q(k) + " IS NOT DISTINCT FROM r." + q(k);
    std::string same_event = "true";
    for (const auto& c : columns)
      if (!is_lineage_column(c.name) && delta::has_column(source_columns, c.name))
        same_event += " AND t." + q(c.name) + " IS NOT DISTINCT FROM r." + q(c.name);
    const bool positions = delta::has_column(columns, "partition") && delta::has_column(columns, "offset");
    std::string ob = q(s.order_by);
    bool is_delete = !s.deletes.empty() && con_.scalar("SELECT (" + s.deletes + ")::VARCHAR FROM " + record) == "true";
    sql::Rows rows = con_.query(
        "SELECT " + std::string(positions ? "t.\"partition\"::VARCHAR AS p, t.\"offset\"::VARCHAR AS o" : "NULL AS p, NULL AS o") +
        ", (" + same_event + ") AS same_event, coalesce(t." + ob + " > r." + ob + ", t." + ob + " IS NOT NULL AND r." + ob +
        " IS NULL) AS newer, t." + ob + " IS NOT DISTINCT FROM r." + ob + " AS same_order, t." + ob + "::VARCHAR AS t_order FROM " +
        q(s.table) + " t JOIN " + record + " r ON " + on);
    if (rows.size() == 0) {
      if (is_delete) {
        trail.steps.push_back({s.table, "deleted", "it is a delete of its key (" + s.deletes + "), and " + s.table + " has no row for it"});
        return;
      }
      std::string deleted = s.deleted_table();
      if (!deleted.empty() && snapshots_.count(deleted)) {
        sql::Rows by = con_.query("SELECT t.\"partition\"::VARCHAR AS p, t.\"offset\"::VARCHAR AS o FROM " + q(deleted) +
                                  " t JOIN " + record + " r ON " + on);
        if (by.size() > 0) {
          trail.steps.push_back({s.table, "deleted", "its key was deleted by " + position_text(by.text(0, "p"), by.text(0, "o"))});
          return;
        }
      }
      trail.steps.push_back({s.table, "PROBLEM", s.table + " has no row for its key; run lakestream check"});
      return;
    }
    auto rp = rows.at(0, "p"), ro = rows.at(0, "o");
    if (positions && rp == p && ro == o) {
      trail.steps.push_back({s.table, "current", "it is the row of its " + s.entity});
      return;
    }
    if (!positions && rows.text(0, "same_event") == "true") {
      trail.steps.push_back({s.table, "current", "the row of its " + s.entity + " holds what it says"});
      return;
    }
    std::string by = positions ? "by " + position_text(rp.value_or("?"), ro.value_or("?")) : "by another record";
    std::string rule;
    if (rows.text(0, "same_event") == "true") rule = "an identical copy of it at a later partition and offset (the newest copy is the row)";
    else if (rows.text(0, "newer") == "true") rule = "a newer " + s.order_by + " (" + rows.at(0, "t_order").value_or("NULL") + ")";
    else if (rows.text(0, "same_order") == "true") rule = "the same " + s.order_by + "; the later partition and offset win";
    else rule = "a change read after it (the row's " + s.order_by + " is " + rows.at(0, "t_order").value_or("NULL") + ")";
    trail.steps.push_back({s.table, is_delete ? "deleted" : "superseded", by + ": " + rule});
  }

  // The copies and the counted events of a window stream, made once per stream; returns the
  // suffix of their temporary tables' names.
  const std::string& prepare_window(const Stream& s, const WindowProgress& progress) {
    if (copies_.count(s.name)) return copies_.at(s.name);
    MetWatermarks met{progress.watermark_history, progress.watermark_us};
    const auto& source_columns = snapshots_.at(s.from).metadata.schema;
    std::string suffix = std::to_string(copies_.size() + 1);
    create_window_copies(con_, s, source_columns, q(s.from), met, "why_copies" + suffix);
    // With dedup, the copies the stream's dedup state let through; without, every copy on time
    // (an exact resend is counted again, as Spark counts it: check calls that a PROBLEM).
    if (s.dedup.empty())
      con_.exec("CREATE TEMP TABLE why_counted" + suffix + " AS SELECT * FROM why_copies" + suffix + " WHERE NOT _late");
    else
      create_window_events(con_, s, source_columns, "why_copies" + suffix, "NOT _late", "why_counted" + suffix);
    prepare_recount(s, source_columns, suffix);
    return copies_[s.name] = suffix;
  }

  // The written windows whose values are the batch recount of all their events, late ones too
  // (what `lakestream recount` writes), with the version that wrote each: temp table
  // why_recounted<suffix>, and why_all<suffix>, the events the recount counts. None when the
  // table is not written or lacks an aggregate's column.
  void prepare_recount(const Stream& s, const std::vector<delta::Column>& source_columns, const std::string& suffix) {
    if (!snapshots_.count(s.table)) return;
    const delta::Snapshot& gold = snapshots_.at(s.table);
    std::vector<std::string> types = aggregate_types(s, gold.metadata.schema);
    for (const auto& t : types)
      if (t.empty()) return;
    create_window_events(con_, s, source_columns, "why_copies" + suffix, "true", "why_all" + suffix);
    con_.exec("CREATE TEMP TABLE why_recount" + suffix + " AS SELECT " + window_key_sql(s) + ", " + window_aggregates_sql(s, types) +
              " FROM why_all" + suffix + " GROUP BY " + window_key_sql(s));
    std::string columns = q(s.window_column) + " AS ws, _file_version";
    std::string on = "g.ws = r.ws";
    for (const auto& g : s.group_by) {
      columns += ", " + q(g);
      on += " AND g." + q(g) + " IS NOT DISTINCT FROM r." + q(g);
    }
    for (size_t i = 0; i < s.aggregates.size(); i++) {
      columns += ", " + q(s.aggregates[i].name);
      on += " AND " + same_aggregate_sql(s, i, types[i], "g", "r");
    }
    con_.exec("CREATE TEMP TABLE why_recounted" + suffix + " AS SELECT " + window_key_sql(s, "r") +
              ", g._file_version AS _version FROM (SELECT " + columns + " FROM (" + delta::scan_sql(gold, true) + ")) g JOIN why_recount" +
              suffix + " r ON " + on);
    recounts_.insert(suffix);
  }

  // A record the stream did not count (`not_counted` says how) that is in its window all the same:
  // the written window's values are the recount of its events, this one included.
  std::optional<TrailStep> recounted(const Stream& s, const std::string& suffix, const std::string& at, const std::string& not_counted) {
    if (!recounts_.count(suffix)) return std::nullopt;
    std::string same = "w.ws = r.ws";
    for (const auto& g : s.group_by) same += " AND w." + q(g) + " IS NOT DISTINCT FROM r." + q(g);
    sql::Rows rows = con_.query("SELECT w._version::VARCHAR AS v, strftime(r.ws, '%Y-%m-%d %H:%M') AS label FROM why_recounted" + suffix +
                                " w, (SELECT * FROM why_all" + suffix + at + ") r WHERE " + same);
    if (rows.size() == 0) return std::nullopt;
    return TrailStep{s.table, "recounted",
                     not_counted + ", but the " + window_noun(s.window_us) + " " + rows.text(0, "label") +
                         " as written counts it: its values are the recount of all its events (lakestream recount), written at version " +
                         rows.text(0, "v")};
  }

  void trace_window(const Stream& s, const std::string& p, const std::string& o, std::optional<int64_t> source_batch,
                    RecordTrail& trail) {
    if (!progress_.count(s.name)) progress_[s.name] = read_window_progress(pipeline_, s);
    const auto& progress = progress_.at(s.name);
    if (!progress || progress->last_batch < 0) {
      trail.steps.push_back({s.table, "waiting", s.name + " has not run yet"});
      return;
    }
    if (source_batch && *source_batch > progress->source_max_batch_id) {
      trail.steps.push_back({s.table, "not read", s.name + " has read " + s.from + " up to batch " +
                                                      std::to_string(progress->source_max_batch_id) + "; this record is in batch " +
                                                      std::to_string(*source_batch)});
      return;
    }
    const auto& source_columns = snapshots_.at(s.from).metadata.schema;
    if (!delta::has_column(source_columns, "partition") || !delta::has_column(source_columns, "offset")) {
      trail.steps.push_back({s.table, "not read", s.from + " keeps no partition and offset, so its records cannot be traced"});
      return;
    }
    const std::string& suffix = prepare_window(s, *progress);
    std::string copies = "why_copies" + suffix, counted = "why_counted" + suffix;
    std::string noun = window_noun(s.window_us);
    std::string at = " WHERE _position = [" + p + ", " + o + "]";
    sql::Rows copy = con_.query("SELECT _late, _met, _batch, epoch_us(ws) AS ws_us, strftime(ws, '%Y-%m-%d %H:%M') AS label, epoch_us(" +
                                q(s.event_time) + ") AS t FROM " + copies + at);
    if (copy.size() == 0) {
      // The filter comes first, as in the stream.
      bool passes = s.filter.empty() ||
                    con_.scalar("SELECT coalesce((" + s.filter + "), false)::VARCHAR FROM " + record_in(s.from, p, o)) == "true";
      if (passes) trail.steps.push_back({s.table, "no time", "its " + s.event_time + " is NULL, so it belongs to no window"});
      else trail.steps.push_back({s.table, "filtered", "the stream's filter (" + s.filter + ") is not true for it"});
      return;
    }
    std::string label = copy.text(0, "label");
    std::string batch = copy.at(0, "_batch").value_or("?");
    int64_t met = std::stoll(copy.text(0, "_met"));
    int64_t ws = std::stoll(copy.text(0, "ws_us"));
    if (copy.text(0, "_late") == "true") {
      if (auto step = recounted(s, suffix, at, "late for " + s.name)) {
        trail.steps.push_back(*step);
        return;
      }
      if (s.dedup.empty())
        trail.steps.push_back({s.table, "late", "the watermark was " + utc_text(met) + " when " + s.name + " read its batch " + batch +
                                                    "; its " + noun + " " + label + " had ended at " + utc_text(ws + s.window_us)});
      else
        trail.steps.push_back({s.table, "late", "its " + s.event_time + " " + utc_text(std::stoll(copy.text(0, "t"))) +
                                                    " was not after the watermark " + utc_text(met) + " when " + s.name +
                                                    " read its batch " + batch});
      return;
    }
    if (con_.scalar_int("SELECT count(*) FROM " + counted + at) == 0) {  // only with dedup
      if (auto step = recounted(s, suffix, at, "not counted by " + s.name + " (a copy of its dedup keys was)")) {
        trail.steps.push_back(*step);
        return;
      }
      std::string same;
      for (const auto& d : s.dedup) same += " AND c." + q(d) + " IS NOT DISTINCT FROM r." + q(d);
      sql::Rows first = con_.query("SELECT c._position[1]::VARCHAR AS p, c._position[2]::VARCHAR AS o FROM " + counted +
                                   " c, (SELECT * FROM " + copies + at + ") r WHERE true" + same +
                                   " AND (c._batch < r._batch OR (c._batch = r._batch AND c._position < r._position)) ORDER BY c._batch DESC, c._position DESC LIMIT 1");
      std::string of = first.size() ? position_text(first.text(0, "p"), first.text(0, "o")) : "a copy counted before it";
      trail.steps.push_back({s.table, "duplicate", "a copy of " + of + " (the same dedup keys, within the watermark), counted in its place"});
      return;
    }
    // Counted: in which window and group, and whether the table has that window yet.
    std::string group_text, same_group;
    for (const auto& g : s.group_by) {
      group_text += " " + con_.scalar("SELECT coalesce(" + q(g) + "::VARCHAR, 'NULL') FROM " + copies + at).value_or("NULL");
      same_group += " AND g." + q(g) + " IS NOT DISTINCT FROM r." + q(g);
    }
    std::string window = noun + " " + label + group_text;
    if (!snapshots_.count(s.table)) {
      trail.steps.push_back({s.table, "waiting", "counted in the " + window + ", which is not written yet: " + s.table + " does not exist yet"});
      return;
    }
    const delta::Snapshot& gold = snapshots_.at(s.table);
    sql::Rows written = con_.query("SELECT g._file_version::VARCHAR AS v FROM (" + delta::scan_sql(gold, true) + ") g, (SELECT * FROM " +
                                   copies + at + ") r WHERE g." + q(s.window_column) + " = r.ws" + same_group);
    if (written.size() > 0) {
      trail.steps.push_back({s.table, "counted", "in the " + window + ", written at version " + written.text(0, "v")});
    } else if (ws + s.window_us > progress->watermark_us) {
      trail.steps.push_back({s.table, "waiting", "counted in the " + window + ", which is not written yet: the watermark (" +
                                                     utc_text(progress->watermark_us) + ") has not passed its end (" +
                                                     utc_text(ws + s.window_us) + ")"});
    } else {
      trail.steps.push_back({s.table, "PROBLEM", "counted in the " + window + ", which has closed but is not in " + s.table +
                                                     "; run lakestream check"});
    }
  }

  const Pipeline& pipeline_;
  sql::Database db_;
  sql::Connection con_;
  std::map<std::string, delta::Snapshot> snapshots_;
  // Read once per table or stream, not per record traced:
  std::map<std::string, BronzeLog> bronze_logs_;                   // bronze table -> what is read of its log
  std::map<std::string, std::optional<int64_t>> version_read_;        // latest stream -> source version read
  std::map<std::string, std::optional<WindowProgress>> progress_;     // window stream -> its progress
  std::map<std::string, std::string> copies_;                         // window stream -> its tables' suffix
  std::set<std::string> recounts_;                                    // suffixes with why_recounted tables
};

}  // namespace

WhyRequest parse_why_request(const std::vector<std::string>& arguments, const std::string& table, const std::string& event,
                             const std::string& window) {
  const std::string usage =
      "; give a position (PARTITION:OFFSET, e.g. 3:1042), field values (order_id=1006 status=placed), a key (1006), "
      "--event '{\"order_id\": 1006}', or a window (--window \"hourly_sales 09:00\")";
  WhyRequest request;
  request.table = table;
  if (!window.empty()) {
    if (!arguments.empty() || !event.empty() || !table.empty())
      throw Error("--window lists the records of one window: give it alone, without records, --event or --table");
    request.window = window;
    return request;
  }
  if (arguments.empty() && event.empty()) throw Error("which record?" + usage);
  if (!event.empty()) {
    auto object = nlohmann::json::parse(event, nullptr, false);
    if (object.is_discarded() || !object.is_object() || object.empty())
      throw Error("--event '" + event + "' is not a JSON object with fields" + usage);
    for (const auto& [name, value] : object.items()) {
      if (value.is_object() || value.is_array())
        throw Error("--event: field " + name + " holds " + std::string(value.is_object() ? "an object" : "a list") +
                    "; match scalar fields only" + usage);
      if (value.is_null()) request.fields.emplace_back(name, std::nullopt);
      else request.fields.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  for (const auto& argument : arguments) {
    auto colon = argument.find(':');
    bool digits_around = colon != std::string::npos && colon > 0 && colon + 1 < argument.size() &&
                         argument.find_first_not_of("0123456789") == colon &&
                         argument.find_first_not_of("0123456789", colon + 1) == std::string::npos;
    if (digits_around && argument.find('=') == std::string::npos) {
      if (arguments.size() > 1 || !event.empty())
        throw Error("a position (" + argument + ") names one record: give it alone" + usage);
      try {
        request.position = {std::stoi(argument.substr(0, colon)), std::stoll(argument.substr(colon + 1))};
      } catch (const std::exception&) {
        throw Error("'" + argument + "' is not a position" + usage);
      }
      return request;
    }
    auto equals = argument.find('=');
    if (equals == 0) throw Error("'" + argument + "' has no column name before '='" + usage);
    if (equals == std::string::npos) request.fields.emplace_back("", argument);
    else request.fields.emplace_back(argument.substr(0, equals), argument.substr(equals + 1));
  }
  return request;
}

WhyAnswer why(const Pipeline& pipeline, const WhyRequest& request) {
  Tracer tracer(pipeline);
  return request.window.empty() ? tracer.run(request) : tracer.run_window(request);
}

std::string format_why(const WhyAnswer& answer) {
  std::string out;
  if (!answer.window.empty()) {
    // "hourly_sales, the hour 2026-10-01 09:00: 4 records, 3 counted, 1 late"
    out = answer.window;
    if (!answer.trails.empty()) {
      out += ": " + count_of(static_cast<int64_t>(answer.trails.size()) + answer.more, "records");
      for (const auto& [verdict, n] : answer.verdicts) out += ", " + std::to_string(n) + " " + verdict;
      if (answer.more > 0) out += " (of the " + std::to_string(answer.trails.size()) + " shown)";
    }
    out += "\n";
  } else if (answer.trails.empty()) {
    return "no record of bronze or its quarantine matches\n";
  }
  for (const auto& trail : answer.trails) {
    out += trail.topic + " " + position_text(std::to_string(trail.partition), std::to_string(trail.offset)) +
           (trail.key ? ", key " + *trail.key : ", no key") + (trail.timestamp.empty() ? "" : ", sent " + trail.timestamp) + "\n";
    for (const auto& step : trail.steps) {
      std::string verdict = step.verdict;
      verdict.resize(std::max<size_t>(verdict.size() + 1, 12), ' ');
      out += "  " + verdict + step.table + ": " + step.text + "\n";
    }
  }
  if (answer.more > 0)
    out += "... and " + std::to_string(answer.more) + " more matching record" + (answer.more == 1 ? "" : "s") +
           "; name one by its position (PARTITION:OFFSET), or raise --limit\n";
  return out;
}

namespace {

nlohmann::json trail_json(const RecordTrail& trail) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : trail.steps) steps.push_back({{"table", step.table}, {"verdict", step.verdict}, {"why", step.text}});
  return {{"topic", trail.topic}, {"partition", trail.partition}, {"offset", trail.offset},
          {"timestamp", trail.timestamp.empty() ? nlohmann::json(nullptr) : nlohmann::json(trail.timestamp)},
          {"key", trail.key ? nlohmann::json(*trail.key) : nlohmann::json(nullptr)}, {"steps", steps}};
}

nlohmann::json verdicts_json(const WhyAnswer& answer) {
  nlohmann::json verdicts = nlohmann::json::object();
  for (const auto& [verdict, n] : answer.verdicts) verdicts[verdict] = n;
  return verdicts;
}

}  // namespace

std::string why_json_lines(const WhyAnswer& answer) {
  std::string out;
  for (const auto& trail : answer.trails) out += trail_json(trail).dump() + "\n";
  if (answer.more > 0) out += nlohmann::json{{"more", answer.more}}.dump() + "\n";
  if (!answer.window.empty()) out += nlohmann::json{{"window", answer.window}, {"verdicts", verdicts_json(answer)}}.dump() + "\n";
  return out;
}

std::string why_json(const WhyAnswer& answer) {
  nlohmann::json trails = nlohmann::json::array();
  for (const auto& trail : answer.trails) trails.push_back(trail_json(trail));
  nlohmann::json out = {{"trails", trails}, {"more", answer.more}};
  if (!answer.window.empty()) {
    out["window"] = answer.window;
    out["verdicts"] = verdicts_json(answer);
  }
  return out.dump();
}

}  // namespace lakestream
