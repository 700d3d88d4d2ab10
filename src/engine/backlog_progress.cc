#include "engine/backlog_progress.h"

#include <cstdio>

namespace lakestream {

namespace {

// Sum over partitions of (b - a), for offsets maps; b - a for table versions.
int64_t distance(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return std::max<int64_t>(0, b.get<int64_t>() - a.get<int64_t>());
  if (!a.is_object() || !b.is_object()) return 0;
  int64_t sum = 0;
  for (const auto& [partition, to] : b.items()) {
    int64_t from = a.contains(partition) ? a[partition].get<int64_t>() : to.get<int64_t>();
    sum += std::max<int64_t>(0, to.get<int64_t>() - from);
  }
  return sum;
}

std::string clock_text(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

}  // namespace

int64_t offsets_covered(const BatchReport& batch) {
  // Table versions are inclusive ranges: from..to covers to - from + 1 versions (none for a
  // batch without data, whose start and end are the last version read).
  if (batch.start_offset.is_number() && batch.end_offset.is_number())
    return batch.input_rows == 0 && batch.start_offset == batch.end_offset
               ? 0
               : std::max<int64_t>(0, batch.end_offset.get<int64_t>() - batch.start_offset.get<int64_t>() + 1);
  return distance(batch.start_offset, batch.end_offset);
}

int64_t offsets_remaining(const BatchReport& batch) { return distance(batch.end_offset, batch.latest_offset); }

std::string BacklogProgress::format(const std::string& stream, int64_t done, int64_t total, const std::string& unit,
                                    double rows_per_second, double eta_seconds, bool bar) {
  int percent = total > 0 ? static_cast<int>(100 * done / total) : 100;
  std::string line = stream + ": ";
  if (bar) {
    int filled = percent / 5;
    line += "[" + std::string(filled, '#') + std::string(20 - filled, '-') + "] ";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%3d%%  %lld/%lld %s  %.0f rows/s", percent, static_cast<long long>(done),
                static_cast<long long>(total), unit.c_str(), rows_per_second);
  line += buf;
  return line + "  ETA " + (eta_seconds >= 0 ? clock_text(eta_seconds) : std::string("?"));
}

void BacklogProgress::show(const StreamReport& stream, const BatchReport& batch) {
  if (!started_) {
    started_ = true;
    start_ = std::chrono::steady_clock::now() - std::chrono::microseconds(static_cast<int64_t>(batch.seconds * 1e6));
  }
  done_ += offsets_covered(batch);
  rows_ += batch.input_rows;
  int64_t remaining = offsets_remaining(batch);
  // Only a backlog shows: a run whose first batch takes all there is prints nothing more.
  if (remaining == 0 && !shown_) return;
  shown_ = true;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = elapsed > 0 ? rows_ / elapsed : 0;
  double offsets_rate = elapsed > 0 ? done_ / elapsed : 0;
  std::string unit = batch.start_offset.is_number() ? "versions" : "offsets";
  std::string line = format(stream.stream, done_, done_ + remaining, unit, rate,
                            offsets_rate > 0 ? remaining / offsets_rate : -1, bar_);
  if (bar_) {
    out_ << "\r" << line << "\033[K";
    bar_drawn_ = true;
  } else {
    out_ << line << "\n";
  }
}

void BacklogProgress::clear_bar() {
  if (bar_drawn_) out_ << "\r\033[K";
}

void BacklogProgress::finish() {
  if (bar_drawn_) out_ << "\n" << std::flush;
  bar_drawn_ = false;
}

}  // namespace lakestream
