// The mistakes of one pipeline file, kept as it is read so that one run tells every one of them
// (sorted by line), and so that a later check can ask whether a setting it depends on was wrong
// and stay silent rather than report what follows from that mistake.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "util/error.h"

namespace lakestream {

// One mistake at a line of the file: "<file>:<line>: <key>: <what>" (throw_at's form).
class PipelineMistake : public Error {
 public:
  PipelineMistake(const std::string& message, int line) : Error(message), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

class PipelineMistakes {
 public:
  // `file` is the path as the user gave it, named in the closing count.
  explicit PipelineMistakes(std::string file) : file_(std::move(file)) {}

  // Runs `read`; a mistake it throws is kept against `key` (a dotted key such as
  // "streams.latest_orders.order_by") and false returned. Other exceptions pass through.
  bool keep(const std::string& key, const std::function<void()>& read);
  // keep(), unless a mistake is kept against `key` already (a misspelling of it, say): then false
  // without running `read`, so that what follows from that mistake is not told as another.
  bool read(const std::string& key, const std::function<void()>& read);
  void add(const std::string& key, int line, const std::string& message);

  const std::string& file() const { return file_; }
  bool empty() const { return mistakes_.empty(); }
  size_t size() const { return mistakes_.size(); }
  // True when a mistake was kept against `key` or a key under it ("sources.orders" holds
  // "sources.orders.schema.amount").
  bool under(const std::string& key) const;
  // The messages, by line (file order within a line).
  std::vector<std::string> messages() const;
  // Throws one Error telling every mistake, each on its line, then "N mistakes in FILE: fix them
  // all, then run again"; a single mistake alone. Returns when there is none.
  void throw_if_any() const;

 private:
  struct Kept {
    std::string key;
    int line;
    std::string message;
  };
  std::string file_;
  std::vector<Kept> mistakes_;
};

}  // namespace lakestream
