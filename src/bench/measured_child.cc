#include "bench/measured_child.h"

#include <signal.h>

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
#include "util/exit_with_parent.h"
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

struct StartedChild {
  pid_t pid = -1;
  std::string command, out_file, err_file, rss_file, cwd;
  std::chrono::steady_clock::time_point started;
};

std::shared_ptr<StartedChild> start_measured(const std::string& binary, const std::vector<std::string>& args,
                                             const std::string& cwd) {
  auto child = std::make_shared<StartedChild>();
  child->cwd = cwd;
  child->command = binary;
  for (const auto& a : args) child->command += " " + a;
  // Output goes to files, not pipes: a child never blocks on a full pipe while being timed.
  std::string id = std::to_string(reinterpret_cast<uintptr_t>(child.get()));
  child->out_file = join_path(cwd, ".bench-child-" + id + ".out");
  child->err_file = join_path(cwd, ".bench-child-" + id + ".err");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, child->out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, child->err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  // The child reports its own peak: ru_maxrss after exec would include this process's memory
  // (the broker's records) from before the exec.
  child->rss_file = join_path(cwd, ".bench-child-" + id + ".rss");
  remove_all(child->rss_file);
  std::string rss_env = "LAKESTREAM_PEAK_RSS_FILE=" + child->rss_file;
  std::vector<char*> env;
  for (char** e = environ; *e; e++) env.push_back(*e);
  env.push_back(const_cast<char*>(rss_env.c_str()));
  // A step ends with the bench, even one killed with -9 (a service step runs until told to stop).
  std::string parent_env = std::string(kExitWithParentVariable) + "=" + std::to_string(getpid());
  env.push_back(const_cast<char*>(parent_env.c_str()));
  env.push_back(nullptr);
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  child->started = std::chrono::steady_clock::now();
  int spawn_error = posix_spawn(&child->pid, binary.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error) throw Error("cannot start " + binary + ": " + std::strerror(spawn_error));
  return child;
}

namespace {

ChildRun wait_for(const StartedChild& child) {
  int status = 0;
  struct rusage usage {};
  while (wait4(child.pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw Error("waiting for " + child.command + " failed: " + std::strerror(errno));
  ChildRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.started).count();
  auto seconds_of = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  run.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  // A child that is not lakestream (a peer) reports nothing: its rusage peak is its own then.
  run.peak_rss_mib =
      (path_exists(child.rss_file) ? std::stod(read_file(child.rss_file)) : static_cast<double>(usage.ru_maxrss)) / 1024.0;
  run.out = read_file(child.out_file);
  std::string err = read_file(child.err_file);
  remove_all(child.out_file);
  remove_all(child.err_file);
  remove_all(child.rss_file);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("benchmark step failed: `" + child.command + "` in " + child.cwd + " " +
                (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                   : "was killed by signal " + std::to_string(WTERMSIG(status))) +
                ":\n" + err);
  return run;
}

}  // namespace

ChildRun stop_measured(const std::shared_ptr<StartedChild>& child) {
  ::kill(child->pid, SIGTERM);
  return wait_for(*child);
}

ChildRun wait_measured(const std::shared_ptr<StartedChild>& child) { return wait_for(*child); }

ChildRun run_measured(const std::string& binary, const std::vector<std::string>& args, const std::string& cwd) {
  return wait_for(*start_measured(binary, args, cwd));
}

}  // namespace lakestream::bench
