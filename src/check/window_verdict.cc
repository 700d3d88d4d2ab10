#include "check/window_verdict.h"

#include "check/check_wording.h"  // count_of

namespace lakestream {

WindowVerdict window_verdict(const WindowFacts& f) {
  WindowVerdict v;
  if (f.written && f.events > f.events_before) v.late_of_events = {{f.events - f.events_before, f.events}};
  if (!f.written && f.final) v.late_of_events = {{f.events, f.events}};
  if (!f.written) {
    if (!f.final) {
      v.verdict = "waiting";
      v.text = f.label + " is not written yet: the watermark has not passed its end";
    } else {
      v.verdict = "late";
      v.text = f.label + " was not written: its " + f.recount_values + (f.events == 1 ? "" : " all") +
               " arrived after the watermark passed its end";
      v.examples = WindowExamples::AllEvents;
    }
    return v;
  }
  std::string counted_phrase = "counted " + f.written_values;
  if (f.counted && f.values_match_recount) {
    v.verdict = "ok";
    v.text = f.label + " " + f.written_values;
  } else if (f.values_match_on_time) {
    // The stream counted what the watermark let through: late by design.
    std::string why;
    if (f.events > f.arrived) why = std::to_string(f.events - f.arrived) + " arrived after the " + f.noun + " was written";
    if (f.arrived > f.events_before)
      why += (why.empty() ? "" : " and ") + std::to_string(f.arrived - f.events_before) +
             (f.arrived - f.events_before == 1 ? " was older than the watermark when it arrived"
                                               : " were older than the watermark when they arrived");
    if (why.empty()) why = "a later copy of a dedup key was counted in place of one older than the watermark";
    v.verdict = "late";
    v.text = f.label + " " + counted_phrase + "; " + f.source +
             (f.counted ? " has " + f.recount_values : std::string(" has no events for it")) + ": " + why;
    v.examples = WindowExamples::LateEvents;
  } else if (!f.counted) {
    v.verdict = "PROBLEM";
    v.text = f.label + " " + counted_phrase + ", but " + f.source + " has no events for it";
  } else if (f.update_mode && !f.final) {
    v.verdict = "waiting";
    v.text = f.label + " " + counted_phrase + " so far; it is not final until the watermark passes its end";
  } else if (f.written_count && f.recount_count && *f.written_count > *f.recount_count) {
    int64_t extra = *f.written_count - *f.recount_count;
    v.verdict = "PROBLEM";
    v.text = f.label + " " + counted_phrase + ", but " + f.source + " has " + count_of(*f.recount_count, f.count_name) +
             ": " + (extra == 1 ? std::string("an event") : std::to_string(extra) + " events") + " counted twice";
    v.examples = WindowExamples::OnTimeCopies;
  } else {
    v.verdict = "PROBLEM";
    v.text = f.label + " " + counted_phrase + ", but " + f.source + " has " + f.recount_values +
             ": the written values are wrong";
    v.examples = WindowExamples::OnTimeCopies;
  }
  return v;
}

}  // namespace lakestream
