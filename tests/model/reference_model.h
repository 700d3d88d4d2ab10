// The reference model: what every table of a generated pipeline must hold after each run, and
// what check must say, computed event by event from docs/event-time.md (Spark's rules). It shares
// no code with the engine: no SQL, no DuckDB, plain loops over the records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model_case.h"

namespace lakestream::model {

// A value as the model knows it, compared with the engine's text of it.
struct Value {
  enum class Kind { integer, decimal, floating, text } kind = Kind::text;
  bool null = true;
  __int128 integer = 0;  // integer, or a decimal's unscaled digits
  int scale = 0;         // a decimal's scale
  double floating = 0;
  std::string text;

  static Value null_of(Kind k, int scale = 0) { Value v; v.kind = k; v.scale = scale; return v; }
  static Value of_integer(__int128 i) { Value v = null_of(Kind::integer); v.null = false; v.integer = i; return v; }
  static Value of_decimal(__int128 digits, int scale) { Value v = null_of(Kind::decimal, scale); v.null = false; v.integer = digits; return v; }
  static Value of_double(double d) { Value v = null_of(Kind::floating); v.null = false; v.floating = d; return v; }
  static Value of_text(const std::optional<std::string>& s) { Value v; v.null = !s; v.text = s.value_or(""); return v; }

  std::string show() const;
  // Whether the engine's text (nullopt: NULL) is this value: numbers exactly, doubles within a
  // relative 1e-9 of the magnitude.
  bool matches(const std::optional<std::string>& engine_text) const;
};

// A table as rows keyed by the text of their key columns.
using Rows = std::map<std::string, std::vector<Value>>;

// What check's window lines must say: how many of each verdict, over every window table.
struct CheckVerdicts {
  int ok = 0, late = 0, waiting = 0, problem = 0;
  int unwritten_tables = 0;  // window tables not written yet: one line each, no windows
  bool operator==(const CheckVerdicts&) const = default;
  std::string show() const;
};

class ReferenceModel {
 public:
  explicit ReferenceModel(PipelineSpec pipeline);

  // One `lakestream run` after `records` (in the order Kafka acknowledged them) were sent.
  void run(const std::vector<Record>& records);
  // `lakestream recount`: written windows take the batch recount's values.
  void recount();

  Rows bronze() const;
  int quarantined() const { return quarantined_; }
  Rows silver() const;                  // empty without a latest stream
  Rows gold(size_t window) const;       // the window stream's table
  int64_t watermark(size_t window) const { return windows_[window].watermark; }
  CheckVerdicts check() const;
  // What window stream `window` did with each bronze record it read, by (partition, offset):
  // "counted", "late", "duplicate", "filtered", "no time"; and "recounted" for a record it did not
  // count (late, duplicate) that its window as written counts all the same: the window's values
  // are those of the batch truth, which counts the record (as `lakestream recount` writes them).
  // A record it has not read is not in the map.
  std::map<std::pair<int, int64_t>, std::string> fates(size_t window) const;
  // For a record window stream `window` called a duplicate: the counted copy it was a duplicate of.
  std::optional<std::pair<int, int64_t>> duplicate_of(size_t window, int partition, int64_t offset) const;

  // What the latest stream's table makes of the bronze record at (partition, offset): whether it
  // holds what the newest event of its key holds, the position of the row (the newest copy of
  // that event), and whether that event's time is after the record's. None for a record not in
  // bronze.
  struct LatestFate {
    bool same_as_newest = false;
    std::pair<int, int64_t> row;
    bool newer_time = false;
  };
  std::optional<LatestFate> latest_fate(int partition, int64_t offset) const;

  // The key text of a row, as the driver builds it from the engine's columns.
  static std::string key_text(const std::vector<std::optional<std::string>>& parts);

 private:
  struct Counted {
    std::vector<const Record*> events;  // the rows the stream kept for this window
    std::vector<std::optional<std::string>> groups;
    int64_t start = 0;
  };
  struct WindowState {
    int64_t watermark = 0;
    std::map<std::string, Counted> open;              // windows still in the state
    std::map<std::string, int64_t> remembered;        // dedup key -> event time of its first copy
    std::map<std::string, std::pair<int, int64_t>> remembered_copy;  // dedup key -> that copy's position
    std::map<std::pair<int, int64_t>, std::pair<int, int64_t>> duplicate_of;  // duplicate -> the copy counted
    std::map<std::string, Counted> written;           // what the table holds (append: closed windows)
    std::map<std::string, std::vector<Value>> recounted;  // values recount wrote over `written`
    std::vector<int64_t> met;  // the watermark each run's batch met (what the batch before ended with)
    std::map<std::pair<int, int64_t>, std::string> fates;  // by (partition, offset), as the stream judged them
  };

  void run_window(size_t index, const std::vector<const Record*>& batch);
  void close_windows(const WindowSpec& w, WindowState& s, int64_t watermark);
  std::vector<Value> aggregate(const WindowSpec& w, const std::vector<const Record*>& events) const;
  // The batch truth: distinct events of bronze, filtered, de-duplicated by the stream's keys as
  // its state does (docs/event-time.md): a key counts again once the watermark its copy met has
  // passed the last counted copy's event time plus the delay; a late copy before that, or at the
  // counted copy's very time, is the same event. `on_time`: of the copies the stream did not drop
  // as late when it read them (late against the watermark their batch met), as Spark drops a late
  // copy before its dedup sees it: what the stream counts when the watermark is the only cause.
  std::map<std::string, Counted> recount_of(size_t window, bool on_time = false) const;

  PipelineSpec pipeline_;
  std::vector<std::vector<Record>> runs_;  // the records of each run that had any
  int quarantined_ = 0;
  std::vector<WindowState> windows_;
};

// Helpers the driver shares with the model (pure text, no engine code).
std::string civil_date(int64_t us);                   // YYYY-MM-DD of a UTC instant
std::optional<std::string> column_text(const Event& e, Column c);

}  // namespace lakestream::model
