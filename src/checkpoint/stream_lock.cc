#include "checkpoint/stream_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/files.h"

namespace lakestream {

namespace {

// The lock file opened and flocked: its descriptor, or -1 when another process holds the lock.
int try_lock(const std::string& lock_path) {
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot open " + lock_path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

StreamLock::StreamLock(const std::string& dir, const std::string& stream) {
  std::string lock_path = dir + "/lock";
  fd_ = try_lock(lock_path);
  if (fd_ < 0) {
    std::string holder = read_file(lock_path);
    throw StreamBusy("stream " + stream + " is already running" +
                     (holder.empty() ? std::string() : " (pid " + holder.substr(0, holder.find('\n')) + ")") +
                     ": its checkpoint " + dir + " is locked. Wait for that run to finish, or stop it.");
  }
  // Who holds the lock, for the message above (its first line); the lock itself is the flock, not
  // this text. Written over the old text, not truncated first: truncating the file (giving its
  // block back to the file system) took 2 to 5 ms a stream on a busy machine, most of an idle run.
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // Only informative; the lock holds regardless.
  }
}

StreamLock StreamLock::try_take(const std::string& dir) {
  StreamLock lock;
  lock.fd_ = try_lock(dir + "/lock");
  return lock;
}

StreamLock::StreamLock(StreamLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

StreamLock::~StreamLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace lakestream
