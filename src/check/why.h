// `lakestream why`: the trail of Kafka records through every table of the pipeline, and why each
// table holds, drops or replaced them. A record is found by its position (partition:offset) or by
// field values; its trail follows the pipeline's order:
//   bronze     written by which batch at which version, or quarantined with its reason
//   latest     the current row of its key, or superseded by which record and by which rule
//              (a newer order_by, the same order_by and a later position, an identical resend),
//              or deleted, or not read yet
//   window     counted in which window and group, and the version that wrote that window; or not
//              counted, and why: late (the watermark its batch met, the window's end), a duplicate
//              of which record, filtered out, no event time; or its window not written yet;
//              or late for the stream but in the window all the same, as `lakestream recount`
//              wrote it (the window's values are the recount of every event, this one included)
// A replay (`lakestream replay`) is one more window table on the trail.
// From the other side, a window ("hourly_sales 09:00", as check names it) gives every record of
// its time and group: those it counted and those it did not, each with the reason.
// It reads what check reads (the tables, each window stream's watermarks per source batch), and
// judges a record as check's recount does (check/window_recount.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/pipeline.h"

namespace lakestream {

struct WhyRequest {
  std::optional<std::pair<int32_t, int64_t>> position;     // "partition:offset"
  // column=value, all to match (a value compares as the column's type, or as its text); a bare
  // value has no name; nullopt: the column is NULL.
  std::vector<std::pair<std::string, std::optional<std::string>>> fields;
  std::string table;                                        // only this bronze table's records
  // A window, as check's lines name it: "[TABLE] [DATE] [TIME] [GROUP VALUE...]"; the records of
  // that window of a window stream, instead of a trail through every table.
  std::string window;
  int64_t limit = 20;                                       // the most records traced
};

// What the command line gives: "3:1042" (a position), "order_id=1006 status=placed" (fields, all
// to match), or "1006" (the Kafka key, or the key of a latest stream); and `event`, a JSON object
// whose members are fields to match ({"order_id": 1006, "status": "placed"}, as a producer sent
// them). Throws Error saying what it takes.
WhyRequest parse_why_request(const std::vector<std::string>& arguments, const std::string& table,
                             const std::string& event = "", const std::string& window = "");

struct TrailStep {
  std::string table;
  std::string verdict;  // written | quarantined | current | superseded | deleted | counted | late |
                        // duplicate | recounted | filtered | no time | waiting | not read | PROBLEM
  std::string text;     // the reason, in words
};

struct RecordTrail {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string timestamp;  // Kafka's, UTC
  std::optional<std::string> key;
  std::vector<TrailStep> steps;
};

struct WhyAnswer {
  // In (bronze table, partition, offset) order; for a window, those it did not count first.
  std::vector<RecordTrail> trails;
  int64_t more = 0;  // matching records left out (past the request's limit)
  // For a window: what it is ("hourly_sales, the hour 2026-10-01 09:00") and how many of the
  // traced records had each verdict, in the order first met.
  std::string window;
  std::vector<std::pair<std::string, int64_t>> verdicts;
};

WhyAnswer why(const Pipeline& pipeline, const WhyRequest& request);

std::string format_why(const WhyAnswer& answer);
// One JSON object per line: {"topic", "partition", "offset", "timestamp", "key", "steps": [...]}.
std::string why_json_lines(const WhyAnswer& answer);
// The whole answer as one JSON object: {"trails": [...], "more": n, "window"?, "verdicts"?}.
std::string why_json(const WhyAnswer& answer);

}  // namespace lakestream
