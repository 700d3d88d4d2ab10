#include "model/case_file.h"

#include <cmath>
#include <stdexcept>

namespace lakestream::model {

namespace {

const std::vector<std::string> kFilters = {"none", "n_above", "g_is_a", "x_not_null", "n_null_or_even", "g_not_b"};

nlohmann::json columns_json(const std::vector<Column>& columns) {
  nlohmann::json out = nlohmann::json::array();
  for (Column c : columns) out.push_back(column_name(c));
  return out;
}

Column column_of(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(Column::gu); i++)
    if (name == column_name(static_cast<Column>(i))) return static_cast<Column>(i);
  throw std::runtime_error("unknown column " + name);
}

std::vector<Column> columns_of(const nlohmann::json& j) {
  std::vector<Column> out;
  for (const auto& name : j) out.push_back(column_of(name.get<std::string>()));
  return out;
}

bool digits(const std::string& s, size_t at, size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t i = at; i < at + n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t days_of(int y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<int64_t> timestamp_of(const std::string& s) {
  int y, mo, d, h, mi, se;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' || !digits(s, 8, 2, d) ||
      s[10] != 'T' || !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se))
    return std::nullopt;
  size_t at = 19;
  int64_t micros = 0;
  if (at < s.size() && s[at] == '.') {
    int f;
    if (!digits(s, at + 1, 6, f)) return std::nullopt;
    micros = f;
    at += 7;
  }
  int64_t zone = 0;
  if (at < s.size() && s[at] == 'Z') {
    at++;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int zh, zm;
    if (!digits(s, at + 1, 2, zh) || s[at + 3] != ':' || !digits(s, at + 4, 2, zm)) return std::nullopt;
    zone = (zh * 60 + zm) * 60LL * (s[at] == '-' ? -1 : 1);
    at += 6;
  }
  if (at != s.size()) return std::nullopt;
  return ((days_of(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) - zone) * 1000000 + micros;
}

}  // namespace

Event event_of(const std::string& value, int partition, bool require_ts) {
  Event e;
  e.value = value;
  e.partition = partition;
  auto doc = nlohmann::json::parse(value, nullptr, false);
  e.valid = doc.is_object();
  if (!e.valid) return e;
  for (const auto& [name, v] : doc.items()) {
    if (v.is_null()) continue;
    if (name == "id" || name == "n") {
      if (!v.is_number_integer()) e.valid = false;
      else (name == "id" ? e.id : e.n) = v.get<int64_t>();
    } else if (name == "k2" || name == "g") {
      if (!v.is_string()) e.valid = false;
      else (name == "k2" ? e.k2 : e.g) = v.get<std::string>();
    } else if (name == "x") {
      if (!v.is_number()) e.valid = false;
      else e.x = v.get<double>();
    } else if (name == "d") {
      if (!v.is_number()) e.valid = false;
      else e.d_cents = std::llround(v.get<double>() * 100);
    } else if (name == "ts") {
      auto t = v.is_string() ? timestamp_of(v.get<std::string>()) : std::nullopt;
      if (!t) e.valid = false;
      else e.ts_us = *t;
    }
  }
  if (!e.id || (require_ts && !e.ts_us)) e.valid = false;
  return e;
}

nlohmann::json case_to_json(const Case& c) {
  const PipelineSpec& p = c.pipeline;
  nlohmann::json j;
  j["seed"] = c.seed;
  j["partitions"] = p.partitions;
  j["partition_by_dt"] = p.partition_by_dt;
  j["require_ts"] = p.require_ts;
  if (p.latest) j["latest_key"] = columns_json(p.latest->key);
  j["windows"] = nlohmann::json::array();
  for (const auto& w : p.windows) {
    nlohmann::json aggregates = nlohmann::json::array();
    for (const auto& a : w.aggregates) aggregates.push_back(a.function + "(" + (a.argument ? column_name(*a.argument) : "*") + ")");
    j["windows"].push_back({{"name", w.name}, {"filter", kFilters[static_cast<int>(w.filter)]},
                            {"filter_threshold", w.filter_threshold}, {"delay_us", w.delay_us}, {"window_us", w.window_us},
                            {"dedup", columns_json(w.dedup)}, {"group_by", columns_json(w.group_by)},
                            {"output", w.update ? "update" : "append"}, {"aggregates", aggregates}});
  }
  j["steps"] = nlohmann::json::array();
  for (const auto& s : c.steps) {
    nlohmann::json send = nlohmann::json::array();
    for (const auto& e : s.send) send.push_back({{"partition", e.partition}, {"value", e.value}});
    j["steps"].push_back({{"run", s.run}, {"send", send}});
  }
  return j;
}

Case case_from_json(const nlohmann::json& j) {
  Case c;
  c.seed = j.value("seed", uint64_t{0});
  PipelineSpec& p = c.pipeline;
  p.topic = "events";
  p.partitions = j.at("partitions");
  p.partition_by_dt = j.at("partition_by_dt");
  p.require_ts = j.at("require_ts");
  if (j.contains("latest_key")) p.latest = LatestSpec{columns_of(j["latest_key"])};
  for (const auto& jw : j.at("windows")) {
    WindowSpec w;
    w.name = jw.at("name");
    std::string filter = jw.at("filter");
    for (size_t i = 0; i < kFilters.size(); i++)
      if (kFilters[i] == filter) w.filter = static_cast<Filter>(i);
    w.filter_threshold = jw.at("filter_threshold");
    w.delay_us = jw.at("delay_us");
    w.window_us = jw.at("window_us");
    w.dedup = columns_of(jw.at("dedup"));
    w.group_by = columns_of(jw.at("group_by"));
    w.update = jw.at("output") == "update";
    for (const auto& text : jw.at("aggregates")) {
      std::string a = text;
      size_t open = a.find('(');
      std::string argument = a.substr(open + 1, a.size() - open - 2);
      w.aggregates.push_back({a.substr(0, open), argument == "*" ? std::nullopt : std::optional<Column>(column_of(argument))});
    }
    p.windows.push_back(w);
  }
  for (const auto& js : j.at("steps")) {
    Step s;
    s.run = js.at("run");
    for (const auto& je : js.at("send")) s.send.push_back(event_of(je.at("value"), je.at("partition"), p.require_ts));
    c.steps.push_back(s);
  }
  return c;
}

}  // namespace lakestream::model
