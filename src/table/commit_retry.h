// Optimistic concurrency, the one way every writer commits: a commit is built on a fresh look at
// the table and published put-if-absent; when another writer took the version first
// (CommitConflict), the writer looks again and builds anew, after a short randomized pause so
// that writers racing for the same version do not keep colliding in step. The writers (ingest
// and partition commits, latest and window streams, compaction, recount) each say what an
// attempt is; this says how often and how long to try.
#pragma once

#include <string>

#include "util/error.h"

namespace lakestream::delta {

// How many times a commit is attempted before the writer gives up.
constexpr int kCommitAttempts = 50;

// Sleeps before attempt `attempt` (1, 2, ...): a random time below min(100 ms, 2^(attempt-1) ms).
void pause_before_commit_attempt(int attempt);

// Runs `attempt()` until it returns (its result is returned) or throws anything but
// CommitConflict (which propagates). After kCommitAttempts conflicts throws Error: "could not
// <what> after 50 attempts: other writers keep committing to it".
template <typename Attempt>
auto commit_with_retry(const std::string& what, Attempt&& attempt) -> decltype(attempt()) {
  for (int tried = 0; tried < kCommitAttempts; tried++) {
    if (tried > 0) pause_before_commit_attempt(tried);
    try {
      return attempt();
    } catch (const CommitConflict&) {
      // Another writer took the version: the next attempt looks at the table again.
    }
  }
  throw Error("could not " + what + " after " + std::to_string(kCommitAttempts) +
              " attempts: other writers keep committing to it");
}

}  // namespace lakestream::delta
