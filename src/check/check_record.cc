// The latest check result, kept for the status dashboard.
#include <nlohmann/json.hpp>

#include "check/check.h"
#include "util/files.h"

namespace lakestream {

std::string check_result_path(const Pipeline& pipeline) { return pipeline.checkpoints_dir + "/check-latest.json"; }

void save_check_result(const Pipeline& pipeline, const CheckResult& result, const std::string& at) {
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : result.lines) {
    nlohmann::json line = {{"verdict", l.verdict}, {"text", l.text}};
    if (!l.examples.empty()) line["examples"] = l.examples;
    if (!l.window.empty()) line["window"] = l.window;
    if (!l.why.empty()) line["why"] = l.why;
    lines.push_back(line);
  }
  make_dirs(pipeline.checkpoints_dir, 0700);
  write_file_atomic(check_result_path(pipeline),
                    nlohmann::json{{"at", at}, {"problem", result.has_problem()}, {"lines", lines}}.dump(2) + "\n", 0600);
}

}  // namespace lakestream
