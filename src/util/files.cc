#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "util/error.h"
#include "util/fault.h"

namespace lakestream {
namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string parent_of(const std::string& path) {
  auto parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// Writes and fsyncs a fresh temp file beside `path`; returns its name. `crash_point` names the
// fault point passed halfway through the data, so that the tests can prove a torn temp file is
// never read (it is never renamed or linked into place).
std::string write_temp_beside(const std::string& path, const std::string& data, int mode, std::string_view crash_point) {
  std::string temp = join_path(parent_of(path), "." + fs::path(path).filename().string() + "." + new_uuid() + ".tmp");
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) throw Error("cannot create " + temp + ": " + errno_text());
  size_t done = 0;
  auto write_up_to = [&](size_t end) {
    while (done < end) {
      ssize_t n = ::write(fd, data.data() + done, end - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::string why = errno_text();
        ::close(fd);
        ::unlink(temp.c_str());
        throw Error("cannot write " + temp + ": " + why);
      }
      done += static_cast<size_t>(n);
    }
  };
  write_up_to(data.size() / 2);
  fault_point(crash_point);
  write_up_to(data.size());
  if (::fsync(fd) != 0) {
    std::string why = errno_text();
    ::close(fd);
    ::unlink(temp.c_str());
    throw Error("cannot fsync " + temp + ": " + why);
  }
  ::close(fd);
  return temp;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path + ": " + errno_text());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file_atomic(const std::string& path, const std::string& data, int mode) {
  std::string temp = write_temp_beside(path, data, mode, "mid_checkpoint_file");
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(temp.c_str());
    throw Error("cannot rename " + temp + " to " + path + ": " + why);
  }
  sync_dir(parent_of(path));
}

bool write_file_if_absent(const std::string& path, const std::string& data) {
  std::string temp = write_temp_beside(path, data, 0644, "mid_commit_file");
  int rc = ::link(temp.c_str(), path.c_str());
  int link_errno = errno;
  ::unlink(temp.c_str());
  if (rc != 0) {
    if (link_errno == EEXIST) return false;
    throw Error("cannot link " + path + ": " + std::strerror(link_errno));
  }
  sync_dir(parent_of(path));
  return true;
}

void make_dirs(const std::string& path, int mode) {
  std::error_code ec;
  fs::path p(path);
  fs::path built;
  for (const auto& part : p) {
    built /= part;
    if (fs::exists(built, ec)) continue;
    if (::mkdir(built.c_str(), mode) != 0 && errno != EEXIST)
      throw Error("cannot create folder " + built.string() + ": " + errno_text());
  }
}

void sync_dir(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open folder " + path + ": " + errno_text());
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw Error("cannot fsync folder " + path + ": " + errno_text());
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

int64_t file_size_or_zero(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

void append_to_file(const std::string& path, const std::string& data, int mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode);
  if (fd < 0) throw Error("cannot open " + path + " to append: " + std::strerror(errno));
  ssize_t n = ::write(fd, data.data(), data.size());
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(data.size()))
    throw Error("cannot append to " + path + ": " + (n < 0 ? std::strerror(err) : "short write (disk full?)"));
}

void remove_all(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::string new_uuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string join_path(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string absolute_path(const std::string& path) {
  return fs::absolute(fs::path(path)).lexically_normal().string();
}

void prepare_owned_folder(const std::string& dir, const std::string& command) {
  std::string marker = join_path(dir, ".lakestream-" + command);
  if (path_exists(dir)) {
    if (!path_exists(marker))
      throw Error(dir + " exists and is not a lakestream " + command + " folder; pass --dir with a new or former " +
                  command + " folder");
    remove_all(dir);
  }
  make_dirs(dir);
  write_file_atomic(marker, "made by `lakestream " + command + "`; deleted by the next " + command + " in this folder\n");
}

}  // namespace lakestream
