// Serving the embedded broker from the command line: signal-driven lifecycle and reset.
#include "broker/broker_server.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "broker/broker_address.h"
#include "broker/retention_watch.h"
#include "broker/schema_registry_server.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log_time.h"

namespace lakestream {

namespace {

std::string describe(const std::vector<TopicSpec>& topics) {
  if (topics.empty()) return "no topics (a client asking for an unknown topic creates it with 4 partitions)";
  std::string text = topics.size() == 1 ? "topic" : "topics";
  for (size_t i = 0; i < topics.size(); i++)
    text += (i ? ", " : " ") + topics[i].name + " (" + std::to_string(topics[i].partitions) +
            (topics[i].partitions == 1 ? " partition)" : " partitions)");
  return text;
}

// Blocks the stop/reset signals in this thread (and threads it starts later) for its lifetime,
// so that they wait for sigwait instead of killing the process mid-write.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigemptyset(&set_);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&set_, sig);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~BlockedSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  // The signal that came within `ms` milliseconds, or 0.
  int wait_for(int ms) {
    timespec timeout{ms / 1000, (ms % 1000) * 1000000L};
    int sig = sigtimedwait(&set_, nullptr, &timeout);
    return sig > 0 ? sig : 0;
  }

 private:
  sigset_t set_, previous_;
};

// The files of an add-topic request and of its answer, beside the address file.
std::string add_topic_request_file(const std::string& address_file) { return address_file + ".add-topic"; }
std::string add_topic_answer_file(const std::string& address_file) { return address_file + ".add-topic-answer"; }

// Creates the topic a request file names; the answer is "ok" or what went wrong.
std::string add_requested_topic(EmbeddedBroker& broker, const std::string& address_file) {
  try {
    std::string request = read_file(add_topic_request_file(address_file));
    while (!request.empty() && (request.back() == '\n' || request.back() == '\r')) request.pop_back();
    TopicSpec topic = parse_topic_spec(request);
    broker.create_topic(topic);
    return "ok";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace

void serve_broker(const BrokerServeOptions& options, std::ostream& out) {
  std::string file =
      options.address_file.empty() ? broker_address_file(options.name) : absolute_path(options.address_file);
  std::string named = options.name.empty() ? "" : " named " + options.name;
  if (auto running = read_broker_address(file); running && process_alive(running->pid) && running->pid != getpid())
    throw Error("an embedded broker" + named + " is already running (pid " + std::to_string(running->pid) +
                ", bootstrap " + running->bootstrap + ", address file " + file +
                "): use it, stop it, or start this one under another name (--name NAME, and bootstrap = "
                "\"embedded:NAME\" in its pipeline file)");

  BlockedSignals signals;  // before the broker starts its threads, so they inherit the mask
  EmbeddedBroker broker(options.topics, options.brokers, options.retention_bytes);
  std::unique_ptr<SchemaRegistryServer> registry;
  if (options.schema_registry) registry = std::make_unique<SchemaRegistryServer>(options.registry_port);
  BrokerAddress address{broker.bootstrap(), static_cast<int>(getpid()), 0, broker.topics(),
                        registry ? registry->url() : ""};
  write_broker_address(file, address);
  std::string bootstrap_setting = options.name.empty() ? "embedded" : "embedded:" + options.name;
  out << "embedded Kafka broker" << named << " at " << broker.bootstrap() << " with " << describe(broker.topics())
      << "; each partition keeps " << format_byte_size(broker.retention_bytes()) << " (--retention)\n"
      << "address written to " << file << " (bootstrap = \"" << bootstrap_setting << "\" finds it)\n"
      << (registry ? "schema registry at " + registry->url() + " (schema_registry = \"" + bootstrap_setting +
                         "\" finds it)\n"
                   : "")
      << "serving until SIGTERM or Ctrl-C; SIGHUP or `lakestream broker reset"
      << (options.name.empty() ? "" : " --name " + options.name) << "` wipes the topics; `lakestream broker add-topic "
      << "NAME:PARTITIONS" << (options.name.empty() ? "" : " --name " + options.name) << "` adds one" << std::endl;

  auto watch = std::make_unique<RetentionWatch>(broker.bootstrap(), broker.topics(), broker.retention_bytes());
  for (;;) {
    int sig = signals.wait_for(1000);
    if (sig == 0) {
      for (const auto& line : watch->dropped_since_last()) out << log_time_now() << " " << line << std::endl;
      continue;
    }
    if (sig == SIGUSR1) {
      std::string answer = add_requested_topic(broker, file);
      if (answer == "ok") {
        watch = std::make_unique<RetentionWatch>(broker.bootstrap(), broker.topics(), broker.retention_bytes());
        address.topics = broker.topics();
        write_broker_address(file, address);
        const TopicSpec& added = broker.topics().back();
        out << log_time_now() << " topic " << added.name << " added (" << added.partitions
            << (added.partitions == 1 ? " partition)" : " partitions)") << std::endl;
      }
      write_file_atomic(add_topic_answer_file(file), answer);
      continue;
    }
    if (sig != SIGHUP) break;
    watch.reset();
    broker.reset();
    watch = std::make_unique<RetentionWatch>(broker.bootstrap(), broker.topics(), broker.retention_bytes());
    address.bootstrap = broker.bootstrap();
    address.generation++;
    write_broker_address(file, address);
    out << "reset: topics wiped and created again empty; now at " << broker.bootstrap() << std::endl;
  }
  watch.reset();
  // Remove the file only while it is still ours (another broker may have taken it over).
  if (auto current = read_broker_address(file); current && current->pid == getpid()) remove_all(file);
  out << "stopped" << std::endl;
}

void request_add_topic(const std::string& address_file, const TopicSpec& topic, int timeout_ms) {
  std::string file = absolute_path(address_file);
  auto running = read_broker_address(file);
  if (!running || !process_alive(running->pid))
    throw Error("no embedded broker is running for " + file + ": start one with `lakestream broker --topic " +
                topic.name + ":" + std::to_string(topic.partitions) + "`");
  std::string answer_file = add_topic_answer_file(file);
  remove_all(answer_file);
  write_file_atomic(add_topic_request_file(file), topic.name + ":" + std::to_string(topic.partitions) + "\n");
  if (kill(running->pid, SIGUSR1) != 0)
    throw Error("cannot signal the embedded broker (pid " + std::to_string(running->pid) + "): " +
                std::string(strerror(errno)));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (path_exists(answer_file)) {
      std::string answer = read_file(answer_file);
      remove_all(answer_file);
      remove_all(add_topic_request_file(file));
      if (answer != "ok") throw Error(answer);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw Error("the embedded broker (pid " + std::to_string(running->pid) + ") did not answer within " +
              std::to_string(timeout_ms / 1000) + " s; is it stuck? stop it and start it again");
}

std::string request_broker_reset(const std::string& address_file, int timeout_ms) {
  std::string file = absolute_path(address_file);
  auto before = read_broker_address(file);
  if (!before || !process_alive(before->pid))
    throw Error("no embedded broker is running for " + file + ": nothing to reset");
  if (kill(before->pid, SIGHUP) != 0)
    throw Error("cannot signal the embedded broker (pid " + std::to_string(before->pid) + "): " +
                std::string(strerror(errno)));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    auto now = read_broker_address(file);
    if (now && now->pid == before->pid && now->generation != before->generation) return now->bootstrap;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw Error("the embedded broker (pid " + std::to_string(before->pid) + ") did not reset within " +
              std::to_string(timeout_ms / 1000) + " s; is it stuck? stop it and start it again");
}

}  // namespace lakestream
