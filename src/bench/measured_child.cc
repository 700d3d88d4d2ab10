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
#include "util/peak_memory.h"

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
  // The child reports its own peak: ru_maxrss after exec would include this process's memory
  // (the broker's records) from before the exec.
  std::string rss_file = join_path(cwd, ".bench-child.rss");
  remove_all(rss_file);
  std::string rss_env = "LAKESTREAM_PEAK_RSS_FILE=" + rss_file;
  std::vector<char*> env;
  for (char** e = environ; *e; e++) env.push_back(*e);
  env.push_back(const_cast<char*>(rss_env.c_str()));
  env.push_back(nullptr);
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  auto started = std::chrono::steady_clock::now();
  pid_t pid;
  int spawn_error = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error) throw Error("cannot start " + binary + ": " + std::strerror(spawn_error));
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw Error("waiting for " + binary + " failed: " + std::strerror(errno));
  ChildRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  auto seconds_of = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  run.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  // A child that is not lakestream (a peer) reports nothing: its rusage peak is its own then.
  run.peak_rss_mib = (path_exists(rss_file) ? std::stod(read_file(rss_file)) : static_cast<double>(usage.ru_maxrss)) / 1024.0;
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
