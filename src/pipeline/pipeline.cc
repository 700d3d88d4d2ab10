// The validated pipeline's lookups: which stream writes a table, where tables and checkpoints
// live, and the order streams run in.
#include "pipeline/pipeline.h"

#include <algorithm>
#include <cctype>

#include "pipeline/did_you_mean.h"
#include "storage/storage_url.h"
#include "util/files.h"

namespace lakestream {

bool is_secret_property(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Named ones first; the substring rule catches the rest (ssl.keystore.password, vendor
  // plugins' *.secret) so that a new property is hidden by default rather than printed.
  static constexpr const char* kNamed[] = {
      "sasl.password",           "ssl.key.password",          "ssl.keystore.password",
      "ssl.truststore.password", "sasl.oauthbearer.client.secret",
      "sasl.oauthbearer.config",  // may hold clientSecret=...
      "ssl.key.pem",              // a private key in the property itself
      "basic.auth.user.info",     // a schema registry's user:password
  };
  for (const char* named : kNamed) {
    if (lower == named) return true;
  }
  return lower.find("password") != std::string::npos || lower.find("secret") != std::string::npos;
}

std::string deletes_retention_sql(const DeletesRetention& retention) {
  return retention.is_duration ? "to_microseconds(" + std::to_string(retention.amount) + "::BIGINT)"
                               : std::to_string(retention.amount);
}

const Source* Pipeline::find_source(const std::string& name) const {
  for (const auto& source : sources) {
    if (source.name == name) return &source;
  }
  return nullptr;
}

const Stream* Pipeline::find_stream(const std::string& name) const {
  for (const auto& stream : streams) {
    if (stream.name == name) return &stream;
  }
  return nullptr;
}

std::string Pipeline::no_stream_named(const std::string& name) const {
  std::string message = "no stream named " + name + " in " + path;
  if (const Stream* writer = writer_of(name))
    return message + ": " + name + " is a table, written by stream " + writer->name + "; name that stream";
  std::vector<std::string> names;
  for (const auto& s : streams) names.push_back(s.name);
  if (auto close = closest_spelling(name, names)) return message + "; did you mean " + *close + "?";
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  return message + "; its streams: " + known;
}

std::string Pipeline::worker_group(const Stream& stream) const {
  if (stream.kind != StreamKind::Ingest) return "";
  const Source* source = find_source(stream.source);
  if (source && source->is_kinesis()) return "";  // workers share a Kafka consumer group; a Kinesis stream has one reader
  std::string group = source && !source->group.empty() ? source->group : kafka.group;
  return group.empty() ? "" : group + "." + stream.name;
}

const Stream* Pipeline::writer_of(const std::string& table) const {
  for (const auto& stream : streams) {
    if (stream.table == table) return &stream;
  }
  return nullptr;
}

std::string Pipeline::table_path(const std::string& table) const {
  auto own = table_locations.find(table);
  if (own != table_locations.end()) return own->second;
  return join_path(tables_dir, table);
}

bool Pipeline::has_remote_tables() const {
  if (storage::is_object_store_url(tables_dir)) return true;
  for (const auto& [table, location] : table_locations)
    if (storage::is_object_store_url(location)) return true;
  return false;
}

std::string Pipeline::checkpoint_path(const std::string& stream) const { return join_path(checkpoints_dir, stream); }

std::string Pipeline::checkpoint_url(const std::string& stream) const {
  std::string base = checkpoints_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + stream;
}

std::vector<std::string> Stream::tables_written() const {
  std::vector<std::string> names{table};
  if (kind == StreamKind::Ingest) names.push_back(table + "_quarantine");
  if (!deleted_table().empty()) names.push_back(deleted_table());
  return names;
}

std::map<std::string, std::string> Pipeline::table_properties(const Stream& stream) const {
  std::map<std::string, std::string> properties;
  if (stream.change_data_feed) properties["delta.enableChangeDataFeed"] = "true";
  if (checkpoint_policy == "v2") properties["delta.checkpointPolicy"] = "v2";
  std::string mode = stream.column_mapping.empty() ? column_mapping : stream.column_mapping;
  if (iceberg_for(stream)) {
    properties["lakestream.iceberg"] = "true";
    mode = "id";  // the pipeline file refuses another mode with iceberg
  }
  // "none" asks nothing: a table another writer gave column mapping keeps it.
  if (mode != "none") properties["delta.columnMapping.mode"] = mode;
  return properties;
}

const char* source_read_name(SourceRead read) {
  switch (read) {
    case SourceRead::Appends: return "appends";
    case SourceRead::SkipChanges: return "skip_changes";
    case SourceRead::Changes: return "changes";
  }
  return "appends";
}

std::vector<std::string> Pipeline::table_names() const {
  std::vector<std::string> names;
  for (const auto& stream : streams)
    for (auto& name : stream.tables_written()) names.push_back(std::move(name));
  return names;
}

std::vector<const Stream*> Pipeline::in_dependency_order() const {
  // Repeatedly take the first stream (in file order) whose input is ready: a topological order
  // that keeps the file's order wherever dependencies allow, so runs are predictable.
  std::vector<const Stream*> order;
  std::vector<bool> placed(streams.size(), false);
  auto is_ready = [&](const Stream& stream) {
    if (stream.kind == StreamKind::Ingest) return true;
    const Stream* writer = writer_of(stream.from);
    if (!writer) return true;  // load_pipeline refuses this; nothing to wait for here
    return std::find(order.begin(), order.end(), writer) != order.end();
  };
  while (order.size() < streams.size()) {
    bool progressed = false;
    for (size_t i = 0; i < streams.size(); ++i) {
      if (placed[i] || !is_ready(streams[i])) continue;
      placed[i] = true;
      order.push_back(&streams[i]);
      progressed = true;
      break;
    }
    if (!progressed) break;  // a cycle, which load_pipeline refuses; leave those streams out
  }
  return order;
}

}  // namespace lakestream
