// Plays a generated case against the real lakestream binary and the reference model side by
// side: events go to the embedded broker over TCP, `lakestream run` follows each send that has
// a run, and after every run each table is read back with `lakestream query` and compared.
#pragma once

#include <string>
#include <vector>

#include "broker/embedded_broker.h"
#include "model/model_case.h"

namespace lakestream::model {

// The first difference found, or empty when lakestream and the model agree everywhere.
struct CaseOutcome {
  std::string failure;
  double seconds = 0;
};

// One broker for the whole test program: each case gets a topic of its own.
EmbeddedBroker& shared_broker();

// Runs the case in a fresh folder, on a fresh topic of `broker`. `check_after_runs`: also run
// check after every run (slower), not only after the last one. `compact_after_runs`: after every
// run, `lakestream optimize` merges the small files of every table (as compaction does while a
// continuous run goes), and the tables and check must still say what the model says.
CaseOutcome play_case(EmbeddedBroker& broker, const Case& c, bool check_after_runs = false, bool compact_after_runs = false);

// Drops sends, events and streams while the case still fails as `failure` did (the same words,
// other figures): the smallest such case found within a budget of plays.
Case shrink_case(EmbeddedBroker& broker, const Case& failing, const std::string& failure, bool compact_after_runs = false);

}  // namespace lakestream::model
