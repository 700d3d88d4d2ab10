// The model, event by event. Each step is written as the docs state it; nothing is optimized.
#include "model/reference_model.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <set>

namespace lakestream::model {

namespace {

constexpr int64_t kDayUs = 86400LL * 1000000;

std::string int128_text(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string s;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  }
  return negative ? "-" + s : s;
}

// "-12.3400" as unscaled digits and a scale; false when it is not a plain decimal number.
bool parse_decimal(const std::string& s, __int128& digits, int& scale) {
  digits = 0;
  scale = 0;
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  bool any = false, point = false;
  for (; i < s.size(); i++) {
    if (s[i] == '.' && !point) { point = true; continue; }
    if (s[i] < '0' || s[i] > '9') return false;
    digits = digits * 10 + (s[i] - '0');
    if (point) scale++;
    any = true;
  }
  if (negative) digits = -digits;
  return any;
}

__int128 pow10(int n) {
  __int128 p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

// Spark's ROUND_HALF_UP of numerator / denominator: halves away from zero.
__int128 divide_half_up(__int128 numerator, __int128 denominator) {
  bool negative = (numerator < 0) != (denominator < 0);
  __int128 a = numerator < 0 ? -numerator : numerator, b = denominator < 0 ? -denominator : denominator;
  __int128 q = a / b, r = a % b;
  if (2 * r >= b) q++;
  return negative ? -q : q;
}

bool filter_passes(const WindowSpec& w, const Event& e) {
  switch (w.filter) {
    case Filter::none: return true;
    case Filter::n_above: return e.n && *e.n > w.filter_threshold;
    case Filter::g_is_a: return e.g && *e.g == "a";
    case Filter::x_not_null: return e.x.has_value();
    case Filter::n_null_or_even: return !e.n || *e.n % 2 == 0;
    case Filter::g_not_b: return !e.g || *e.g != "b";
  }
  return false;
}

std::vector<std::optional<std::string>> columns_text(const Event& e, const std::vector<Column>& columns) {
  std::vector<std::optional<std::string>> out;
  for (Column c : columns) out.push_back(column_text(e, c));
  return out;
}

// The event's content: what makes two records the same event (lineage aside).
std::string content_of(const Event& e) {
  return ReferenceModel::key_text(columns_text(e, {Column::id, Column::k2, Column::g, Column::n, Column::x, Column::d, Column::ts}));
}

Value value_of(const Event& e, Column c) {
  switch (c) {
    case Column::id: return e.id ? Value::of_integer(*e.id) : Value::null_of(Value::Kind::integer);
    case Column::n: return e.n ? Value::of_integer(*e.n) : Value::null_of(Value::Kind::integer);
    case Column::x: return e.x ? Value::of_double(*e.x) : Value::null_of(Value::Kind::floating);
    case Column::d: return e.d_cents ? Value::of_decimal(*e.d_cents, 2) : Value::null_of(Value::Kind::decimal, 2);
    case Column::ts: return e.ts_us ? Value::of_integer(*e.ts_us) : Value::null_of(Value::Kind::integer);
    default: return Value::of_text(column_text(e, c));
  }
}

}  // namespace

std::string civil_date(int64_t us) {
  int64_t z = (us >= 0 ? us / kDayUs : (us - kDayUs + 1) / kDayUs) + 719468;  // days since 0000-03-01
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char text[32];  // room for any values the compiler thinks the fields may hold
  std::snprintf(text, sizeof text, "%04" PRId64 "-%02" PRId64 "-%02" PRId64, y, m, d);
  return text;
}

std::optional<std::string> column_text(const Event& e, Column c) {
  auto number = [](const std::optional<int64_t>& v) { return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt; };
  switch (c) {
    case Column::id: return number(e.id);
    case Column::k2: return e.k2;
    case Column::g: return e.g;
    case Column::n: return number(e.n);
    case Column::x: {
      if (!e.x) return std::nullopt;
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", *e.x);
      return std::string(text);
    }
    case Column::d: return e.d_cents ? std::optional<std::string>(Value::of_decimal(*e.d_cents, 2).show()) : std::nullopt;
    case Column::ts: return number(e.ts_us);
    case Column::dt: return e.ts_us ? std::optional<std::string>(civil_date(*e.ts_us)) : std::nullopt;
    case Column::gu: {
      if (!e.g) return std::nullopt;
      std::string upper = *e.g;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      return upper;
    }
  }
  return std::nullopt;
}

std::string Value::show() const {
  if (null) return "NULL";
  switch (kind) {
    case Kind::integer: return int128_text(integer);
    case Kind::decimal: {
      __int128 a = integer < 0 ? -integer : integer;
      std::string whole = int128_text(a / pow10(scale)), fraction = int128_text(a % pow10(scale));
      while (static_cast<int>(fraction.size()) < scale) fraction.insert(fraction.begin(), '0');
      return (integer < 0 ? "-" : "") + whole + (scale > 0 ? "." + fraction : "");
    }
    case Kind::floating: {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", floating);
      return text;
    }
    case Kind::text: return "'" + text + "'";
  }
  return "";
}

bool Value::matches(const std::optional<std::string>& engine) const {
  if (null || !engine) return null && !engine;
  switch (kind) {
    case Kind::text: return *engine == text;
    case Kind::floating: {
      char* end = nullptr;
      double got = std::strtod(engine->c_str(), &end);
      if (end == engine->c_str()) return false;
      return std::fabs(got - floating) <= 1e-9 * std::max({std::fabs(got), std::fabs(floating), 1e-6});
    }
    case Kind::integer:
    case Kind::decimal: {
      __int128 digits;
      int got_scale;
      if (!parse_decimal(*engine, digits, got_scale)) return false;
      int common = std::max(got_scale, scale);
      return digits * pow10(common - got_scale) == integer * pow10(common - scale);
    }
  }
  return false;
}

std::string CheckVerdicts::show() const {
  return std::to_string(ok) + " ok, " + std::to_string(late) + " late, " + std::to_string(waiting) + " waiting, " +
         std::to_string(problem) + " PROBLEM, " + std::to_string(unwritten_tables) + " tables not written yet";
}

std::string ReferenceModel::key_text(const std::vector<std::optional<std::string>>& parts) {
  std::string s;
  for (const auto& p : parts) s += (p ? "=" + *p : std::string("NULL")) + "|";
  return s;
}

ReferenceModel::ReferenceModel(PipelineSpec pipeline) : pipeline_(std::move(pipeline)), windows_(pipeline_.windows.size()) {}

void ReferenceModel::run(const std::vector<Record>& records) {
  std::vector<Record> valid;
  for (const auto& r : records) {
    if (r.event.valid) valid.push_back(r);
    else quarantined_++;
  }
  if (valid.empty()) {
    // Nothing reaches bronze: the window streams have no new version to read. A trailing batch
    // would close nothing the last run did not close already.
    return;
  }
  // Within one batch, rows are in Kafka's order: partition, then offset.
  std::sort(valid.begin(), valid.end(), [](const Record& a, const Record& b) {
    return std::tie(a.partition, a.offset) < std::tie(b.partition, b.offset);
  });
  runs_.push_back(std::move(valid));
  std::vector<const Record*> batch;
  for (const auto& r : runs_.back()) batch.push_back(&r);
  for (size_t i = 0; i < windows_.size(); i++) run_window(i, batch);
}

// One micro-batch of a window stream, then the trailing no-data batch of the run.
void ReferenceModel::run_window(size_t index, const std::vector<const Record*>& batch) {
  const WindowSpec& w = pipeline_.windows[index];
  WindowState& s = windows_[index];
  const int64_t watermark = s.watermark;  // what the previous batch ended with
  s.met.push_back(watermark);
  std::optional<int64_t> newest;
  std::map<std::string, bool> changed;
  for (const Record* r : batch) {
    const Event& e = r->event;
    std::string& fate = s.fates[{r->partition, r->offset}];
    fate = "filtered";
    if (!filter_passes(w, e)) continue;  // the filter comes first: it also decides the watermark
    if (e.ts_us) newest = std::max(newest.value_or(*e.ts_us), *e.ts_us);
    fate = "no time";
    if (!e.ts_us) continue;  // no event time: dropped as late
    int64_t start = (*e.ts_us / w.window_us) * w.window_us;
    fate = "late";
    if (w.dedup.empty() ? start + w.window_us <= watermark : *e.ts_us <= watermark) continue;  // late
    if (!w.dedup.empty()) {
      std::string key = key_text(columns_text(e, w.dedup));
      fate = "duplicate";
      if (s.remembered.count(key)) {  // a duplicate within the watermark
        s.duplicate_of[{r->partition, r->offset}] = s.remembered_copy.at(key);
        continue;
      }
      s.remembered[key] = *e.ts_us;
      s.remembered_copy[key] = {r->partition, r->offset};
    }
    fate = "counted";
    auto groups = columns_text(e, w.group_by);
    std::vector<std::optional<std::string>> parts{std::to_string(start)};
    parts.insert(parts.end(), groups.begin(), groups.end());
    Counted& c = s.open[key_text(parts)];
    c.start = start;
    c.groups = groups;
    c.events.push_back(r);
    changed[key_text(parts)] = true;
  }
  if (w.update)
    for (const auto& [key, _] : changed) s.written[key] = s.open.at(key);
  close_windows(w, s, watermark);
  if (newest) s.watermark = std::max(s.watermark, *newest - w.delay_us);
  // The trailing no-data batch: what the moved watermark closes is written in this run.
  close_windows(w, s, s.watermark);
}

std::optional<std::pair<int, int64_t>> ReferenceModel::duplicate_of(size_t window, int partition, int64_t offset) const {
  auto it = windows_[window].duplicate_of.find({partition, offset});
  if (it == windows_[window].duplicate_of.end()) return std::nullopt;
  return it->second;
}

std::optional<ReferenceModel::LatestFate> ReferenceModel::latest_fate(int partition, int64_t offset) const {
  if (!pipeline_.latest) return std::nullopt;
  const Record* record = nullptr;
  for (const auto& run : runs_)
    for (const auto& r : run)
      if (r.partition == partition && r.offset == offset) record = &r;
  if (!record) return std::nullopt;
  // The newest by (order_by, partition, offset), as silver() picks it.
  std::string key = key_text(columns_text(record->event, pipeline_.latest->key));
  const Record* newest = nullptr;
  for (const auto& run : runs_)
    for (const auto& r : run)
      if (key_text(columns_text(r.event, pipeline_.latest->key)) == key &&
          (!newest || std::tie(*r.event.ts_us, r.partition, r.offset) > std::tie(*newest->event.ts_us, newest->partition, newest->offset)))
        newest = &r;
  LatestFate fate;
  fate.same_as_newest = content_of(record->event) == content_of(newest->event);
  fate.newer_time = *newest->event.ts_us > *record->event.ts_us;
  fate.row = {newest->partition, newest->offset};
  return fate;
}

std::map<std::pair<int, int64_t>, std::string> ReferenceModel::fates(size_t window) const {
  auto fates = windows_[window].fates;
  Rows written = gold(window);
  for (const auto& [key, truth] : recount_of(window)) {
    auto row = written.find(key);
    if (row == written.end()) continue;
    std::vector<Value> values = aggregate(pipeline_.windows[window], truth.events);
    bool same = true;
    for (size_t i = 0; i < values.size(); i++)
      same = same && row->second[i].matches(values[i].null ? std::nullopt : std::optional<std::string>(values[i].show()));
    if (!same) continue;
    for (const Record* r : truth.events) {
      std::string& fate = fates[{r->partition, r->offset}];
      if (fate == "late" || fate == "duplicate") fate = "recounted";
    }
  }
  return fates;
}

void ReferenceModel::close_windows(const WindowSpec& w, WindowState& s, int64_t watermark) {
  for (auto it = s.open.begin(); it != s.open.end();) {
    if (it->second.start + w.window_us <= watermark) {
      if (!w.update) s.written[it->first] = it->second;
      it = s.open.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = s.remembered.begin(); it != s.remembered.end();)
    it = it->second + w.delay_us <= watermark ? s.remembered.erase(it) : std::next(it);
}

std::vector<Value> ReferenceModel::aggregate(const WindowSpec& w, const std::vector<const Record*>& events) const {
  std::vector<Value> out;
  for (const auto& a : w.aggregates) {
    if (!a.argument) {
      out.push_back(Value::of_integer(static_cast<int64_t>(events.size())));
      continue;
    }
    std::vector<Value> values;
    for (const Record* r : events) {
      Value v = value_of(r->event, *a.argument);
      if (!v.null) values.push_back(v);
    }
    Value::Kind kind = value_of(Event{}, *a.argument).kind;
    int scale = *a.argument == Column::d ? 2 : 0;
    if (a.function == "count") {
      out.push_back(Value::of_integer(static_cast<int64_t>(values.size())));
    } else if (values.empty()) {
      Value none = Value::null_of(a.function == "avg" && kind != Value::Kind::decimal ? Value::Kind::floating : kind,
                                  a.function == "avg" && kind == Value::Kind::decimal ? 6 : scale);
      out.push_back(none);
    } else if (a.function == "min" || a.function == "max") {
      Value best = values[0];
      for (const auto& v : values) {
        bool less = kind == Value::Kind::floating ? v.floating < best.floating : v.integer < best.integer;
        bool more = kind == Value::Kind::floating ? v.floating > best.floating : v.integer > best.integer;
        if (a.function == "min" ? less : more) best = v;
      }
      out.push_back(best);
    } else {
      __int128 sum = 0;
      double fsum = 0;
      for (const auto& v : values) {
        sum += v.integer;
        fsum += v.floating;
      }
      __int128 count = static_cast<__int128>(values.size());
      if (a.function == "sum") {
        out.push_back(kind == Value::Kind::floating ? Value::of_double(fsum)
                      : kind == Value::Kind::decimal ? Value::of_decimal(sum, 2)
                                                     : Value::of_integer(sum));
      } else if (kind == Value::Kind::decimal) {
        // Spark: avg of decimal(p,s) is decimal(p+4,s+4), rounded half up.
        out.push_back(Value::of_decimal(divide_half_up(sum * pow10(4), count), 6));
      } else if (kind == Value::Kind::floating) {
        out.push_back(Value::of_double(fsum / static_cast<double>(count)));
      } else {
        out.push_back(Value::of_double(static_cast<double>(sum) / static_cast<double>(count)));
      }
    }
  }
  return out;
}

std::map<std::string, ReferenceModel::Counted> ReferenceModel::recount_of(size_t window, bool on_time) const {
  const WindowSpec& w = pipeline_.windows[window];
  std::set<std::string> contents;
  std::map<std::string, int64_t> counted_at;  // dedup key -> event time of its last counted copy
  std::map<std::string, Counted> out;
  for (size_t run = 0; run < runs_.size(); run++) {
    int64_t met = windows_[window].met.at(run);
    for (const auto& r : runs_[run]) {  // each run is in Kafka's order already
      const Event& e = r.event;
      if (!e.ts_us || !filter_passes(w, e)) continue;
      int64_t start = (*e.ts_us / w.window_us) * w.window_us;
      if (on_time && (w.dedup.empty() ? start + w.window_us <= met : *e.ts_us <= met)) continue;
      // Without dedup an exact resend is the same event; with dedup the key's rule decides, for a
      // resend as for any copy (a resend of a copy the state dropped counts once the key is forgotten).
      if (w.dedup.empty() && !contents.insert(content_of(e)).second) continue;
      if (!w.dedup.empty()) {
        std::string key = key_text(columns_text(e, w.dedup));
        auto last = counted_at.find(key);
        int64_t t = *e.ts_us;
        if (last != counted_at.end() && (last->second + w.delay_us > std::min(met, t) || t == last->second)) continue;
        counted_at[key] = t;
      }
      auto groups = columns_text(e, w.group_by);
      std::vector<std::optional<std::string>> parts{std::to_string(start)};
      parts.insert(parts.end(), groups.begin(), groups.end());
      Counted& c = out[key_text(parts)];
      c.start = start;
      c.groups = groups;
      c.events.push_back(&r);
    }
  }
  return out;
}

void ReferenceModel::recount() {
  for (size_t i = 0; i < windows_.size(); i++) {
    auto truth = recount_of(i);
    const WindowSpec& w = pipeline_.windows[i];
    WindowState& s = windows_[i];
    for (const auto& [key, counted] : s.written)
      if (truth.count(key)) s.recounted[key] = aggregate(w, truth.at(key).events);
    // A closed window never written (all of its events late) is written from the truth too.
    for (const auto& [key, counted] : truth)
      if (!s.written.count(key) && counted.start + w.window_us <= s.watermark) {
        s.written[key] = counted;
        s.recounted[key] = aggregate(w, counted.events);
      }
  }
}

Rows ReferenceModel::bronze() const {
  Rows rows;
  for (const auto& run : runs_)
    for (const auto& r : run) {
      std::vector<Value> v;
      for (Column c : {Column::id, Column::k2, Column::g, Column::n, Column::x, Column::d, Column::ts, Column::dt, Column::gu})
        v.push_back(value_of(r.event, c));
      rows[key_text({std::to_string(r.partition), std::to_string(r.offset)})] = v;
    }
  return rows;
}

Rows ReferenceModel::silver() const {
  Rows rows;
  if (!pipeline_.latest) return rows;
  // The newest by (order_by, partition, offset), whatever the batching.
  std::map<std::string, const Record*> newest;
  for (const auto& run : runs_)
    for (const auto& r : run) {
      const Record*& best = newest[key_text(columns_text(r.event, pipeline_.latest->key))];
      if (!best || std::tie(*r.event.ts_us, r.partition, r.offset) > std::tie(*best->event.ts_us, best->partition, best->offset))
        best = &r;
    }
  for (const auto& [key, r] : newest) {
    std::vector<Value> v;
    for (Column c : {Column::id, Column::k2, Column::g, Column::n, Column::x, Column::d, Column::ts}) v.push_back(value_of(r->event, c));
    rows[key] = v;
  }
  return rows;
}

Rows ReferenceModel::gold(size_t index) const {
  Rows rows;
  for (const auto& [key, counted] : windows_[index].written) {
    auto recounted = windows_[index].recounted.find(key);
    rows[key] = recounted != windows_[index].recounted.end() ? recounted->second : aggregate(pipeline_.windows[index], counted.events);
  }
  return rows;
}

CheckVerdicts ReferenceModel::check() const {
  CheckVerdicts v;
  for (size_t i = 0; i < windows_.size(); i++) {
    const WindowSpec& w = pipeline_.windows[i];
    const WindowState& s = windows_[i];
    auto truth = recount_of(i);
    auto on_time = recount_of(i, true);
    Rows written = gold(i);
    if (written.empty()) {
      v.unwritten_tables++;  // check says so on one line, without windows
      continue;
    }
    std::set<std::string> keys;
    for (const auto& [k, _] : truth) keys.insert(k);
    for (const auto& [k, _] : written) keys.insert(k);
    for (const auto& key : keys) {
      auto t = truth.find(key);
      auto g = written.find(key);
      int64_t start = t != truth.end() ? t->second.start : s.written.at(key).start;
      bool final = start + w.window_us <= s.watermark;
      if (g == written.end()) {
        (final ? v.late : v.waiting)++;
        continue;
      }
      auto equals = [&](const std::vector<const Record*>& events) {
        std::vector<Value> expected = aggregate(w, events);
        bool equal = true;
        for (size_t a = 0; a < expected.size(); a++) equal = equal && expected[a].matches(g->second[a].null ? std::nullopt : std::optional<std::string>(g->second[a].kind == Value::Kind::text ? g->second[a].text : g->second[a].show()));
        return equal;
      };
      // What the stream wrote is what its on-time copies give (a late copy's key counted later
      // in another window, say): late by design, not a fault.
      auto t_on_time = on_time.find(key);
      bool equal_on_time = t_on_time != on_time.end() && !s.recounted.count(key) && equals(t_on_time->second.events);
      if (t == truth.end()) {
        (equal_on_time ? v.late : v.problem)++;
        continue;
      }
      if (equals(t->second.events)) {
        v.ok++;
        continue;
      }
      // Fewer events than the recount, each counted once and each one of its events: the
      // others were dropped by the watermark, by design.
      std::set<std::string> recounted, counted;
      for (const Record* r : t->second.events) recounted.insert(content_of(r->event));
      bool subset = !s.recounted.count(key);
      for (const Record* r : s.written.at(key).events)
        subset = subset && recounted.count(content_of(r->event)) && counted.insert(content_of(r->event)).second;
      if (subset || equal_on_time) v.late++;
      else if (w.update && !final) v.waiting++;
      else v.problem++;
    }
  }
  return v;
}

}  // namespace lakestream::model
