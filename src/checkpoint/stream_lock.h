// A stream's lock: the checkpoint's `lock` file, flock()ed while a run owns the stream. The kernel
// drops it when the run dies, so a killed run never leaves the stream locked. The file's first
// line names the holder's pid, for the message that refuses a second run.
#pragma once

#include <string>

#include "util/error.h"

namespace lakestream {

// Another run holds the stream's checkpoint (its lock).
class StreamBusy : public Error {
 public:
  using Error::Error;
};

class StreamLock {
 public:
  // Takes the lock of the checkpoint folder `dir`, or throws StreamBusy naming `stream` and the
  // holder's pid. Error when the lock file cannot be opened.
  StreamLock(const std::string& dir, const std::string& stream);
  // Takes it only if it is free: held() says whether it was.
  static StreamLock try_take(const std::string& dir);
  StreamLock(StreamLock&& other) noexcept;
  StreamLock& operator=(StreamLock&&) = delete;
  StreamLock(const StreamLock&) = delete;
  StreamLock& operator=(const StreamLock&) = delete;
  ~StreamLock();

  bool held() const { return fd_ >= 0; }

 private:
  StreamLock() = default;
  int fd_ = -1;
};

}  // namespace lakestream
