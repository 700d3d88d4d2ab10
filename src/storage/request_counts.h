// How many requests this process sent to object stores, by method, and the bytes each way: what a
// run on a store costs beyond the work itself (a round trip each, tens of milliseconds against a
// cloud store). Counted per attempt, retries included.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream::storage {

struct RequestCounts {
  int64_t get = 0, put = 0, post = 0, head = 0, del = 0;
  int64_t bytes_sent = 0, bytes_received = 0;
  int64_t total() const { return get + put + post + head + del; }
};

// What the process sent so far.
RequestCounts request_counts();
// Called by the HTTP client for each attempt.
void count_request(const std::string& method, int64_t bytes_sent, int64_t bytes_received);
// The time the calling thread has spent waiting for object stores so far (every attempt of every
// request, and the waits between retries), in microseconds: what a batch's phase spent on the
// store rather than on its own work (streams/batch_report.h).
int64_t this_thread_store_wait_us();
// Called by the HTTP client once per request, retries included.
void add_this_thread_store_wait(int64_t micros);
// "53 store requests (GET 20, PUT 30, DELETE 3), 12.1 MB sent, 0.2 MB received"
std::string describe_requests(const RequestCounts& counts);

}  // namespace lakestream::storage
