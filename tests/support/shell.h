// Runs a shell command line for the tests that drive other programs (node readers, validators).
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <utility>

namespace lakestream::testing {

// The command's exit status (-1 when it did not exit) and what it printed, stderr included.
inline std::pair<int, std::string> run_shell(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "cannot run " + command};
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace lakestream::testing
