// What the tests share: temporary folders, and running the lakestream binary as a user would.
#pragma once

#include <string>
#include <vector>

namespace lakestream::testing {

// A fresh folder under $TMPDIR, removed when the test ends (kept when LAKESTREAM_KEEP_TEST_DIRS is set).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;      // -1 when killed by a signal
  int signal = 0;          // the signal that ended it, 0 if none
  std::string out;         // stdout
  std::string err;         // stderr
};

// Runs the lakestream binary with `args` in folder `cwd`, feeding `input` on stdin; waits for it.
CommandResult run_lakestream(const std::vector<std::string>& args, const std::string& cwd = ".",
                             const std::string& input = "",
                             const std::vector<std::string>& env = {});

// Runs the lakestream binary and kills it with SIGKILL after `kill_after_ms` (if still running).
CommandResult run_lakestream_killed_after(const std::vector<std::string>& args, const std::string& cwd,
                                          int kill_after_ms, const std::vector<std::string>& env = {});

// The lakestream binary running in the background (continuous mode, servers), its stdout and
// stderr going to files so that a test can read them while it runs. Killed if still running
// when destroyed.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& args, const std::string& cwd, const std::vector<std::string>& env = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  std::string out() const;  // stdout so far
  std::string err() const;  // stderr so far
  // Waits up to `timeout_ms` for `text` to appear on stdout; true when it did.
  bool wait_for_output(const std::string& text, int timeout_ms);
  void send_signal(int sig);
  // Waits for the process to end (SIGKILL after `timeout_ms`) and returns how it ended.
  CommandResult wait(int timeout_ms);

 private:
  int pid_ = -1;
  std::string out_path_, err_path_;
};

// The path of the built binary, of the test data in the checkout (tests/data) and of the source tree.
std::string lakestream_bin();
std::string test_data_dir();
std::string source_dir();

// Writes a file (creating its folder).
void write_text(const std::string& path, const std::string& text);

// The bytes as lowercase hex, two digits each.
inline std::string hex_bytes(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

}  // namespace lakestream::testing

namespace lakestream::testing {
// The number of entries in a folder (0 when it does not exist).
int list_dir_count(const std::string& path);
}  // namespace lakestream::testing
