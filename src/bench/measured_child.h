// One measurement: a child process (the lakestream binary itself), its wall time and its peak
// resident memory. A process per measurement, so that each peak is its own and none inherits
// the memory of the one before.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace lakestream::bench {

struct ChildRun {
  double seconds = 0;
  double cpu_seconds = 0;   // user + system time: what the run cost, whatever else the machine does
  double peak_rss_mib = 0;  // the child's maximum resident set size
  std::string out;          // its standard output
};

// The path of the running lakestream binary (/proc/self/exe), to run its subcommands.
std::string own_binary();

// Runs `binary args...` in folder `cwd` and waits for it. Error with the command and its
// standard error when it fails.
ChildRun run_measured(const std::string& binary, const std::vector<std::string>& args, const std::string& cwd);

// The same in two steps, for a child that runs while the benchmark does something else (a
// continuous run under a produced load): start it, then stop it with SIGTERM and wait.
struct StartedChild;
std::shared_ptr<StartedChild> start_measured(const std::string& binary, const std::vector<std::string>& args,
                                             const std::string& cwd);
ChildRun stop_measured(const std::shared_ptr<StartedChild>& child);
// Waits for a started child to end by itself.
ChildRun wait_measured(const std::shared_ptr<StartedChild>& child);

}  // namespace lakestream::bench
