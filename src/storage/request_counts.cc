#include "storage/request_counts.h"

#include <atomic>
#include <cstdio>

namespace lakestream::storage {

namespace {

// Streams of one process send requests from several threads (continuous mode's two stages).
struct Counters {
  std::atomic<int64_t> get{0}, put{0}, post{0}, head{0}, del{0}, sent{0}, received{0};
};

Counters& counters() {
  static Counters c;
  return c;
}

thread_local int64_t this_thread_wait_us = 0;

}  // namespace

int64_t this_thread_store_wait_us() { return this_thread_wait_us; }

void add_this_thread_store_wait(int64_t micros) { this_thread_wait_us += micros; }

RequestCounts request_counts() {
  Counters& c = counters();
  RequestCounts r;
  r.get = c.get;
  r.put = c.put;
  r.post = c.post;
  r.head = c.head;
  r.del = c.del;
  r.bytes_sent = c.sent;
  r.bytes_received = c.received;
  return r;
}

void count_request(const std::string& method, int64_t bytes_sent, int64_t bytes_received) {
  Counters& c = counters();
  if (method == "GET") c.get++;
  else if (method == "PUT") c.put++;
  else if (method == "POST") c.post++;
  else if (method == "HEAD") c.head++;
  else if (method == "DELETE") c.del++;
  c.sent += bytes_sent;
  c.received += bytes_received;
}

std::string describe_requests(const RequestCounts& counts) {
  std::string by_method;
  auto add = [&](const char* method, int64_t n) {
    if (n == 0) return;
    by_method += (by_method.empty() ? "" : ", ") + std::string(method) + " " + std::to_string(n);
  };
  add("GET", counts.get);
  add("PUT", counts.put);
  add("POST", counts.post);
  add("HEAD", counts.head);
  add("DELETE", counts.del);
  char bytes[96];
  std::snprintf(bytes, sizeof bytes, "%.1f MB sent, %.1f MB received", counts.bytes_sent / 1e6,
                counts.bytes_received / 1e6);
  return std::to_string(counts.total()) + (counts.total() == 1 ? " store request" : " store requests") +
         (by_method.empty() ? "" : " (" + by_method + ")") + ", " + bytes;
}

}  // namespace lakestream::storage
