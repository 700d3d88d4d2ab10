#include "model/case_driver.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/reference_model.h"
#include "support/test_support.h"

namespace lakestream::model {

namespace {

using testing::CommandResult;

// An idempotent producer that sends each event to the partition the case chose and learns the
// offset Kafka gave it from the delivery report.
class Sender {
 public:
  explicit Sender(const std::string& bootstrap) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "enable.idempotence", "true", err, sizeof err);
    rd_kafka_conf_set(conf, "linger.ms", "1", err, sizeof err);
    rd_kafka_conf_set_dr_msg_cb(conf, &Sender::delivered);
    producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!producer_) error_ = err;
  }
  ~Sender() {
    if (producer_) rd_kafka_destroy(producer_);
  }

  // The records as Kafka holds them; sets error() when any was not delivered.
  std::vector<Record> send(const std::string& topic, const std::vector<Event>& events) {
    std::vector<Record> records(events.size());
    for (size_t i = 0; i < events.size(); i++) {
      records[i].event = events[i];
      records[i].partition = events[i].partition;
      records[i].offset = -1;
      const std::string& v = events[i].value;
      rd_kafka_resp_err_t e = rd_kafka_producev(
          producer_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(events[i].partition),
          RD_KAFKA_V_VALUE(v.empty() ? nullptr : const_cast<char*>(v.data()), v.size()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_OPAQUE(&records[i]), RD_KAFKA_V_END);
      if (e) error_ = rd_kafka_err2str(e);
    }
    if (rd_kafka_flush(producer_, 20000) != RD_KAFKA_RESP_ERR_NO_ERROR) error_ = "flush timed out";
    for (const auto& r : records)
      if (r.offset < 0 && error_.empty()) error_ = "a record was not delivered";
    return records;
  }
  const std::string& error() const { return error_; }

 private:
  static void delivered(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    auto* record = static_cast<Record*>(m->_private);
    if (!m->err) {
      record->offset = m->offset;
      record->partition = m->partition;
    }
  }
  rd_kafka_t* producer_ = nullptr;
  std::string error_;
};

bool is_double(const Aggregate& a) {
  if (!a.argument || a.function == "count") return false;
  if (a.function == "avg") return *a.argument != Column::d;
  return *a.argument == Column::x;
}

std::string q(const std::string& name) { return "\"" + name + "\""; }

// The engine's text of a column, as Value::matches reads it.
std::string text_of(Column c) {
  switch (c) {
    case Column::x: return "printf('%.17g', x)";
    case Column::ts: return "epoch_us(ts)::VARCHAR";
    default: return q(column_name(c)) + "::VARCHAR";
  }
}

struct TableRead {
  std::string name;   // as the model names it: bronze, silver, w0...
  std::string table;  // the Delta table
  size_t key_columns = 0;
  std::string select;  // a list of VARCHARs, the key columns first
};

std::vector<TableRead> tables_of(const PipelineSpec& p) {
  std::vector<TableRead> out;
  std::string fields;
  for (Column c : {Column::id, Column::k2, Column::g, Column::n, Column::x, Column::d, Column::ts}) fields += ", " + text_of(c);
  out.push_back({"bronze", "bronze", 2, "[\"partition\"::VARCHAR, \"offset\"::VARCHAR" + fields + ", " + text_of(Column::dt) + ", gu]"});
  if (p.latest) {
    std::string key;
    for (Column c : p.latest->key) key += text_of(c) + ", ";
    out.push_back({"silver", "silver", p.latest->key.size(), "[" + key + fields.substr(2) + "]"});
  }
  for (const auto& w : p.windows) {
    std::string s = "[epoch_us(window_start)::VARCHAR";
    for (Column c : w.group_by) s += ", " + text_of(c);
    for (size_t i = 0; i < w.aggregates.size(); i++) {
      std::string a = "a" + std::to_string(i);
      s += is_double(w.aggregates[i]) ? ", printf('%.17g', " + a + ")" : ", " + a + "::VARCHAR";
    }
    out.push_back({w.name, w.name + "_t", 1 + w.group_by.size(), s + "]"});
  }
  return out;
}

std::string show_rows(const Rows& rows) {
  std::string s;
  for (const auto& [key, values] : rows) {
    s += "    " + key + " ->";
    for (const auto& v : values) s += " " + v.show();
    s += "\n";
  }
  return s.empty() ? "    (no rows)\n" : s;
}

std::string show_actual(const std::map<std::string, std::vector<std::optional<std::string>>>& rows) {
  std::string s;
  for (const auto& [key, values] : rows) {
    s += "    " + key + " ->";
    for (const auto& v : values) s += " " + v.value_or("NULL");
    s += "\n";
  }
  return s.empty() ? "    (no rows)\n" : s;
}

class CasePlay {
 public:
  CasePlay(EmbeddedBroker& broker, const Case& c) : broker_(broker), case_(c), model_(c.pipeline) {
    static int topics = 0;
    case_.pipeline.topic = "model" + std::to_string(topics++);
    broker_.create_topic({case_.pipeline.topic, case_.pipeline.partitions});
    testing::write_text(dir_ / "lakestream.toml", pipeline_toml(case_.pipeline, broker_.bootstrap()));
  }

  std::string play(bool check_after_runs, bool compact_after_runs) {
    Sender sender(broker_.bootstrap());
    std::vector<Record> unread;
    int step_number = 0;
    for (const auto& step : case_.steps) {
      step_number++;
      auto sent_at = std::chrono::steady_clock::now();
      auto records = sender.send(case_.pipeline.topic, step.send);
      if (std::getenv("LAKESTREAM_MODEL_TIMES"))
        std::fprintf(stderr, "send %.3f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_at).count());
      if (!sender.error().empty()) return "send " + std::to_string(step_number) + " failed: " + sender.error();
      unread.insert(unread.end(), records.begin(), records.end());
      if (!step.run) continue;
      std::string where = "after the run that follows send " + std::to_string(step_number);
      CommandResult run = lakestream("run");
      if (run.exit_code != 0) return where + ": lakestream run exited with " + std::to_string(run.exit_code) + ":\n" + run.err;
      model_.run(unread);
      unread.clear();
      if (std::string diff = compare_tables(); !diff.empty()) return where + ": " + diff;
      if (compact_after_runs) {
        if (std::string failed = compact_every_table(); !failed.empty()) return where + ": " + failed;
        where += " and the compaction of every table";
        if (std::string diff = compare_tables(); !diff.empty()) return where + ": " + diff;
      }
      if (check_after_runs)
        if (std::string diff = compare_check(); !diff.empty()) return where + ": " + diff;
    }
    if (std::string diff = compare_check(); !diff.empty()) return "after the last run: " + diff;
    if (std::string diff = compare_why(); !diff.empty()) return "after the last run: " + diff;
    CommandResult recount = lakestream("recount");
    if (recount.exit_code != 0) return "lakestream recount exited with " + std::to_string(recount.exit_code) + ":\n" + recount.err;
    model_.recount();
    if (std::string diff = compare_tables(); !diff.empty()) return "after recount: " + diff;
    if (std::string diff = compare_check(); !diff.empty()) return "after recount: " + diff;
    if (std::string diff = compare_why(); !diff.empty()) return "after recount: " + diff;
    return "";
  }

 private:
  CommandResult lakestream(const std::string& command, const std::vector<std::string>& args = {}) {
    std::vector<std::string> all{command, "-p", dir_ / "lakestream.toml"};
    all.insert(all.end(), args.begin(), args.end());
    auto started = std::chrono::steady_clock::now();
    CommandResult r = testing::run_lakestream(all, dir_.path());
    if (std::getenv("LAKESTREAM_MODEL_TIMES"))
      std::fprintf(stderr, "%s %.3f s\n%s", command.c_str(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                   command == "run" ? r.out.c_str() : "");
    return r;
  }

  // The position why names after "partition " in `text` ("by partition 2 offset 7: ..."); none
  // when it names none.
  static std::optional<std::pair<int, int64_t>> named_position(const std::string& text) {
    int p = 0;
    long long o = 0;
    size_t at = text.find("partition ");
    if (at == std::string::npos || std::sscanf(text.c_str() + at, "partition %d offset %lld", &p, &o) != 2) return std::nullopt;
    return std::make_pair(p, static_cast<int64_t>(o));
  }

  static std::string position_text(const std::optional<std::pair<int, int64_t>>& at) {
    return at ? std::to_string(at->first) + ":" + std::to_string(at->second) : "none";
  }

  // `lakestream why` for every record of bronze and its quarantine must say what the model did
  // with it: per window stream the verdict (counted, late, duplicate of which copy, recounted,
  // filtered, no time); in silver, current or superseded by the newest copy of its key's newest
  // event, by the rule the times and events give; and each invalid record quarantined.
  std::string compare_why() {
    if ((case_.pipeline.windows.empty() && !case_.pipeline.latest) || !table_exists("bronze")) return "";
    std::vector<std::map<std::pair<int, int64_t>, std::string>> fates;
    for (size_t i = 0; i < case_.pipeline.windows.size(); i++) fates.push_back(model_.fates(i));
    int traced = 0, quarantined = 0;
    for (int partition = 0; partition < case_.pipeline.partitions; partition++) {
      CommandResult r = lakestream("why", {"-f", "json", "--limit", "1000000", "partition=" + std::to_string(partition)});
      if (r.exit_code > 1) return "lakestream why exited with " + std::to_string(r.exit_code) + ":\n" + r.err;
      std::istringstream lines(r.out);
      std::string line;
      while (std::getline(lines, line)) {
        auto trail = nlohmann::json::parse(line);
        if (!trail.contains("steps") || trail["steps"].empty()) continue;
        if (trail["steps"][0]["verdict"] == "quarantined") quarantined++;
        if (trail["steps"][0]["verdict"] != "written") continue;
        traced++;
        int p = trail["partition"].get<int>();
        int64_t o = trail["offset"].get<int64_t>();
        auto step_of = [&](const std::string& table, std::string& why) {
          std::string said = "(no step)";
          for (const auto& step : trail["steps"])
            if (step["table"] == table) {
              said = step["verdict"].get<std::string>();
              why = step["why"].get<std::string>();
            }
          return said;
        };
        auto differs = [&](const std::string& table, const std::string& said, const std::string& why, const std::string& expected) {
          return "lakestream why says the record at partition " + std::to_string(p) + " offset " + std::to_string(o) + " was " +
                 said + " in " + table + " (" + why + "); the model says " + expected + "\n  " + line;
        };
        for (size_t i = 0; i < case_.pipeline.windows.size(); i++) {
          std::string table = case_.pipeline.windows[i].name + "_t", why;
          std::string said = step_of(table, why);
          // Counted in a window not written yet is counted all the same.
          if (said == "waiting" && why.rfind("counted in", 0) == 0) said = "counted";
          auto fate = fates[i].find({p, o});
          std::string expected = fate == fates[i].end() ? "not read" : fate->second;
          if (said != expected) return differs(table, said, why, expected);
          if (said == "duplicate" && named_position(why) != model_.duplicate_of(i, p, o))
            return differs(table, said, why, "a duplicate of " + position_text(model_.duplicate_of(i, p, o)));
        }
        if (auto latest = model_.latest_fate(p, o)) {
          std::string why, said = step_of("silver", why);
          // The row is the newest copy of the key's newest event: the record itself, or a copy
          // of another event or of its own event at a later position.
          std::string rule = latest->same_as_newest ? "an identical copy of it at a later partition and offset"
                             : latest->newer_time   ? "a newer ts"
                                                    : "the same ts; the later partition and offset win";
          if (latest->row == std::make_pair(p, o)) {
            if (said != "current") return differs("silver", said, why, "current (it is its key's newest copy of its newest event)");
          } else if (said != "superseded" || named_position(why) != latest->row || why.find(rule) == std::string::npos) {
            return differs("silver", said, why, "superseded by " + position_text(latest->row) + ", by " + rule);
          }
        }
      }
    }
    if (traced != static_cast<int>(model_.bronze().size()))
      return "lakestream why traced " + std::to_string(traced) + " bronze records; the model's bronze has " +
             std::to_string(model_.bronze().size());
    if (quarantined != model_.quarantined())
      return "lakestream why found " + std::to_string(quarantined) + " records quarantined; the model quarantined " +
             std::to_string(model_.quarantined());
    return "";
  }

  std::string compact_every_table() {
    for (const auto& t : tables_of(case_.pipeline)) {
      if (!table_exists(t.table)) continue;
      CommandResult optimize = lakestream("optimize", {t.table});
      if (optimize.exit_code != 0)
        return "lakestream optimize " + t.table + " exited with " + std::to_string(optimize.exit_code) + ":\n" + optimize.err;
    }
    return "";
  }

  bool table_exists(const std::string& table) { return std::filesystem::exists(dir_ / ("lake/" + table + "/_delta_log")); }

  std::string compare_tables() {
    std::string sql;
    auto tables = tables_of(case_.pipeline);
    for (const auto& t : tables) {
      if (!table_exists(t.table)) continue;
      sql += (sql.empty() ? "" : " UNION ALL ") + ("SELECT '" + t.name + "' AS t, " + t.select + " AS j FROM " + q(t.table));
    }
    if (table_exists("bronze_quarantine"))
      sql += (sql.empty() ? "" : " UNION ALL ") + std::string("SELECT 'quarantine', [count(*)::VARCHAR] FROM bronze_quarantine");
    std::map<std::string, std::map<std::string, std::vector<std::optional<std::string>>>> actual;
    int quarantined = 0;
    if (!sql.empty()) {
      CommandResult r = lakestream("query", {"--format", "json", sql});
      if (r.exit_code != 0) return "lakestream query failed: " + r.err;
      std::istringstream lines(r.out);
      std::string line;
      while (std::getline(lines, line)) {
        if (line.empty()) continue;
        auto row = nlohmann::json::parse(line);
        std::string table = row["t"];
        std::vector<std::optional<std::string>> values;
        for (const auto& v : row["j"]) values.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>()));
        if (table == "quarantine") {
          quarantined = std::stoi(*values[0]);
          continue;
        }
        size_t keys = 0;
        for (const auto& t : tables) if (t.name == table) keys = t.key_columns;
        std::vector<std::optional<std::string>> key(values.begin(), values.begin() + keys);
        std::string key_text = ReferenceModel::key_text(key);
        if (actual[table].count(key_text)) return "table " + table + " has two rows for the key " + key_text;
        actual[table][key_text] = std::vector<std::optional<std::string>>(values.begin() + keys, values.end());
      }
    }
    if (quarantined != model_.quarantined())
      return "the quarantine has " + std::to_string(quarantined) + " records; the model says " + std::to_string(model_.quarantined());
    for (size_t i = 0; i < tables.size(); i++) {
      const auto& t = tables[i];
      Rows expected = t.name == "bronze" ? model_.bronze() : t.name == "silver" ? model_.silver() : model_.gold(i - (case_.pipeline.latest ? 2 : 1));
      const auto& got = actual[t.name];
      bool same = expected.size() == got.size();
      for (const auto& [key, values] : expected) {
        auto found = got.find(key);
        if (found == got.end() || found->second.size() != values.size()) { same = false; continue; }
        for (size_t v = 0; v < values.size(); v++) same = same && values[v].matches(found->second[v]);
      }
      if (!same)
        return "table " + t.table + " differs from the model.\n  lakestream has:\n" + show_actual(got) + "  the model has:\n" + show_rows(expected);
    }
    return "";
  }

  std::string compare_check() {
    CommandResult r = lakestream("check");
    CheckVerdicts got;
    int problems = 0;
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
      std::string verdict = line.substr(0, line.find(' '));
      size_t at = line.find_first_not_of(' ', verdict.size());
      std::string message = at == std::string::npos ? "" : line.substr(at);
      if (verdict == "PROBLEM" || verdict == "error") problems++;
      // A window's line starts with its time, maybe after its table's name; a window table
      // with nothing written yet gets one line that starts with its name.
      bool gold_named = false;
      for (const auto& w : case_.pipeline.windows) {
        std::string table = w.name + "_t";
        bool named = message.rfind(table, 0) == 0 && message.size() > table.size() &&
                     (message[table.size()] == ' ' || message[table.size()] == ':');
        if (!named) continue;
        size_t after = message.find_first_not_of(": ", table.size());
        message = after == std::string::npos ? "" : message.substr(after);
        gold_named = true;
      }
      if (gold_named && verdict == "waiting" && message.rfind("is not written yet", 0) == 0) got.unwritten_tables++;
      if (message.empty() || !std::isdigit(static_cast<unsigned char>(message[0]))) continue;  // not a window
      if (verdict == "ok") got.ok++;
      else if (verdict == "late") got.late++;
      else if (verdict == "waiting") got.waiting++;
      else if (verdict == "PROBLEM") got.problem++;
    }
    CheckVerdicts expected = model_.check();
    int expected_exit = expected.problem > 0 ? 1 : 0;
    if (!(got == expected) || problems != expected.problem || r.exit_code != expected_exit)
      return "check's window lines say " + got.show() + " (exit " + std::to_string(r.exit_code) + "); the model says " +
             expected.show() + " (exit " + std::to_string(expected_exit) + ").\n  check printed:\n" + r.out + r.err;
    return "";
  }

  EmbeddedBroker& broker_;
  Case case_;
  ReferenceModel model_;
  testing::TempDir dir_;
};

}  // namespace

EmbeddedBroker& shared_broker() {
  static EmbeddedBroker broker({});
  return broker;
}

CaseOutcome play_case(EmbeddedBroker& broker, const Case& c, bool check_after_runs, bool compact_after_runs) {
  auto started = std::chrono::steady_clock::now();
  CaseOutcome outcome;
  outcome.failure = CasePlay(broker, c).play(check_after_runs, compact_after_runs);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

Case shrink_case(EmbeddedBroker& broker, const Case& failing, const std::string& failure, bool compact_after_runs) {
  Case best = failing;
  // The same kind of failure: its words, without the figures and the rows.
  auto kind_of = [](const std::string& failure) {
    std::string kind;
    for (char ch : failure.substr(0, failure.find('\n')))
      if (!std::isdigit(static_cast<unsigned char>(ch))) kind += ch;
    return kind.substr(kind.find(": ") == std::string::npos ? 0 : kind.find(": "));
  };
  std::string kind = kind_of(failure);
  auto still_fails = [&](const Case& c) {
    std::string failure = play_case(broker, c, false, compact_after_runs).failure;
    return !failure.empty() && kind_of(failure) == kind;
  };
  int budget = 40;  // plays; a shrink is for reading, not for minimality
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    for (size_t w = 0; best.pipeline.windows.size() > (best.pipeline.latest ? 0u : 1u) && w < best.pipeline.windows.size() && budget > 0; w++) {
      Case c = best;
      c.pipeline.windows.erase(c.pipeline.windows.begin() + static_cast<long>(w));
      budget--;
      if (still_fails(c)) { best = c; progress = true; w--; }
    }
    if (best.pipeline.latest && !best.pipeline.windows.empty() && budget-- > 0) {
      Case c = best;
      c.pipeline.latest.reset();
      if (still_fails(c)) { best = c; progress = true; }
    }
    for (size_t s = 0; best.steps.size() > 1 && s < best.steps.size() && budget > 0; s++) {
      Case c = best;
      c.steps.erase(c.steps.begin() + static_cast<long>(s));
      c.steps.back().run = true;
      budget--;
      if (still_fails(c)) { best = c; progress = true; s--; }
    }
    for (size_t s = 0; s < best.steps.size() && budget > 0; s++)
      for (size_t e = 0; e < best.steps[s].send.size() && budget > 0; e++) {
        Case c = best;
        c.steps[s].send.erase(c.steps[s].send.begin() + static_cast<long>(e));
        budget--;
        if (still_fails(c)) { best = c; progress = true; e--; }
      }
  }
  return best;
}

}  // namespace lakestream::model
