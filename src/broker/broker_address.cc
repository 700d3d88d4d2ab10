// Reading and writing the embedded broker's address file, and resolving "embedded" through it.
#include "broker/broker_address.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"

namespace lakestream {

std::string broker_address_file() {
  if (const char* file = std::getenv("LAKESTREAM_BROKER_FILE"); file && *file) return file;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
    return join_path(join_path(runtime, "lakestream"), "broker.json");
  return "/tmp/lakestream-" + std::to_string(getuid()) + "/broker.json";
}

void write_broker_address(const std::string& path, const BrokerAddress& address) {
  nlohmann::json topics = nlohmann::json::array();
  for (const auto& topic : address.topics) topics.push_back({{"name", topic.name}, {"partitions", topic.partitions}});
  nlohmann::json doc = {{"bootstrap", address.bootstrap},
                        {"pid", address.pid},
                        {"generation", address.generation},
                        {"topics", topics}};
  auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) make_dirs(path.substr(0, slash), 0700);
  write_file_atomic(path, doc.dump(2) + "\n");
}

std::optional<BrokerAddress> read_broker_address(const std::string& path) {
  if (!path_exists(path)) return std::nullopt;
  try {
    auto doc = nlohmann::json::parse(read_file(path));
    BrokerAddress address;
    address.bootstrap = doc.at("bootstrap").get<std::string>();
    address.pid = doc.at("pid").get<int>();
    address.generation = doc.value("generation", int64_t{0});
    for (const auto& topic : doc.value("topics", nlohmann::json::array()))
      address.topics.push_back({topic.at("name").get<std::string>(), topic.at("partitions").get<int>()});
    return address;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + " is not a broker address file written by `lakestream broker` (" + e.what() +
                "); remove it and start `lakestream broker` again");
  }
}

bool process_alive(int pid) {
  // EPERM: it exists but belongs to someone else; still alive.
  return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

std::string resolve_bootstrap(const std::string& bootstrap) {
  if (bootstrap != "embedded") return bootstrap;
  std::string file = broker_address_file();
  auto address = read_broker_address(file);
  if (!address || !process_alive(address->pid))
    throw Error("bootstrap = \"embedded\" but no embedded broker is running: start one with "
                "`lakestream broker --topic orders:3` (it writes " + file + ")");
  return address->bootstrap;
}

}  // namespace lakestream
