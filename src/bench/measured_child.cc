#include "bench/measured_child.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <climits>
#include <cstring>

#include "util/error.h"
#include "util/files.h"

extern char** environ;

namespace lakestream::bench {

std::string own_binary() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw Error("cannot find the lakestream binary through /proc/self/exe");
  return std::string(path, static_cast<size_t>(n));
}

ChildRun run_measured(const std::string& binary, const std::vector<std::string>& args, const std::string& cwd) {
  // Output goes to files, not pipes: a child never blocks on a full pipe while being timed.
  std::string out_file = join_path(cwd, ".bench-child.out"), err_file = join_path(cwd, ".bench-child.err");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  auto started = std::chrono::steady_clock::now();
  pid_t pid;
  int spawn_error = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error) throw Error("cannot start " + binary + ": " + std::strerror(spawn_error));
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw Error("waiting for " + binary + " failed: " + std::strerror(errno));
  ChildRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  run.out = read_file(out_file);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string command = binary;
    for (const auto& a : args) command += " " + a;
    throw Error("benchmark step failed: `" + command + "` in " + cwd + " " +
                (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                   : "was killed by signal " + std::to_string(WTERMSIG(status))) +
                ":\n" + read_file(err_file));
  }
  return run;
}

}  // namespace lakestream::bench
