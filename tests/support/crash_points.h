// The crash points of the commit protocols, for the tests that crash at each of them.
#pragma once

#include <string>
#include <vector>

namespace lakestream::testing {

// Every crash point of the commit protocols (docs/guarantees.md lists where each one is).
inline const std::vector<std::string>& crash_points() {
  static const std::vector<std::string> points{
      "after_plan",          "mid_checkpoint_file",   "after_kafka_read",    "after_data_files",
      "mid_commit_file",     "after_quarantine_commit", "before_delta_commit", "after_delta_commit",
      "after_state_commit",  "after_sink_commit"};
  return points;
}

}  // namespace lakestream::testing
