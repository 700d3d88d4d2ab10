// The alert "processing rate below input rate for 10 minutes": the stream takes longer to process
// its input than the input takes to arrive, batch after batch, so its lag can only grow. One
// slow batch is noise; a streak of them that spans the whole period is the signal.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/batch_progress.h"

namespace lakestream {

constexpr int64_t kFallingBehindPeriodUs = 10LL * 60 * 1000000;

// True when the newest batches (oldest first, failures ignored) form a streak of batches
// processed slower than their input came whose first batch started at least `period_us` before
// the newest one.
bool falling_behind(const std::vector<BatchProgress>& batches, int64_t period_us = kFallingBehindPeriodUs);

}  // namespace lakestream
