// The status dashboard (`lakestream status --serve`): one page that charts each stream from its
// progress log (input vs processed rate, lag, watermark vs max event time, late drops per batch),
// with the health of every stream and the latest check result. The page draws its charts itself
// (canvas, no libraries, nothing fetched from outside) from three JSON endpoints:
//   /api/status    status_json (engine/status.h)
//   /api/progress  per stream, one point per batch of its progress log
//   /api/check     the latest check result (check/check.h), {} when check never ran
//   /api/why?q=TEXT[&mode=window]  `lakestream why` (check/why.h): TEXT is what the command takes
//                  (a position, field values, a key, or an event's JSON), or with mode=window a
//                  window as check names it; {"error": ...} (status 400) for a request it refuses
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "util/http_server.h"

namespace lakestream {

// The response to GET `path` (with its query string); 404 for anything else.
HttpResponse dashboard_response(const Pipeline& pipeline, const std::string& path);

}  // namespace lakestream
