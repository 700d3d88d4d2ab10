// Random pipelines and schedules of sends and runs, deterministic for a seed. Event times follow
// a clock that moves forward by about a window per send; some events are late by design, some
// sit exactly on a window boundary or exactly at the watermark, some are resent.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <set>
#include <sstream>

#include "model/case_file.h"
#include "model/model_case.h"

namespace lakestream::model {

namespace {

constexpr int64_t kSecond = 1000000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;

class Random {
 public:
  explicit Random(uint64_t seed) : rng_(seed) {}
  int below(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(static_cast<int>(v.size()))]; }

 private:
  std::mt19937_64 rng_;
};

std::string duration_text(int64_t us) {
  if (us % kDay == 0 && us > 0) return std::to_string(us / kDay) + (us == kDay ? " day" : " days");
  if (us % kHour == 0 && us > 0) return std::to_string(us / kHour) + (us == kHour ? " hour" : " hours");
  if (us % kMinute == 0 && us > 0) return std::to_string(us / kMinute) + (us == kMinute ? " minute" : " minutes");
  return std::to_string(us / kSecond) + "s";
}

// ISO-8601 as producers write it: Z, +00:00 (Python's isoformat), another zone, microseconds.
std::string timestamp_text(int64_t us, Random& r) {
  int zone_minutes = r.chance(0.2) ? r.pick(std::vector<int>{120, -300, 330}) : 0;
  int64_t local = us + zone_minutes * kMinute;
  time_t seconds = static_cast<time_t>(local / kSecond);
  struct tm t;
  gmtime_r(&seconds, &t);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &t);
  std::string s = text;
  int64_t micros = local % kSecond;
  if (micros != 0 || r.chance(0.2)) {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%06" PRId64, micros);
    s += frac;
  }
  if (zone_minutes != 0) {
    char zone[16];
    int m = std::abs(zone_minutes);
    std::snprintf(zone, sizeof zone, "%c%02d:%02d", zone_minutes < 0 ? '-' : '+', m / 60, m % 60);
    s += zone;
  } else {
    s += r.chance(0.5) ? "Z" : "+00:00";
  }
  return s;
}

std::string json_string(const std::string& s) { return "\"" + s + "\""; }  // generated strings need no escapes

// The event's JSON: fields in schema order; a NULL field is written as null or left out.
std::string event_json(const Event& e, Random& r) {
  std::string out = "{";
  auto field = [&](const char* name, const std::optional<std::string>& value) {
    if (!value && r.chance(0.5)) return;
    if (out.size() > 1) out += ",";
    out += json_string(name) + ":" + (value ? *value : "null");
  };
  auto number = [](const std::optional<int64_t>& v) { return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt; };
  field("id", number(e.id));
  field("k2", e.k2 ? std::optional<std::string>(json_string(*e.k2)) : std::nullopt);
  field("g", e.g ? std::optional<std::string>(json_string(*e.g)) : std::nullopt);
  field("n", number(e.n));
  std::optional<std::string> x;
  if (e.x) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", *e.x);
    x = text;
  }
  field("x", x);
  std::optional<std::string> d;
  if (e.d_cents) {
    char text[64];
    int64_t c = *e.d_cents;
    std::snprintf(text, sizeof text, "%s%lld.%02lld", c < 0 ? "-" : "", std::llabs(c) / 100, std::llabs(c) % 100);
    d = text;
  }
  field("d", d);
  field("ts", e.ts_us ? std::optional<std::string>(json_string(timestamp_text(*e.ts_us, r))) : std::nullopt);
  return out + "}";
}

const std::vector<std::string> kGroupValues = {"a", "b", "B", "", "3f2b8c1e-9d4a-4e6b-a1c7-0d5e9f8a2b6c", "zz top"};
const std::vector<double> kDoubles = {0.1, 0.2, 0.3, -2.5, 1e-3, 12345.678, 1e15, 3.0, 7.25, -0.1};

struct EventClock {
  int64_t now = 0;       // the newest event time so far
  int64_t step = 0;      // how far the clock moves per send
  int64_t delay = 0;     // the first window stream's delay
  int64_t window = 0;    // its window
};

Event fresh_event(Random& r, const EventClock& clock, const PipelineSpec& p, const Coverage& cov) {
  Event e;
  e.id = 1 + r.below(6);
  if (cov.composite_keys || !p.latest) e.k2 = r.chance(0.25) ? std::nullopt : std::optional<std::string>(r.pick(std::vector<std::string>{"p", "q"}));
  else e.k2 = "p";
  e.g = r.chance(0.2) ? std::nullopt : std::optional<std::string>(r.pick(kGroupValues));
  e.n = r.chance(0.2) ? std::nullopt : std::optional<int64_t>(r.below(2001) - 1000);
  e.x = r.chance(0.2) || !cov.doubles ? std::nullopt : std::optional<double>(r.pick(kDoubles));
  e.d_cents = r.chance(0.2) ? std::nullopt : std::optional<int64_t>(r.below(100001) - 20000);
  int64_t t;
  int kind = r.below(20);
  int64_t watermark = clock.now - clock.delay;
  if (kind == 0) t = watermark;                                   // exactly at the watermark
  else if (kind == 1) t = (clock.now / clock.window) * clock.window;  // exactly on a window boundary
  else if (kind == 2) t = watermark - clock.window - r.below(3) * clock.window;  // late by design
  else if (kind == 3) t = watermark + clock.window;               // the end of the next window
  else t = clock.now - static_cast<int64_t>(r.below(1000)) * (clock.delay + clock.window) / 1000;
  if (r.chance(0.15)) t += r.below(999999);  // not a whole second
  e.ts_us = t;
  if (!p.require_ts && r.chance(0.04)) e.ts_us.reset();
  return e;
}

std::vector<Column> some_columns(Random& r, const std::vector<Column>& from, int most) {
  std::vector<Column> out;
  int n = r.below(most + 1);
  for (int i = 0; i < n; i++) {
    Column c = r.pick(from);
    bool seen = false;
    for (Column o : out) seen = seen || o == c;
    if (!seen) out.push_back(c);
  }
  return out;
}

WindowSpec generate_window(Random& r, int index, const Coverage& cov, bool first, int64_t first_window) {
  WindowSpec w;
  w.name = "w" + std::to_string(index);
  w.window_us = first ? first_window : r.pick(std::vector<int64_t>{kMinute, 15 * kMinute, kHour, kDay});
  w.delay_us = r.pick(std::vector<int64_t>{0, 30 * kSecond, kMinute, 10 * kMinute, kHour, 2 * kHour, kDay, 3 * kDay});
  w.filter = static_cast<Filter>(r.below(6));
  w.filter_threshold = r.below(1001) - 500;
  w.update = r.chance(0.5);
  if (cov.group_by) {
    std::vector<Column> groups = {Column::g, Column::k2, Column::gu, Column::dt, Column::n};
    w.group_by = some_columns(r, groups, 2);
    if (!cov.null_groups_update && w.update) w.group_by.clear();
  }
  int dedup = r.below(4);
  if (dedup == 1) w.dedup = {Column::id, Column::k2, Column::g, Column::n, Column::x, Column::d, Column::ts};
  if (dedup == 2 && cov.dedup_subset) w.dedup = r.pick(std::vector<std::vector<Column>>{{Column::id, Column::ts}, {Column::id}, {Column::g, Column::ts}, {Column::id, Column::k2}});
  if (dedup == 3 && cov.dedup_subset) w.dedup = {Column::id, Column::ts};
  w.aggregates.push_back({"count", std::nullopt});
  std::vector<Column> numbers = {Column::n, Column::d};
  if (cov.doubles) numbers.push_back(Column::x);
  int extra = 1 + r.below(3);
  for (int i = 0; i < extra; i++) {
    Aggregate a;
    a.function = r.pick(std::vector<std::string>{"count", "sum", "min", "max", "avg"});
    a.argument = r.pick(numbers);
    if (a.function == "avg" && a.argument == Column::d && !cov.decimal_avg) a.function = "sum";
    w.aggregates.push_back(a);
  }
  return w;
}

}  // namespace

const char* column_name(Column c) {
  static const char* names[] = {"id", "k2", "g", "n", "x", "d", "ts", "dt", "gu"};
  return names[static_cast<int>(c)];
}

std::string filter_sql(Filter f, int64_t threshold) {
  switch (f) {
    case Filter::none: return "";
    case Filter::n_above: return "n > " + std::to_string(threshold);
    case Filter::g_is_a: return "g = 'a'";
    case Filter::x_not_null: return "x IS NOT NULL";
    case Filter::n_null_or_even: return "n IS NULL OR n % 2 = 0";
    case Filter::g_not_b: return "g IS DISTINCT FROM 'b'";
  }
  return "";
}

Coverage coverage_from_env() {
  Coverage c;
  const char* without = std::getenv("LAKESTREAM_MODEL_WITHOUT");
  if (!without) return c;
  std::stringstream in(without);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name == "group_by") c.group_by = false;
    else if (name == "dedup_subset") c.dedup_subset = false;
    else if (name == "doubles") c.doubles = false;
    else if (name == "decimal_avg") c.decimal_avg = false;
    else if (name == "null_groups_update") c.null_groups_update = false;
    else if (name == "silver_ties") c.silver_ties = false;
    else if (name == "composite_keys") c.composite_keys = false;
    else if (name == "bad_records") c.bad_records = false;
    else if (name == "several_windows") c.several_windows = false;
    else if (name == "resends") c.resends = false;
  }
  return c;
}

Case generate_case(uint64_t seed, const Coverage& cov) {
  Random r(seed);
  Case c;
  c.seed = seed;
  PipelineSpec& p = c.pipeline;
  p.topic = "events";
  p.partitions = 1 + r.below(3);
  p.partition_by_dt = r.chance(0.4);
  if (r.chance(0.5)) {
    p.latest = LatestSpec{{Column::id}};
    if (cov.composite_keys && r.chance(0.5)) p.latest->key.push_back(Column::k2);
  }
  p.require_ts = p.latest.has_value() || r.chance(0.3);
  int64_t first_window = r.pick(std::vector<int64_t>{kMinute, 15 * kMinute, kHour, kDay});
  int windows = cov.several_windows ? 1 + r.below(3) : 1;
  for (int i = 0; i < windows; i++) p.windows.push_back(generate_window(r, i, cov, i == 0, first_window));

  EventClock clock;
  clock.window = first_window;
  clock.delay = p.windows[0].delay_us;
  clock.step = std::max<int64_t>(first_window, clock.delay / 2);
  clock.now = 1790812800LL * kSecond + r.below(30) * kDay + r.below(1440) * kMinute;  // October 2026
  std::vector<Event> sent;
  std::set<std::pair<int64_t, int64_t>> silver_times;  // without silver ties: each (id, ts) once
  int steps = 2 + r.below(3);
  for (int s = 0; s < steps; s++) {
    Step step;
    step.run = s == steps - 1 || r.chance(0.75);
    int events = r.chance(0.1) ? 0 : 1 + r.below(8);  // some sends are empty
    for (int i = 0; i < events; i++) {
      if (r.chance(0.5)) clock.now += r.below(1000) * clock.step / 1000;
      Event e;
      int kind = r.below(20);
      if (kind == 0 && cov.bad_records) {
        e.valid = false;
        e.value = r.pick(std::vector<std::string>{"not json", "{\"id\":7,\"n\":\"lots\",\"ts\":\"2026-10-01T09:00:00Z\"}", ""});
      } else if (kind <= 2 && !sent.empty() && cov.resends) {
        e = r.pick(sent);  // the producer sent it again, byte for byte
      } else {
        if (kind <= 4 && !sent.empty()) {
          // Same id, k2 and time, other values: a correction, or the same key sent with other fields.
          e = r.pick(sent);
          e.g = r.chance(0.3) ? std::nullopt : std::optional<std::string>(r.pick(kGroupValues));
          e.n = r.below(2001) - 1000;
        } else {
          e = fresh_event(r, clock, p, cov);
        }
        if (!cov.silver_ties && p.latest && e.ts_us)
          while (!silver_times.insert({e.id.value_or(0), *e.ts_us}).second) ++*e.ts_us;
        e.value = event_json(e, r);
        if (p.require_ts && !e.ts_us) e.valid = false;
      }
      e.partition = r.below(p.partitions);
      if (e.valid) sent.push_back(e);
      step.send.push_back(e);
    }
    c.steps.push_back(step);
  }
  // The model reads each event from its text, as the stream does: what a case file replays.
  for (auto& step : c.steps)
    for (auto& e : step.send) e = event_of(e.value, e.partition, p.require_ts);
  return c;
}

std::string pipeline_toml(const PipelineSpec& p, const std::string& bootstrap) {
  std::ostringstream t;
  auto list = [](const std::vector<Column>& cols) {
    std::string s = "[";
    for (size_t i = 0; i < cols.size(); i++) s += (i ? ", \"" : "\"") + std::string(column_name(cols[i])) + "\"";
    return s + "]";
  };
  t << "[kafka]\nbootstrap = \"" << bootstrap << "\"\n\n";
  t << "[sources.ev]\ntopic = \"" << p.topic << "\"\n";
  t << "required = " << (p.require_ts ? "[\"id\", \"ts\"]" : "[\"id\"]") << "\n";
  t << "[sources.ev.schema]\nid = \"bigint\"\nk2 = \"string\"\ng = \"string\"\nn = \"bigint\"\nx = \"double\"\n"
       "d = \"decimal(18,2)\"\nts = \"timestamp\"\n\n";
  t << "[streams.ingest]\nkind = \"ingest\"\nsource = \"ev\"\ntable = \"bronze\"\n";
  if (p.partition_by_dt) t << "partition_by = [\"dt\"]\n";
  t << "[streams.ingest.derived]\ndt = \"date(ts)\"\ngu = \"upper(g)\"\n\n";
  if (p.latest) {
    t << "[streams.latest]\nkind = \"latest\"\nfrom = \"bronze\"\ntable = \"silver\"\nkey = " << list(p.latest->key)
      << "\norder_by = \"ts\"\n\n";
  }
  for (const auto& w : p.windows) {
    t << "[streams." << w.name << "]\nkind = \"window\"\nfrom = \"bronze\"\ntable = \"" << w.name << "_t\"\n";
    if (w.filter != Filter::none) t << "filter = \"" << filter_sql(w.filter, w.filter_threshold) << "\"\n";
    t << "event_time = \"ts\"\nwatermark = \"" << duration_text(w.delay_us) << "\"\nwindow = \"" << duration_text(w.window_us)
      << "\"\n";
    if (!w.dedup.empty()) t << "dedup = " << list(w.dedup) << "\n";
    if (!w.group_by.empty()) t << "group_by = " << list(w.group_by) << "\n";
    t << "output = \"" << (w.update ? "update" : "append") << "\"\n";
    t << "[streams." << w.name << ".aggregates]\n";
    for (size_t i = 0; i < w.aggregates.size(); i++) {
      const auto& a = w.aggregates[i];
      t << "a" << i << " = \"" << a.function << "(" << (a.argument ? column_name(*a.argument) : "*") << ")\"\n";
    }
    t << "\n";
  }
  return t.str();
}

std::string describe_case(const Case& c) {
  std::ostringstream out;
  if (c.seed != 0) out << "seed " << c.seed << " (rerun: LAKESTREAM_MODEL_SEED=" << c.seed << ")\n";
  out << "--- lakestream.toml\n"
      << pipeline_toml(c.pipeline, "127.0.0.1:9092") << "--- sends (partition: value), each followed by a run unless marked\n";
  int n = 0;
  for (const auto& step : c.steps) {
    out << "send " << ++n << (step.run ? "" : " (no run after it)") << (step.send.empty() ? ": nothing" : "") << "\n";
    for (const auto& e : step.send) out << "  " << e.partition << ": " << (e.value.empty() ? "(empty value)" : e.value) << "\n";
  }
  out << "--- as a case file for tests/data/model/\n" << case_to_json(c).dump() << "\n";
  return out.str();
}

}  // namespace lakestream::model
