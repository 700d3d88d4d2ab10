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
#include "support/test_settings.h"

namespace lakestream::model {
namespace {

using lakestream::testing::long_tests;

// Reports a failing case: its first failure, and a shrunk case that fails the same way.
void report_failure(const Case& c, const CaseOutcome& outcome, bool check_after_runs, bool compact_after_runs = false) {
  Case small = shrink_case(shared_broker(), c, outcome.failure, compact_after_runs);
  CaseOutcome again = play_case(shared_broker(), small, check_after_runs, compact_after_runs);
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

// Plays slice `slice` of `cases_per_slice` cases, seeds from LAKESTREAM_MODEL_FIRST_SEED (else
// `first_seed`) on.
void play_slice(int slice, int cases_per_slice, bool check_after_runs, bool compact_after_runs, uint64_t first_seed = 1) {
  Coverage coverage = coverage_from_env();
  if (std::string off = coverage_note(coverage); !off.empty())
    std::printf("NOTE: shapes left out by LAKESTREAM_MODEL_WITHOUT: %s\n", off.c_str());
  if (const char* one = std::getenv("LAKESTREAM_MODEL_SEED")) {
    if (slice != 0) return;
    Case c = generate_case(std::strtoull(one, nullptr, 10), coverage);
    CaseOutcome outcome = play_case(shared_broker(), c, true, compact_after_runs);
    if (!outcome.failure.empty()) report_failure(c, outcome, true, compact_after_runs);
    return;
  }
  int cases = cases_per_slice;
  if (const char* n = std::getenv("LAKESTREAM_MODEL_CASES")) cases = std::atoi(n);
  const char* seed_from_env = std::getenv("LAKESTREAM_MODEL_FIRST_SEED");
  const uint64_t first =
      (seed_from_env ? std::strtoull(seed_from_env, nullptr, 10) : first_seed) + static_cast<uint64_t>(slice) * cases;
  int failed = 0;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < cases; i++) {
    uint64_t seed = first + static_cast<uint64_t>(i);
    Case c = generate_case(seed, coverage);
    CaseOutcome outcome = play_case(shared_broker(), c, check_after_runs, compact_after_runs);
    if (outcome.failure.empty()) continue;
    // Shrink only the first: a shrink plays the case up to 40 times.
    if (++failed == 1) {
      report_failure(c, outcome, check_after_runs, compact_after_runs);
    } else {
      ADD_FAILURE() << "seed " << seed << ": " << outcome.failure.substr(0, 2000) << "\n--- its pipeline\n"
                    << pipeline_toml(c.pipeline, "127.0.0.1:9092");
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("seeds %llu to %llu: %d cases in %.1f s, %d failed\n", static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(first + cases - 1), cases, seconds, failed);
}

TEST_P(ModelDifferential, GeneratedPipelinesAgreeWithTheModel) {
  if (GetParam() >= kSlices && !long_tests() && !std::getenv("LAKESTREAM_MODEL_SEED")) GTEST_SKIP() << "set LAKESTREAM_LONG_TESTS=1";
  play_slice(GetParam(), kCasesPerSlice, long_tests(), false);
}

INSTANTIATE_TEST_SUITE_P(Slices, ModelDifferential, ::testing::Range(0, kLongSlices));

// Every table compacted after every run (`lakestream optimize`, which merges what compaction in a
// continuous run merges, and more): the rows stay the model's, and check, which tells a late
// window from a wrong one by the source batch each row had seen, still gives the model's verdicts
// from merged window files. Check runs after every run. One slice of 20 cases (seeds 100001 on),
// 10 with LAKESTREAM_LONG_TESTS=1.
class ModelDifferentialCompacted : public ::testing::TestWithParam<int> {};
constexpr int kCompactedSlices = 1, kLongCompactedSlices = 10, kCompactedCasesPerSlice = 20;

TEST_P(ModelDifferentialCompacted, CompactingEveryTableAfterEachRunChangesNoAnswerAndNoVerdict) {
  if (GetParam() >= kCompactedSlices && !long_tests() && !std::getenv("LAKESTREAM_MODEL_SEED"))
    GTEST_SKIP() << "set LAKESTREAM_LONG_TESTS=1";
  play_slice(GetParam(), kCompactedCasesPerSlice, true, true, 100001);  // seeds the plain slices do not play
}

INSTANTIATE_TEST_SUITE_P(Slices, ModelDifferentialCompacted, ::testing::Range(0, kLongCompactedSlices));

}  // namespace
}  // namespace lakestream::model
