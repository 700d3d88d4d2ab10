// What check says of one window of a window stream's table: its verdict and its line, decided
// from what check found (the written window, the recount of bronze, what had arrived and what was
// on time when the stream wrote it). A pure function, so that each outcome can be tested alone
// (tests/check/window_verdict_test.cc); check.cc gathers the facts with SQL and prints the lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace lakestream {

struct WindowFacts {
  std::string label;   // how the line names the window: "09:00", "2026-10-01 09:00 C01"
  std::string noun;    // what a window is called: "hour", "minute", "window"
  std::string source;  // the table the stream reads: "bronze_orders"
  bool written = false;  // the window is in the table
  bool counted = false;  // the recount of the source has events for it
  bool final = false;    // the watermark has passed its end
  bool update_mode = false;  // output = "update": a window is rewritten until it is final
  bool values_match_recount = false;  // written values == the recount's
  bool values_match_on_time = false;  // written values == the recount of what was on time when it was written
  int64_t events = 0;         // the recount's events (each once)
  int64_t events_before = 0;  // of them, on time and arrived when the window was written
  int64_t arrived = 0;        // of them, arrived when the window was written (on time or not)
  std::string written_values;  // the written window as a phrase: "4 orders, 90.50"
  std::string recount_values;  // the recount as a phrase
  // The window's count aggregate, written and recounted, when it has one; and its column's name.
  std::optional<int64_t> written_count, recount_count;
  std::string count_name;
};

// Which of the window's records a line points at (up to 3, and the why command that lists them).
enum class WindowExamples {
  None,
  AllEvents,     // every event of the window, each once
  LateEvents,    // the events late against the watermark, or that came after the window was written
  OnTimeCopies,  // every copy of the window's events that was on time
};

struct WindowVerdict {
  std::string verdict;  // ok | late | PROBLEM | waiting
  std::string text;
  WindowExamples examples = WindowExamples::None;
  // The window's late events and all its events, for the late share (max_late_share), when it
  // has any late ones.
  std::optional<std::pair<int64_t, int64_t>> late_of_events;
};

WindowVerdict window_verdict(const WindowFacts& facts);

}  // namespace lakestream
