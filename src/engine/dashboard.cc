#include "engine/dashboard.h"

#include <nlohmann/json.hpp>

#include <sstream>

#include "check/check.h"
#include "check/why.h"
#include "checkpoint/progress_log.h"
#include "engine/batch_progress.h"
#include "engine/dashboard_page.h"
#include "engine/lake_stores.h"
#include "engine/status.h"
#include "util/error.h"
#include "util/files.h"
#include "util/percent_encoding.h"

namespace lakestream {

namespace {

constexpr size_t kPointsPerStream = 500;

nlohmann::json progress_points(const Pipeline& pipeline) {
  nlohmann::json streams = nlohmann::json::array();
  for (const Stream* stream : pipeline.in_dependency_order()) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& record : ProgressLog(pipeline.checkpoint_path(stream->name)).read(kPointsPerStream)) {
      BatchProgress b = decode_progress(record);
      if (b.failure) continue;
      // Offsets (summed over partitions) or versions behind the latest when the batch was planned.
      nlohmann::json point = {{"batchId", b.batch_id},
                              {"timestamp", b.timestamp},
                              {"inputRowsPerSecond", b.input_rows_per_second},
                              {"processedRowsPerSecond", b.processed_rows_per_second},
                              {"lag", b.total_lag()},
                              {"lateDropped", b.late_dropped}};
      if (b.watermark_us) {
        point["watermarkMs"] = *b.watermark_us / 1000;
        if (b.max_event_time_us) point["maxEventTimeMs"] = *b.max_event_time_us / 1000;
      }
      points.push_back(point);
    }
    streams.push_back({{"name", stream->name}, {"table", stream->table}, {"points", points}});
  }
  return {{"streams", streams}};
}

HttpResponse json_response(const nlohmann::json& j) { return {200, "application/json", j.dump()}; }

constexpr int64_t kTrailsPerAnswer = 50;

// The search box: the same request as the command line's, the same answer as `why -f json`.
HttpResponse why_response(const Pipeline& pipeline, const std::string& target) {
  std::string text = query_value(target, "q").value_or("");
  bool window = query_value(target, "mode").value_or("record") == "window";
  try {
    WhyRequest request;
    if (window) {
      request = parse_why_request({}, "", "", text);
    } else if (text.find_first_not_of(" ") != std::string::npos && text[text.find_first_not_of(" ")] == '{') {
      request = parse_why_request({}, "", text);
    } else {
      std::vector<std::string> words;
      std::istringstream in(text);
      for (std::string w; in >> w;) words.push_back(w);
      request = parse_why_request(words, "");
    }
    request.limit = kTrailsPerAnswer;
    refresh_checkpoint_copies(pipeline);  // the streams may have moved on since the page was served
    return {200, "application/json", why_json(why(pipeline, request))};
  } catch (const Error& e) {
    return {400, "application/json", nlohmann::json{{"error", e.what()}}.dump()};
  }
}

}  // namespace

HttpResponse dashboard_response(const Pipeline& pipeline, const std::string& path) {
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", dashboard_page()};
  if (path == "/api/status") return json_response(status_json(pipeline_status(pipeline, wall_clock_us())));
  if (path == "/api/progress") return json_response(progress_points(pipeline));
  if (path == "/api/why" || path.rfind("/api/why?", 0) == 0) return why_response(pipeline, path);
  if (path == "/api/check") {
    std::string file = check_result_path(pipeline);
    return {200, "application/json", path_exists(file) ? read_file(file) : "{}"};
  }
  return {404, "text/plain; charset=utf-8", "not here: the dashboard is at /\n"};
}

}  // namespace lakestream
