// Progress through a backlog that takes several batches (a first run over a full topic, a
// replay): how far, how fast, and when it will be done. On a terminal it is one bar redrawn in
// place; otherwise (logs, pipes, CI) a plain line per batch.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "streams/batch_report.h"

namespace lakestream {

class BacklogProgress {
 public:
  // `bar`: draw a bar redrawn with '\r' (for a terminal); else print lines.
  BacklogProgress(std::ostream& out, bool bar) : out_(out), bar_(bar) {}

  // After a batch: shows the progress when the run has more backlog than this batch took.
  void show(const StreamReport& stream, const BatchReport& batch);
  // Erases a drawn bar, so that a line can be printed in its place.
  void clear_bar();
  // Ends the bar with a newline, when one was drawn.
  void finish();

  // "orders: [#########-----------]  45%  4500/10000 offsets  12000 rows/s  ETA 0:00:05" (no bar
  // when `bar` is false; ETA "?" when `eta_seconds` < 0).
  static std::string format(const std::string& stream, int64_t done, int64_t total, const std::string& unit,
                            double rows_per_second, double eta_seconds, bool bar);

 private:
  std::ostream& out_;
  bool bar_;
  bool bar_drawn_ = false;
  bool started_ = false;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  int64_t done_ = 0;
  int64_t rows_ = 0;
};

// The offsets (or versions) a batch covered, and how many were still behind the latest after it.
int64_t offsets_covered(const BatchReport& batch);
int64_t offsets_remaining(const BatchReport& batch);

}  // namespace lakestream
