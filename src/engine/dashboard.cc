#include "engine/dashboard.h"

#include <nlohmann/json.hpp>

#include "check/check.h"
#include "checkpoint/progress_log.h"
#include "engine/dashboard_page.h"
#include "engine/progress_record.h"
#include "engine/status.h"
#include "util/files.h"

namespace lakestream {

namespace {

constexpr size_t kPointsPerStream = 500;

// Offsets (summed over partitions) or versions behind the latest when the batch was planned.
int64_t lag_of(const nlohmann::json& source) {
  const auto& latest = source["latestOffset"];
  const auto& end = source["endOffset"];
  if (latest.is_number() && end.is_number()) return std::max<int64_t>(0, latest.get<int64_t>() - end.get<int64_t>());
  int64_t lag = 0;
  if (latest.is_object())
    for (const auto& [p, high] : latest.items())
      lag += std::max<int64_t>(0, high.get<int64_t>() - (end.contains(p) ? end[p].get<int64_t>() : 0));
  return lag;
}

nlohmann::json progress_points(const Pipeline& pipeline) {
  nlohmann::json streams = nlohmann::json::array();
  for (const Stream* stream : pipeline.in_dependency_order()) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& r : ProgressLog(pipeline.checkpoint_path(stream->name)).read(kPointsPerStream)) {
      if (is_failure(r)) continue;
      const auto& own = r["lakestream"];
      nlohmann::json point = {{"batchId", r["batchId"]},
                              {"timestamp", r["timestamp"]},
                              {"inputRowsPerSecond", r["inputRowsPerSecond"]},
                              {"processedRowsPerSecond", r["processedRowsPerSecond"]},
                              {"lag", lag_of(r["sources"][0])},
                              {"lateDropped", own.value("lateDropped", int64_t{0})}};
      if (r.contains("eventTime")) {
        point["watermarkMs"] = own.value("watermarkUs", int64_t{0}) / 1000;
        if (own["maxEventTimeUs"].is_number()) point["maxEventTimeMs"] = own["maxEventTimeUs"].get<int64_t>() / 1000;
      }
      points.push_back(point);
    }
    streams.push_back({{"name", stream->name}, {"table", stream->table}, {"points", points}});
  }
  return {{"streams", streams}};
}

HttpResponse json_response(const nlohmann::json& j) { return {200, "application/json", j.dump()}; }

}  // namespace

HttpResponse dashboard_response(const Pipeline& pipeline, const std::string& path) {
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", dashboard_page()};
  if (path == "/api/status") return json_response(status_json(pipeline_status(pipeline, wall_clock_us())));
  if (path == "/api/progress") return json_response(progress_points(pipeline));
  if (path == "/api/check") {
    std::string file = check_result_path(pipeline);
    return {200, "application/json", path_exists(file) ? read_file(file) : "{}"};
  }
  return {404, "text/plain; charset=utf-8", "not here: the dashboard is at /\n"};
}

}  // namespace lakestream
