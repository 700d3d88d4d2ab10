// The generative differential test: random pipelines, events and schedules, each played against
// lakestream and the reference model; after every run every table must equal the model, check
// must say what the model says, and recount must make gold the batch truth.
//
// LAKESTREAM_MODEL_SEED=N plays one case (and shrinks it when it fails);
// LAKESTREAM_LONG_TESTS=1 plays ten times as many, with check after every run;
// LAKESTREAM_MODEL_CASES / LAKESTREAM_MODEL_FIRST_SEED choose the cases of each slice;
// LAKESTREAM_MODEL_WITHOUT=a,b leaves shapes out (see Coverage in model_case.h).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "model/case_driver.h"
#include "model/model_case.h"

namespace lakestream::model {
namespace {

bool long_tests() {
  const char* v = std::getenv("LAKESTREAM_LONG_TESTS");
  return v && *v && std::string(v) != "0";
}

// Reports a failing case: its first failure, and a shrunk case that fails the same way.
void report_failure(const Case& c, const CaseOutcome& outcome, bool check_after_runs) {
  Case small = shrink_case(shared_broker(), c, outcome.failure);
  CaseOutcome again = play_case(shared_broker(), small, check_after_runs);
  ADD_FAILURE() << "seed " << c.seed << ": " << outcome.failure << "\n\nA smaller case"
                << (again.failure.empty() ? " (it passed when played again: the failure depends on timing)" : " that fails too: " + again.failure)
                << "\n" << describe_case(small);
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

// The cases come in slices of 50, so that `ctest -j` plays them in parallel and each stays well
// within ctest's timeout: 4 slices by default, 40 with LAKESTREAM_LONG_TESTS=1.
constexpr int kSlices = 4, kLongSlices = 40;
constexpr int kCasesPerSlice = 50;

class ModelDifferential : public ::testing::TestWithParam<int> {};

TEST_P(ModelDifferential, GeneratedPipelinesAgreeWithTheModel) {
  Coverage coverage = coverage_from_env();
  if (std::string off = coverage_note(coverage); !off.empty())
    std::printf("NOTE: shapes left out by LAKESTREAM_MODEL_WITHOUT: %s\n", off.c_str());
  if (const char* one = std::getenv("LAKESTREAM_MODEL_SEED")) {
    if (GetParam() != 0) return;
    Case c = generate_case(std::strtoull(one, nullptr, 10), coverage);
    CaseOutcome outcome = play_case(shared_broker(), c, true);
    if (!outcome.failure.empty()) report_failure(c, outcome, true);
    return;
  }
  if (GetParam() >= kSlices && !long_tests()) GTEST_SKIP() << "set LAKESTREAM_LONG_TESTS=1";
  int cases = kCasesPerSlice;
  if (const char* n = std::getenv("LAKESTREAM_MODEL_CASES")) cases = std::atoi(n);
  const char* first_seed = std::getenv("LAKESTREAM_MODEL_FIRST_SEED");
  const uint64_t first = (first_seed ? std::strtoull(first_seed, nullptr, 10) : 1) + static_cast<uint64_t>(GetParam()) * cases;
  int failed = 0;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < cases; i++) {
    uint64_t seed = first + static_cast<uint64_t>(i);
    Case c = generate_case(seed, coverage);
    CaseOutcome outcome = play_case(shared_broker(), c, long_tests());
    if (outcome.failure.empty()) continue;
    // Shrink only the first: a shrink plays the case up to 40 times.
    if (++failed == 1) {
      report_failure(c, outcome, long_tests());
    } else {
      ADD_FAILURE() << "seed " << seed << ": " << outcome.failure.substr(0, 2000) << "\n--- its pipeline\n"
                    << pipeline_toml(c.pipeline, "127.0.0.1:9092");
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("seeds %llu to %llu: %d cases in %.1f s, %d failed\n", static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(first + cases - 1), cases, seconds, failed);
}

INSTANTIATE_TEST_SUITE_P(Slices, ModelDifferential, ::testing::Range(0, kLongSlices));

}  // namespace
}  // namespace lakestream::model
