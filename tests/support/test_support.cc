#include "support/test_support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace lakestream::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/lakestream-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  if (!std::getenv("LAKESTREAM_KEEP_TEST_DIRS")) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
}

std::string lakestream_bin() { return LAKESTREAM_BIN; }
std::string test_data_dir() { return std::string(SOURCE_DIR) + "/tests/data"; }
std::string source_dir() { return SOURCE_DIR; }

void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

namespace {

// In a forked child: becomes the lakestream binary with `args`, in `cwd`, with `env` added.
[[noreturn]] void exec_lakestream(const std::vector<std::string>& args, const std::string& cwd,
                                  const std::vector<std::string>& env) {
  if (chdir(cwd.c_str()) != 0) _exit(127);
  for (const auto& kv : env) putenv(strdup(kv.c_str()));
  std::vector<char*> argv;
  std::string bin = lakestream_bin();
  argv.push_back(bin.data());
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(bin.c_str(), argv.data());
  _exit(127);
}

// Spawns the binary with pipes; if kill_after_ms >= 0, SIGKILLs it once that time has passed.
CommandResult spawn(const std::vector<std::string>& args, const std::string& cwd, const std::string& input,
                    const std::vector<std::string>& env, int kill_after_ms) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) || pipe(out_pipe) || pipe(err_pipe)) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    exec_lakestream(args, cwd, env);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Feed stdin from a writer that never blocks the reader loop: small inputs fit the pipe.
  size_t written = 0;
  fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  CommandResult result;
  auto start = std::chrono::steady_clock::now();
  bool killed = false;
  bool out_open = true, err_open = true;
  if (input.empty()) { close(in_pipe[1]); in_pipe[1] = -1; }
  while (out_open || err_open) {
    if (in_pipe[1] >= 0 && written < input.size()) {
      ssize_t n = write(in_pipe[1], input.data() + written, input.size() - written);
      if (n > 0) written += n;
      if (written == input.size()) { close(in_pipe[1]); in_pipe[1] = -1; }
    }
    struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    poll(fds, 2, 10);
    char buf[65536];
    for (int i = 0; i < 2; i++) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else {
        (i == 0 ? result.out : result.err).append(buf, n);
      }
    }
    if (kill_after_ms >= 0 && !killed) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
      if (ms >= kill_after_ms) {
        kill(pid, SIGKILL);
        killed = true;
      }
    }
  }
  if (in_pipe[1] >= 0) close(in_pipe[1]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace

CommandResult run_lakestream(const std::vector<std::string>& args, const std::string& cwd, const std::string& input,
                             const std::vector<std::string>& env) {
  return spawn(args, cwd, input, env, -1);
}

CommandResult run_lakestream_killed_after(const std::vector<std::string>& args, const std::string& cwd,
                                          int kill_after_ms, const std::vector<std::string>& env) {
  return spawn(args, cwd, "", env, kill_after_ms);
}

}  // namespace lakestream::testing

namespace lakestream::testing {
int list_dir_count(const std::string& path) {
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator(path, ec); !ec && it != std::filesystem::directory_iterator(); ++it) n++;
  return n;
}
}  // namespace lakestream::testing

namespace lakestream::testing {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
}  // namespace

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& args, const std::string& cwd,
                                     const std::vector<std::string>& env) {
  static int counter = 0;
  std::string tag = std::to_string(getpid()) + "-" + std::to_string(counter++);
  out_path_ = cwd + "/background-" + tag + ".out";
  err_path_ = cwd + "/background-" + tag + ".err";
  pid_ = fork();
  if (pid_ == 0) {
    int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    exec_lakestream(args, cwd, env);
  }
}

BackgroundProcess::~BackgroundProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string BackgroundProcess::out() const { return slurp(out_path_); }
std::string BackgroundProcess::err() const { return slurp(err_path_); }

bool BackgroundProcess::wait_for_output(const std::string& text, int timeout_ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < until) {
    if (out().find(text) != std::string::npos) return true;
    usleep(50000);
  }
  return false;
}

void BackgroundProcess::send_signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

CommandResult BackgroundProcess::wait(int timeout_ms) {
  CommandResult result;
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= until) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    usleep(20000);
  }
  pid_ = -1;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = out();
  result.err = err();
  return result;
}

}  // namespace lakestream::testing
