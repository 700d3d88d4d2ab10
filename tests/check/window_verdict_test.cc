// check's verdict on one window, from the facts check gathers (check/window_verdict.h): each
// outcome alone, with the line it prints, and over every combination of the facts, the rules that
// hold whatever the wording: a window is ok exactly when it is written and equals the recount,
// and its late events are counted for the late share exactly when some of them were late.
#include "check/window_verdict.h"

#include <gtest/gtest.h>

namespace lakestream {
namespace {

// The shop's 09:00 hour: 4 orders in bronze, all on time when the hour was written.
WindowFacts hour_of_four() {
  WindowFacts f;
  f.label = "09:00";
  f.noun = "hour";
  f.source = "bronze_orders";
  f.written = f.counted = f.final = true;
  f.values_match_recount = f.values_match_on_time = true;
  f.events = f.events_before = f.arrived = 4;
  f.written_values = f.recount_values = "4 orders, 90.50";
  f.written_count = f.recount_count = 4;
  f.count_name = "orders";
  return f;
}

TEST(WindowVerdict, AWindowEqualToTheRecountIsOk) {
  WindowVerdict v = window_verdict(hour_of_four());
  EXPECT_EQ(v.verdict, "ok");
  EXPECT_EQ(v.text, "09:00 4 orders, 90.50");
  EXPECT_EQ(v.examples, WindowExamples::None);
  EXPECT_FALSE(v.late_of_events);
}

TEST(WindowVerdict, AnOpenWindowNotWrittenIsWaiting) {
  WindowFacts f = hour_of_four();
  f.written = f.final = false;
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "waiting");
  EXPECT_EQ(v.text, "09:00 is not written yet: the watermark has not passed its end");
  EXPECT_FALSE(v.late_of_events);
}

TEST(WindowVerdict, AFinalWindowNeverWrittenIsLateWithAllItsEvents) {
  WindowFacts f = hour_of_four();
  f.written = false;
  f.events_before = f.arrived = 0;
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "late");
  EXPECT_EQ(v.text, "09:00 was not written: its 4 orders, 90.50 all arrived after the watermark passed its end");
  EXPECT_EQ(v.examples, WindowExamples::AllEvents);
  EXPECT_EQ(v.late_of_events, std::make_pair(int64_t{4}, int64_t{4}));
  f.events = 1;
  f.recount_values = "1 order, 10.00";
  EXPECT_EQ(window_verdict(f).text, "09:00 was not written: its 1 order, 10.00 arrived after the watermark passed its end");
}

// The shop's expected-check.txt line: one order older than the watermark when it arrived.
TEST(WindowVerdict, AWindowThatCountedWhatWasOnTimeIsLateAndSaysWhy) {
  WindowFacts f = hour_of_four();
  f.values_match_recount = false;
  f.written_values = "3 orders, 68.50";
  f.written_count = 3;
  f.events_before = 3;  // on time when written: 3; arrived by then: 4
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "late");
  EXPECT_EQ(v.text, "09:00 counted 3 orders, 68.50; bronze_orders has 4 orders, 90.50: 1 was older than the watermark "
                    "when it arrived");
  EXPECT_EQ(v.examples, WindowExamples::LateEvents);
  EXPECT_EQ(v.late_of_events, std::make_pair(int64_t{1}, int64_t{4}));
  // Two more came after the hour was written, and two were too old when they came.
  f.events = 6;
  f.arrived = 5;
  f.events_before = 3;
  EXPECT_EQ(window_verdict(f).text, "09:00 counted 3 orders, 68.50; bronze_orders has 4 orders, 90.50: 1 arrived after the "
                                    "hour was written and 2 were older than the watermark when they arrived");
  // Nothing late among the events: a dedup key's later copy stood in for an older one.
  f.events = f.arrived = f.events_before = 3;
  EXPECT_EQ(window_verdict(f).text, "09:00 counted 3 orders, 68.50; bronze_orders has 4 orders, 90.50: a later copy of a "
                                    "dedup key was counted in place of one older than the watermark");
}

TEST(WindowVerdict, AWrittenWindowWithNoEventsInTheSourceIsAProblem) {
  WindowFacts f = hour_of_four();
  f.counted = f.values_match_recount = f.values_match_on_time = false;
  f.events = f.events_before = f.arrived = 0;
  f.recount_count.reset();
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "PROBLEM");
  EXPECT_EQ(v.text, "09:00 counted 4 orders, 90.50, but bronze_orders has no events for it");
}

TEST(WindowVerdict, AnUpdatedWindowNotYetFinalIsWaiting) {
  WindowFacts f = hour_of_four();
  f.update_mode = true;
  f.final = false;
  f.values_match_recount = f.values_match_on_time = false;
  f.written_values = "2 orders, 40.00";
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "waiting");
  EXPECT_EQ(v.text, "09:00 counted 2 orders, 40.00 so far; it is not final until the watermark passes its end");
}

TEST(WindowVerdict, ACountAboveTheRecountIsEventsCountedTwice) {
  WindowFacts f = hour_of_four();
  f.values_match_recount = f.values_match_on_time = false;
  f.written_values = "6 orders, 140.50";
  f.written_count = 6;
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "PROBLEM");
  EXPECT_EQ(v.text, "09:00 counted 6 orders, 140.50, but bronze_orders has 4 orders: 2 events counted twice");
  EXPECT_EQ(v.examples, WindowExamples::OnTimeCopies);
  f.written_count = 5;
  EXPECT_EQ(window_verdict(f).text, "09:00 counted 6 orders, 140.50, but bronze_orders has 4 orders: an event counted twice");
}

TEST(WindowVerdict, OtherValuesThanTheRecountAreWrong) {
  WindowFacts f = hour_of_four();
  f.values_match_recount = f.values_match_on_time = false;
  f.written_values = "4 orders, 91.00";
  WindowVerdict v = window_verdict(f);
  EXPECT_EQ(v.verdict, "PROBLEM");
  EXPECT_EQ(v.text, "09:00 counted 4 orders, 91.00, but bronze_orders has 4 orders, 90.50: the written values are wrong");
  EXPECT_EQ(v.examples, WindowExamples::OnTimeCopies);
  // A window without a count: no "counted twice", whatever the values.
  f.written_count.reset();
  f.recount_count.reset();
  EXPECT_NE(window_verdict(f).text.find("the written values are wrong"), std::string::npos);
}

// Every combination of the facts' flags and of a few counts.
TEST(WindowVerdict, OverEveryCombinationOkMeansWrittenAndEqualAndLateMeansLateEvents) {
  int combinations = 0;
  for (int bits = 0; bits < 64; bits++) {
    for (int64_t events : {0, 1, 5})
      for (int64_t before : {0, 1, 5})
        for (int64_t arrived : {0, 1, 5}) {
          if (before > arrived || arrived > events) continue;  // on time ⊆ arrived ⊆ all
          WindowFacts f = hour_of_four();
          f.written = bits & 1;
          f.counted = bits & 2;
          f.final = bits & 4;
          f.update_mode = bits & 8;
          f.values_match_recount = bits & 16;
          f.values_match_on_time = bits & 32;
          f.events = events;
          f.events_before = before;
          f.arrived = arrived;
          WindowVerdict v = window_verdict(f);
          SCOPED_TRACE(std::to_string(bits) + " " + std::to_string(events) + " " + std::to_string(before) + " " +
                       std::to_string(arrived) + ": " + v.verdict + " " + v.text);
          combinations++;
          EXPECT_TRUE(v.verdict == "ok" || v.verdict == "late" || v.verdict == "PROBLEM" || v.verdict == "waiting");
          EXPECT_EQ(v.verdict == "ok", f.written && f.counted && f.values_match_recount);
          EXPECT_EQ(v.text.rfind("09:00 ", 0), 0u);
          // Late events are counted when the window was never written though final (all of them),
          // or when it was written before some of them were on time.
          bool some_late = (f.written && events > before) || (!f.written && f.final);
          EXPECT_EQ(v.late_of_events.has_value(), some_late);
          if (v.late_of_events) {
            EXPECT_EQ(v.late_of_events->second, events);
            EXPECT_EQ(v.late_of_events->first, f.written ? events - before : events);
          }
          // A line that points at records is never an ok or a waiting one.
          EXPECT_TRUE(v.examples == WindowExamples::None || v.verdict == "late" || v.verdict == "PROBLEM");
        }
  }
  EXPECT_GT(combinations, 600);
}

}  // namespace
}  // namespace lakestream
