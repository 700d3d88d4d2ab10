// A small pipeline for check's tests: events of a topic `clicks` (the schema given) into bronze,
// and the streams given (TOML) reading it; plus helpers to state events and check's lines.
#pragma once

#include <string>
#include <vector>

#include "support/pipeline_fixture.h"

namespace lakestream::testing {

// `schema` holds the lines of [sources.clicks.schema]; `streams` whole [streams.X] sections.
inline std::string clicks_pipeline(const std::string& schema, const std::string& streams) {
  return "[kafka]\nbootstrap = \"@BOOTSTRAP@\"\n\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n\n"
         "[sources.clicks]\ntopic = \"clicks\"\n\n[sources.clicks.schema]\n" + schema +
         "\n[streams.read_clicks]\nkind = \"ingest\"\nsource = \"clicks\"\ntable = \"bronze_clicks\"\n\n" + streams;
}

// The lines of a check output that start with `verdict` (padded as check pads it).
inline std::vector<std::string> lines_with(const std::string& out, const std::string& verdict) {
  std::vector<std::string> found;
  std::string prefix = verdict + std::string(verdict.size() < 8 ? 8 - verdict.size() : 0, ' ');
  size_t at = 0;
  while (at < out.size()) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
    at = end + 1;
  }
  return found;
}

// Sends the events, then runs every stream; fails the test when the run fails.
inline void send_and_run(PipelineFixture& f, const std::string& events) {
  f.produce("clicks", events);
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

// Runs check; expects exactly `lines` and the exit code.
inline void expect_check(PipelineFixture& f, const std::string& lines, int exit_code = 0) {
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, lines) << check.err;
  EXPECT_EQ(check.exit_code, exit_code) << check.out;
}

// Runs recount; expects it to find every written window equal to the recount.
inline void expect_recount_changes_nothing(PipelineFixture& f) {
  CommandResult recount = f.lakestream("recount");
  EXPECT_EQ(recount.out, "recount: every written window already equals the recount; nothing changed\n") << recount.err;
}

}  // namespace lakestream::testing
