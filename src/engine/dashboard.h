// The status dashboard (`lakestream status --serve`): one page that charts each stream from its
// progress log (input vs processed rate, lag, watermark vs max event time, late drops per batch),
// with the health of every stream and the latest check result. The page draws its charts itself
// (canvas, no libraries, nothing fetched from outside) from three JSON endpoints:
//   /api/status    status_json (engine/status.h)
//   /api/progress  per stream, one point per batch of its progress log
//   /api/check     the latest check result (check/check.h), {} when check never ran
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "util/http_server.h"

namespace lakestream {

// The response to GET `path`; 404 for anything else.
HttpResponse dashboard_response(const Pipeline& pipeline, const std::string& path);

}  // namespace lakestream
