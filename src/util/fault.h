// Crash points for the fault tests: LAKESTREAM_FAULT=<point>[:<n>] kills the process outright
// (SIGKILL: no clean-up, no flush, like kill -9 or a power cut) the n-th time (default 1st)
// execution passes that point. Every step of a commit protocol names its point here, so that
// the tests can prove a crash between any two steps loses nothing and writes nothing twice.
// LAKESTREAM_PAUSE=<point>:<ms> instead sleeps that long each time execution passes the point:
// the tests' way to hold one stream mid-batch while they watch another.
#pragma once

#include <string_view>

namespace lakestream {

// Dies here if LAKESTREAM_FAULT names this point (and its count is reached); pauses here if
// LAKESTREAM_PAUSE names it.
void fault_point(std::string_view point);

// True when the next pass of `point` dies: for a point that first leaves behind what a crash
// there leaves (e.g. the part of an upload that reached the store).
bool fault_is_next(std::string_view point);

}  // namespace lakestream
