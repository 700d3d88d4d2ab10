// A clean stop on SIGTERM/SIGINT: the signal only raises a flag; the runner and the streams look
// at it between batches, so the batch in flight finishes (and commits) before the process stops.
#pragma once

namespace lakestream {

// Installs handlers for SIGTERM and SIGINT that request a stop (a second signal of either kind
// ends the process at once, as usual).
void install_stop_signals();

// True once a stop was requested.
bool stop_requested();

// Sleeps up to `seconds`, returning early (true) when a stop is requested.
bool sleep_unless_stopped(double seconds);

}  // namespace lakestream
