#include "engine/service_health.h"

#include <cstdio>

namespace lakestream {

namespace {

std::string seconds_ago(ServiceHealth::Clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s ago", std::chrono::duration<double>(d).count());
  return text;
}

}  // namespace

ServiceHealth::ServiceHealth(std::vector<std::string> streams, Clock::duration expected)
    : order_(std::move(streams)), expected_(expected) {
  for (const auto& name : order_) streams_[name];
}

void ServiceHealth::run_started(const std::vector<std::string>& streams, Clock::time_point at) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& name : streams) {
    StreamHealth& s = streams_[name];
    s.started = at;
    s.running = true;
  }
}

void ServiceHealth::run_ended(const std::vector<std::string>& streams, const std::optional<std::string>& failure,
                              Clock::time_point at) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& name : streams) {
    StreamHealth& s = streams_[name];
    s.ended = at;
    s.running = false;
    s.failure = failure;
  }
}

Readiness ServiceHealth::readiness(Clock::time_point now) const {
  std::lock_guard<std::mutex> lock(mu_);
  Readiness r{true, ""};
  auto line = [&](bool ok, const std::string& name, const std::string& what) {
    if (!ok) r.ready = false;
    r.text += std::string(ok ? "ok      " : "not ok  ") + name + ": " + what + "\n";
  };
  for (const auto& name : order_) {
    const StreamHealth& s = streams_.at(name);
    if (s.failure) {
      std::string first_line = s.failure->substr(0, s.failure->find('\n'));
      line(false, name, "failing: " + first_line);
    } else if (s.running && now - *s.started <= expected_) {
      line(true, name, "in a run that started " + seconds_ago(now - *s.started));
    } else if (s.running) {
      line(false, name, "in a run that started " + seconds_ago(now - *s.started) + ", longer than expected");
    } else if (!s.ended) {
      line(false, name, "has not run yet");
    } else if (now - *s.ended > expected_) {
      line(false, name, "last run ended " + seconds_ago(now - *s.ended) + ", longer than expected");
    } else {
      line(true, name, "last run ended " + seconds_ago(now - *s.ended));
    }
  }
  return r;
}

ServiceHealth::Clock::duration expected_run_gap(std::chrono::microseconds interval) {
  return std::max<ServiceHealth::Clock::duration>(3 * interval, std::chrono::minutes(1));
}

}  // namespace lakestream
