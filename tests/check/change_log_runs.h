// The check tests of a change stream (support/change_log.h's customers): send changes and run,
// and read silver back.
#pragma once

#include <string>
#include <vector>

#include "support/change_log.h"
#include "support/pipeline_fixture.h"

namespace lakestream::testing {

inline std::string silver_customers(PipelineFixture& f) { return f.query(kSilverCustomersSql); }

// Sends the changes as Debezium events, then runs every stream; fails the test when the run fails.
inline void send_changes_and_run(PipelineFixture& f, const std::vector<Change>& changes) {
  std::string lines;
  for (const auto& c : changes) lines += change_event_json(c) + "\n";
  f.produce("customers", lines);
  CommandResult run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
}

}  // namespace lakestream::testing
