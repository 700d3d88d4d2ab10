// Reading and writing the embedded broker's address file, and resolving "embedded" through it.
#include "broker/broker_address.h"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"

namespace lakestream {

std::string broker_address_file(const std::string& name) {
  std::string file;
  if (const char* given = std::getenv("LAKESTREAM_BROKER_FILE"); given && *given) file = given;
  else if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
    file = join_path(join_path(runtime, "lakestream"), "broker.json");
  else
    file = "/tmp/lakestream-" + std::to_string(getuid()) + "/broker.json";
  if (name.empty()) return file;
  auto slash = file.rfind('/');
  return (slash == std::string::npos ? std::string() : file.substr(0, slash + 1)) + "broker-" + name + ".json";
}

std::optional<std::string> embedded_broker_name(const std::string& bootstrap) {
  static const std::string prefix = "embedded:";
  if (bootstrap == "embedded") return std::string();
  if (bootstrap.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string name = bootstrap.substr(prefix.size());
  bool plain = !name.empty() && name.size() <= 100;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) plain = false;
  if (!plain)
    throw Error("bootstrap \"" + bootstrap + "\": the embedded broker's name must be letters, digits, '.', '_' or '-' "
                "(at most 100), as in \"embedded:shop\"");
  return name;
}

void write_broker_address(const std::string& path, const BrokerAddress& address) {
  nlohmann::json topics = nlohmann::json::array();
  for (const auto& topic : address.topics) topics.push_back({{"name", topic.name}, {"partitions", topic.partitions}});
  nlohmann::json doc = {{"bootstrap", address.bootstrap},
                        {"pid", address.pid},
                        {"generation", address.generation},
                        {"topics", topics}};
  if (!address.schema_registry.empty()) doc["schemaRegistry"] = address.schema_registry;
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
    address.schema_registry = doc.value("schemaRegistry", "");
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

std::string resolve_bootstrap(const std::string& bootstrap, const std::vector<std::string>& topics) {
  auto name = embedded_broker_name(bootstrap);
  if (!name) return bootstrap;
  std::string file = broker_address_file(*name);
  auto address = read_broker_address(file);
  if (!address || !process_alive(address->pid)) {
    std::string command = "lakestream broker";
    if (!name->empty()) command += " --name " + *name;
    for (const auto& topic : topics) command += " --topic " + topic + ":3";
    if (topics.empty()) command += " --topic TOPIC:3";
    throw Error("bootstrap = \"" + bootstrap + "\" but no embedded broker " + (name->empty() ? "" : "named " + *name + " ") +
                "is running: start one with `" + command + "` (it writes " + file + ")");
  }
  return address->bootstrap;
}

std::string resolve_schema_registry(const std::string& registry) {
  auto name = embedded_broker_name(registry);
  if (!name) return registry;
  std::string file = broker_address_file(*name);
  auto address = read_broker_address(file);
  std::string command = "lakestream broker --schema-registry" + (name->empty() ? "" : " --name " + *name);
  if (!address || !process_alive(address->pid))
    throw Error("schema_registry = \"" + registry + "\" but no embedded broker " +
                (name->empty() ? "" : "named " + *name + " ") + "is running: start one with `" + command + "`");
  if (address->schema_registry.empty())
    throw Error("schema_registry = \"" + registry + "\" but the embedded broker " +
                (name->empty() ? "" : "named " + *name + " ") + "serves no schema registry: start it with `" +
                command + "`");
  return address->schema_registry;
}

}  // namespace lakestream
