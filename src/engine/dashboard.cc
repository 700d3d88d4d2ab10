#include "engine/dashboard.h"

#include <nlohmann/json.hpp>

#include "check/check.h"
#include "checkpoint/progress_log.h"
#include "engine/batch_progress.h"
#include "engine/dashboard_page.h"
#include "engine/status.h"
#include "util/files.h"

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
