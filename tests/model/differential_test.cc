// The generative differential test: random pipelines, events and schedules, each played against
// lakestream and the reference model; after every run every table must equal the model, check
// must say what the model says, and recount must make gold the batch truth.
//
// LAKESTREAM_MODEL_SEED=N plays one case (and shrinks it when it fails);
// LAKESTREAM_LONG_TESTS=1 plays many more cases, with check after every run;
// LAKESTREAM_MODEL_WITHOUT=a,b leaves shapes out (see Coverage in model_case.h).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "model/case_driver.h"
#include "model/model_case.h"

namespace lakestream::model {
namespace {

// One broker for the whole program: each case gets a topic of its own.
EmbeddedBroker& shared_broker() {
  static std::unique_ptr<EmbeddedBroker> broker = std::make_unique<EmbeddedBroker>(std::vector<TopicSpec>{});
  return *broker;
}

bool long_tests() {
  const char* v = std::getenv("LAKESTREAM_LONG_TESTS");
  return v && *v && std::string(v) != "0";
}

// Plays `seed`; on failure, prints the shrunk case that still fails.
void expect_case_agrees(uint64_t seed, const Coverage& coverage, bool check_after_runs) {
  Case c = generate_case(seed, coverage);
  CaseOutcome outcome = play_case(shared_broker(), c, check_after_runs);
  if (outcome.failure.empty()) return;
  Case small = shrink_case(shared_broker(), c);
  CaseOutcome again = play_case(shared_broker(), small, check_after_runs);
  ADD_FAILURE() << "seed " << seed << ": " << outcome.failure << "\n\nA smaller case that fails too"
                << (again.failure.empty() ? " (it passed when played again: timing?)" : ": " + again.failure) << "\n"
                << describe_case(small);
}

std::string coverage_note(const Coverage& c) {
  std::string off;
  auto note = [&](bool on, const char* name) { if (!on) off += std::string(off.empty() ? "" : ", ") + name; };
  note(c.group_by, "group_by");
  note(c.dedup_subset, "dedup_subset");
  note(c.doubles, "doubles");
  note(c.decimal_avg, "decimal_avg");
  note(c.null_groups_update, "null_groups_update");
  note(c.silver_ties, "silver_ties");
  note(c.composite_keys, "composite_keys");
  note(c.bad_records, "bad_records");
  note(c.several_windows, "several_windows");
  note(c.resends, "resends");
  return off;
}

TEST(ModelDifferential, GeneratedPipelinesAgreeWithTheModel) {
  Coverage coverage = coverage_from_env();
  if (std::string off = coverage_note(coverage); !off.empty())
    std::printf("NOTE: shapes left out by LAKESTREAM_MODEL_WITHOUT: %s\n", off.c_str());
  if (const char* one = std::getenv("LAKESTREAM_MODEL_SEED")) {
    expect_case_agrees(std::strtoull(one, nullptr, 10), coverage, true);
    return;
  }
  int cases = long_tests() ? 2000 : 200;
  if (const char* n = std::getenv("LAKESTREAM_MODEL_CASES")) cases = std::atoi(n);
  const uint64_t first = std::getenv("LAKESTREAM_MODEL_FIRST_SEED") ? std::strtoull(std::getenv("LAKESTREAM_MODEL_FIRST_SEED"), nullptr, 10) : 1;
  int failed = 0;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < cases; i++) {
    uint64_t seed = first + static_cast<uint64_t>(i);
    Case c = generate_case(seed, coverage);
    CaseOutcome outcome = play_case(shared_broker(), c, long_tests());
    if (outcome.failure.empty()) continue;
    // Shrink only the first few: each shrink plays the case dozens of times.
    if (++failed <= 3) {
      expect_case_agrees(seed, coverage, long_tests());
    } else {
      ADD_FAILURE() << "seed " << seed << ": " << outcome.failure.substr(0, 2000);
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%d cases in %.1f s, %d failed\n", cases, seconds, failed);
}

}  // namespace
}  // namespace lakestream::model
