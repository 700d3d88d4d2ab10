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

// Runs the case in a fresh folder, on a fresh topic of `broker`. `check_after_runs`: also run
// check after every run (slower), not only after the last one.
CaseOutcome play_case(EmbeddedBroker& broker, const Case& c, bool check_after_runs = false);

// Drops sends, events and window streams while the case still fails (any failure): the smallest
// case found that still fails.
Case shrink_case(EmbeddedBroker& broker, const Case& failing);

}  // namespace lakestream::model
