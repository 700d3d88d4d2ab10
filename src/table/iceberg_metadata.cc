#include "table/iceberg_metadata.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "table/avro_container.h"
#include "table/change_rows.h"  // commit_time_ms
#include "table/column_mapping.h"
#include "table/delta_types.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "util/civil_date.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/log_time.h"

namespace lakestream::delta {

namespace {

using nlohmann::json;

constexpr const char* kHint = "metadata/version-hint.text";
// Partition field ids start here, as Iceberg's own writers number them.
constexpr int kFirstPartitionFieldId = 1000;
// Delta keeps a string's statistics to its first 32 characters: a maximum that long may be cut.
constexpr size_t kStringStatsLength = 32;

int64_t field_id_of(const Column& column) {
  auto id = column.metadata.find("delta.columnMapping.id");
  return id != column.metadata.end() && id->is_number_integer() ? id->get<int64_t>() : 0;
}

// The Iceberg type of a Delta primitive type; "" for one Iceberg has not (a nested type).
std::string iceberg_type_of(const json& type) {
  if (!type.is_string()) return "";
  std::string name = type.get<std::string>();
  if (name == "long") return "long";
  if (name == "integer" || name == "short" || name == "byte") return "int";
  if (name == "string") return "string";
  if (name == "double") return "double";
  if (name == "float") return "float";
  if (name == "boolean") return "boolean";
  if (name == "date") return "date";
  if (name == "timestamp") return "timestamptz";
  if (name == "timestamp_ntz") return "timestamp";
  if (name == "binary") return "binary";
  if (decimal_precision(type) > 0) {
    auto open = name.find('('), comma = name.find(',');
    return "decimal(" + name.substr(open + 1, comma - open - 1) + ", " + name.substr(comma + 1, name.size() - comma - 2) +
           ")";
  }
  return "";
}

// The Avro type of a partition value of Iceberg type `type`; null for one not supported here.
json avro_partition_type(const std::string& type) {
  if (type == "int" || type == "long" || type == "string" || type == "boolean" || type == "double") return type;
  if (type == "date") return {{"type", "int"}, {"logicalType", "date"}};
  if (type == "timestamptz" || type == "timestamp")
    return {{"type", "long"}, {"logicalType", "timestamp-micros"}, {"adjust-to-utc", type == "timestamptz"}};
  return nullptr;
}

const Column& column_named(const Metadata& metadata, const std::string& name) {
  for (const auto& column : metadata.schema)
    if (column.name == name) return column;
  throw Error("internal: partition column " + name + " is not a column of the table");
}

// The table's location as Iceberg's paths start with: a URL, or file:// and a folder.
std::string location_of(const Table& table) {
  std::string path = table.normal().path();
  return is_remote_table(path) ? path : "file://" + path;
}

// --- values in Iceberg's single-value binary serialization ---------------------------------

std::string little_endian(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; i++) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return out;
}

// Days since the epoch of "YYYY-MM-DD" (what may follow is ignored); nullopt when it is not one.
std::optional<int64_t> days_of(const std::string& text) {
  int y, m, d;
  if (text.size() < 10 || std::sscanf(text.c_str(), "%4d-%2d-%2d", &y, &m, &d) != 3) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

// Microseconds since the epoch of "YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH:MM]" (no zone: UTC).
std::optional<int64_t> micros_of(const std::string& text) {
  auto days = days_of(text);
  int h, mi, s;
  if (!days || text.size() < 19 || (text[10] != 'T' && text[10] != ' ') ||
      std::sscanf(text.c_str() + 11, "%2d:%2d:%2d", &h, &mi, &s) != 3)
    return std::nullopt;
  int64_t micros = ((*days * 24 + h) * 60 + mi) * 60 + s;
  micros *= 1000000;
  size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    int64_t scale = 100000;
    for (at++; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); at++, scale /= 10)
      micros += (text[at] - '0') * scale;
  }
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int oh, om;
    if (std::sscanf(text.c_str() + at + 1, "%2d:%2d", &oh, &om) != 2) return std::nullopt;
    int64_t offset = (oh * 60 + om) * 60 * 1000000LL;
    micros += text[at] == '+' ? -offset : offset;
  }
  return micros;
}

// The bound of a column of Delta type `type` from its statistics value, or nullopt when it is not
// one Iceberg can be given safely. `upper`: an upper bound (a timestamp's statistics are kept to
// the millisecond; a string's to its first characters).
std::optional<std::string> bound_of(const json& type, const json& value, bool upper) {
  std::string iceberg = iceberg_type_of(type);
  if (iceberg == "int" && value.is_number_integer()) return little_endian(static_cast<uint32_t>(value.get<int32_t>()), 4);
  if (iceberg == "long" && value.is_number_integer()) return little_endian(static_cast<uint64_t>(value.get<int64_t>()), 8);
  if (iceberg == "boolean" && value.is_boolean()) return std::string(1, value.get<bool>() ? 1 : 0);
  if (iceberg == "date" && value.is_string()) {
    auto days = days_of(value.get<std::string>());
    if (days) return little_endian(static_cast<uint32_t>(static_cast<int32_t>(*days)), 4);
  }
  if ((iceberg == "timestamptz" || iceberg == "timestamp") && value.is_string()) {
    auto micros = micros_of(value.get<std::string>());
    if (micros) return little_endian(static_cast<uint64_t>(*micros + (upper ? 999 : 0)), 8);
  }
  if (iceberg == "string" && value.is_string()) {
    std::string text = value.get<std::string>();
    size_t characters = 0;
    for (unsigned char c : text) characters += (c & 0xc0) != 0x80;
    if (!upper || characters < kStringStatsLength) return text;
  }
  if (iceberg.starts_with("decimal") && value.is_number()) {
    // The unscaled value, big-endian two's complement in the fewest bytes; only where a double
    // holds it exactly.
    int scale = std::stoi(iceberg.substr(iceberg.find(',') + 1));
    double unscaled = value.get<double>() * std::pow(10.0, scale);
    if (std::fabs(unscaled) >= 9007199254740992.0) return std::nullopt;
    int64_t n = std::llround(unscaled);
    std::string bytes = little_endian(static_cast<uint64_t>(n), 8);
    std::string big(bytes.rbegin(), bytes.rend());
    while (big.size() > 1 && ((big[0] == 0 && !(big[1] & 0x80)) || (big[0] == '\xff' && (big[1] & 0x80)))) big.erase(0, 1);
    return big;
  }
  return std::nullopt;
}

// --- the Avro schemas of manifests and manifest lists (the Iceberg spec's, with field ids) ---

json optional_field(const std::string& name, json type, int id) {
  return {{"name", name}, {"type", json::array({"null", std::move(type)})}, {"default", nullptr}, {"field-id", id}};
}

json stats_map(const std::string& value_type, int key_id, int value_id) {
  return {{"type", "array"},
          {"logicalType", "map"},
          {"items",
           {{"type", "record"},
            {"name", "k" + std::to_string(key_id) + "_v" + std::to_string(value_id)},
            {"fields", json::array({{{"name", "key"}, {"type", "int"}, {"field-id", key_id}},
                                    {{"name", "value"}, {"type", value_type}, {"field-id", value_id}}})}}}};
}

json manifest_entry_schema(const json& partition_fields) {
  json data_file = {
      {"type", "record"},
      {"name", "r2"},
      {"fields",
       json::array({{{"name", "content"}, {"type", "int"}, {"field-id", 134}},
                    {{"name", "file_path"}, {"type", "string"}, {"field-id", 100}},
                    {{"name", "file_format"}, {"type", "string"}, {"field-id", 101}},
                    {{"name", "partition"}, {"type", {{"type", "record"}, {"name", "r102"}, {"fields", partition_fields}}}, {"field-id", 102}},
                    {{"name", "record_count"}, {"type", "long"}, {"field-id", 103}},
                    {{"name", "file_size_in_bytes"}, {"type", "long"}, {"field-id", 104}},
                    optional_field("value_counts", stats_map("long", 119, 120), 109),
                    optional_field("null_value_counts", stats_map("long", 121, 122), 110),
                    optional_field("lower_bounds", stats_map("bytes", 126, 127), 125),
                    optional_field("upper_bounds", stats_map("bytes", 129, 130), 128)})}};
  return {{"type", "record"},
          {"name", "manifest_entry"},
          {"fields", json::array({{{"name", "status"}, {"type", "int"}, {"field-id", 0}},
                                  optional_field("snapshot_id", "long", 1),
                                  optional_field("sequence_number", "long", 3),
                                  optional_field("file_sequence_number", "long", 4),
                                  {{"name", "data_file"}, {"type", data_file}, {"field-id", 2}}})}};
}

json manifest_file_schema() {
  json fields = json::array();
  for (auto [name, type, id] : std::initializer_list<std::tuple<const char*, const char*, int>>{
           {"manifest_path", "string", 500},          {"manifest_length", "long", 501},
           {"partition_spec_id", "int", 502},         {"content", "int", 517},
           {"sequence_number", "long", 515},          {"min_sequence_number", "long", 516},
           {"added_snapshot_id", "long", 503},        {"added_files_count", "int", 504},
           {"existing_files_count", "int", 505},      {"deleted_files_count", "int", 506},
           {"added_rows_count", "long", 512},         {"existing_rows_count", "long", 513},
           {"deleted_rows_count", "long", 514}})
    fields.push_back({{"name", name}, {"type", type}, {"field-id", id}});
  return {{"type", "record"}, {"name", "manifest_file"}, {"fields", fields}};
}

// --- the view -------------------------------------------------------------------------------

struct PartitionField {
  std::string name;       // the column's
  std::string physical;   // its key in partition values
  std::string type;       // Iceberg's
  int64_t source_id = 0;  // the column's field id
  int field_id = 0;
};

std::vector<PartitionField> partition_fields_of(const Metadata& metadata) {
  std::vector<PartitionField> fields;
  for (size_t i = 0; i < metadata.partition_columns.size(); i++) {
    const Column& column = column_named(metadata, metadata.partition_columns[i]);
    fields.push_back({column.name, physical_name(metadata, column), iceberg_type_of(column.type), field_id_of(column),
                      kFirstPartitionFieldId + static_cast<int>(i)});
  }
  return fields;
}

// A partition value (Delta's text) in the Avro encoding of its field's type.
void encode_partition_value(AvroEncoder& out, const PartitionField& field, const std::optional<std::string>& text,
                            const std::string& path) {
  if (!text) {
    out.write_union_branch(0);
    return;
  }
  out.write_union_branch(1);
  auto refuse = [&]() {
    throw Error("file " + path + " has partition value '" + *text + "' for " + field.name + ", which is not a " + field.type +
                " as its Iceberg metadata needs");
  };
  try {
    if (field.type == "string") out.write_string(*text);
    else if (field.type == "int" || field.type == "long") out.write_long(std::stoll(*text));
    else if (field.type == "boolean") out.write_boolean(*text == "true");
    else if (field.type == "double") {
      double value = std::stod(*text);
      out.write_raw(little_endian(std::bit_cast<uint64_t>(value), 8));
    } else if (field.type == "date") {
      auto days = days_of(*text);
      if (!days) refuse();
      out.write_long(*days);
    } else {
      auto micros = micros_of(*text);
      if (!micros) refuse();
      out.write_long(*micros);
    }
  } catch (const std::invalid_argument&) {
    refuse();
  } catch (const std::out_of_range&) {
    refuse();
  }
}

// The snapshot (and sequence number) that added `file`: the version whose commit added it, + 1.
int64_t added_in(const Snapshot& snapshot, const AddFile& file) {
  return (file.version >= 0 ? file.version : snapshot.version) + 1;
}

// The manifest entry of `file`, live in the snapshot of `version`.
std::string manifest_entry(const Snapshot& snapshot, const AddFile& file, const std::vector<PartitionField>& partition,
                           int64_t& rows) {
  const Metadata& metadata = snapshot.metadata;
  json stats = json::parse(file.stats.empty() ? "{}" : file.stats, nullptr, false);
  if (!stats.is_object() || !stats.contains("numRecords") || !stats["numRecords"].is_number_integer())
    throw Error("file " + file.path + " of table " + snapshot.table.path() +
                " has no numRecords in its statistics, which its Iceberg metadata needs");
  rows = stats["numRecords"].get<int64_t>();
  const int64_t sequence = added_in(snapshot, file);
  AvroEncoder out;
  out.write_int(sequence == snapshot.version + 1 ? 1 : 0);  // ADDED by this snapshot, else EXISTING
  for (int i = 0; i < 3; i++) {  // snapshot_id, sequence_number, file_sequence_number
    out.write_union_branch(1);
    out.write_long(sequence);
  }
  out.write_int(0);  // content: data
  std::string location = location_of(snapshot.table);
  out.write_string(location + "/" + file.path);
  out.write_string("PARQUET");
  for (const auto& field : partition) {
    auto value = file.partition_values.find(field.physical);
    encode_partition_value(out, field, value == file.partition_values.end() ? std::nullopt : value->second, file.path);
  }
  out.write_long(rows);
  out.write_long(file.size);
  // Statistics of the columns in the file (partition columns are not), by field id.
  std::vector<std::pair<int64_t, int64_t>> nulls;
  std::vector<std::pair<int64_t, std::string>> lower, upper;
  std::set<std::string> partition_columns(metadata.partition_columns.begin(), metadata.partition_columns.end());
  const json null_count = stats.value("nullCount", json::object());
  const json min_values = stats.value("minValues", json::object()), max_values = stats.value("maxValues", json::object());
  std::vector<int64_t> counted;
  for (const auto& column : metadata.schema) {
    if (partition_columns.count(column.name)) continue;
    int64_t id = field_id_of(column);
    std::string key = physical_name(metadata, column);
    if (null_count.contains(key) && null_count[key].is_number_integer()) {
      nulls.push_back({id, null_count[key].get<int64_t>()});
      counted.push_back(id);
    }
    if (min_values.contains(key))
      if (auto bound = bound_of(column.type, min_values[key], false)) lower.push_back({id, *bound});
    if (max_values.contains(key))
      if (auto bound = bound_of(column.type, max_values[key], true)) upper.push_back({id, *bound});
  }
  auto write_counts = [&](const std::vector<std::pair<int64_t, int64_t>>& counts) {
    out.write_union_branch(1);
    out.begin_items(counts.size());
    for (const auto& [id, n] : counts) {
      out.write_int(static_cast<int32_t>(id));
      out.write_long(n);
    }
    out.end_items();
  };
  std::vector<std::pair<int64_t, int64_t>> values;
  for (int64_t id : counted) values.push_back({id, rows});  // values, nulls included
  write_counts(values);
  write_counts(nulls);
  for (const auto* bounds : {&lower, &upper}) {
    out.write_union_branch(1);
    out.begin_items(bounds->size());
    for (const auto& [id, bytes] : *bounds) {
      out.write_int(static_cast<int32_t>(id));
      out.write_bytes(bytes);
    }
    out.end_items();
  }
  return out.bytes();
}

// What the commit of the snapshot's version did, as Iceberg names a snapshot's operation.
std::string operation_of(const CommitEntry& commit) {
  bool added = false, removed = false, rewritten = false;
  for (const auto& add : commit.adds) (add.data_change ? added : rewritten) = true;
  for (const auto& remove : commit.removes) (remove.data_change ? removed : rewritten) = true;
  if (added && removed) return "overwrite";
  if (removed) return "delete";
  if (rewritten && !added) return "replace";
  return "append";
}

// The schema's id: the same for the same fields, another for any change (an added, renamed or
// dropped column), as Iceberg readers take an id to name one schema for good. Each view holds
// only its own schema, so the id is a hash of its fields (31 bits, FNV-1a), not a count.
int schema_id_of(const json& fields) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : fields.dump()) hash = (hash ^ c) * 16777619u;
  return static_cast<int>(hash & 0x7fffffff);
}

json iceberg_schema(const Metadata& metadata) {
  json fields = json::array();
  for (const auto& column : metadata.schema)
    fields.push_back({{"id", field_id_of(column)}, {"name", column.name}, {"required", !column.nullable},
                      {"type", iceberg_type_of(column.type)}});
  return {{"type", "struct"}, {"schema-id", schema_id_of(fields)}, {"fields", fields}};
}

}  // namespace

bool iceberg_enabled(const Metadata& metadata) {
  auto it = metadata.configuration.find(kIcebergProperty);
  return it != metadata.configuration.end() && it->second == "true";
}

std::string iceberg_unfit_reason(const Metadata& metadata) {
  if (!maps_by_field_id(metadata))
    return "its Iceberg metadata needs column mapping in id mode (delta.columnMapping.mode = id), so that its Parquet files "
           "carry the field ids Iceberg readers look columns up by";
  if (deletion_vectors_enabled(metadata))
    return "it has deletion vectors on (delta.enableDeletionVectors), whose deleted rows an Iceberg v2 reader would read";
  for (const auto& column : metadata.schema) {
    if (iceberg_type_of(column.type).empty())
      return "column " + column.name + " is of type " + column.type.dump() + ", which its Iceberg metadata does not describe";
    if (field_id_of(column) <= 0) return "column " + column.name + " has no column mapping id";
  }
  for (const auto& field : partition_fields_of(metadata))
    if (avro_partition_type(field.type).is_null())
      return "its partition column " + field.name + " is a " + field.type + ", which its Iceberg metadata does not partition by";
  return "";
}

void write_iceberg_metadata(const Snapshot& snapshot) {
  CpuScope cpu_scope("write_iceberg_metadata");
  const Metadata& metadata = snapshot.metadata;
  const Table& table = snapshot.table;
  if (std::string unfit = iceberg_unfit_reason(metadata); !unfit.empty())
    throw Error("table " + table.path() + " cannot have Iceberg metadata: " + unfit);
  const int64_t sequence = snapshot.version + 1;  // Iceberg's snapshot id, sequence number and metadata version
  const std::string n = std::to_string(sequence);
  const std::string location = location_of(table);
  std::vector<PartitionField> partition = partition_fields_of(metadata);

  json spec_fields = json::array(), avro_partition = json::array();
  for (const auto& field : partition) {
    spec_fields.push_back(
        {{"name", field.name}, {"transform", "identity"}, {"source-id", field.source_id}, {"field-id", field.field_id}});
    avro_partition.push_back(optional_field(field.name, avro_partition_type(field.type), field.field_id));
  }
  // The manifest: every live file, each with the snapshot that added it.
  std::vector<std::string> entries;
  int64_t added_files = 0, existing_files = 0, added_rows = 0, existing_rows = 0, min_sequence = sequence;
  for (const auto& file : snapshot.files) {
    if (file.deletion_vector) throw Error("table " + table.path() + " has deletion vectors, which its Iceberg metadata cannot describe");
    int64_t rows = 0;
    entries.push_back(manifest_entry(snapshot, file, partition, rows));
    const bool added_now = added_in(snapshot, file) == sequence;
    min_sequence = std::min(min_sequence, added_in(snapshot, file));
    (added_now ? added_files : existing_files) += 1;
    (added_now ? added_rows : existing_rows) += rows;
  }
  const json schema = iceberg_schema(metadata);
  const int schema_id = schema["schema-id"].get<int>();
  std::string schema_text = schema.dump();
  std::string manifest = avro_container_file(manifest_entry_schema(avro_partition).dump(),
                                             {{"schema", schema_text},
                                              {"schema-id", std::to_string(schema_id)},
                                              {"partition-spec", spec_fields.dump()},
                                              {"partition-spec-id", "0"},
                                              {"format-version", "2"},
                                              {"content", "data"}},
                                             entries);
  const std::string manifest_key = "metadata/" + n + "-m0.avro";
  put_table_file(table, manifest_key, manifest);

  AvroEncoder listed;
  listed.write_string(location + "/" + manifest_key);
  listed.write_long(static_cast<int64_t>(manifest.size()));
  listed.write_int(0);  // partition spec
  listed.write_int(0);  // content: data
  listed.write_long(sequence);
  listed.write_long(min_sequence);
  listed.write_long(sequence);
  listed.write_int(static_cast<int32_t>(added_files));
  listed.write_int(static_cast<int32_t>(existing_files));
  listed.write_int(0);
  listed.write_long(added_rows);
  listed.write_long(existing_rows);
  listed.write_long(0);
  const std::string list_key = "metadata/snap-" + n + ".avro";
  put_table_file(table, list_key,
                 avro_container_file(manifest_file_schema().dump(),
                                     {{"snapshot-id", n}, {"sequence-number", n}, {"format-version", "2"}},
                                     {listed.bytes()}));

  // The commit's time and operation.
  std::vector<CommitEntry> commits = read_commits(table, snapshot.version, snapshot.version);
  int64_t at = commit_time_ms(commits.front()).value_or(now_epoch_ms());
  int64_t total_rows = added_rows + existing_rows;
  int64_t last_column_id = 0;
  for (const auto& column : metadata.schema) last_column_id = std::max(last_column_id, field_id_of(column));
  auto max_id = metadata.configuration.find("delta.columnMapping.maxColumnId");
  if (max_id != metadata.configuration.end()) last_column_id = std::max<int64_t>(last_column_id, std::stoll(max_id->second));
  json snapshot_json = {{"snapshot-id", sequence},
                        {"sequence-number", sequence},
                        {"timestamp-ms", at},
                        {"manifest-list", location + "/" + list_key},
                        {"schema-id", schema_id},
                        {"summary",
                         {{"operation", operation_of(commits.front())},
                          {"added-data-files", std::to_string(added_files)},
                          {"added-records", std::to_string(added_rows)},
                          {"total-data-files", std::to_string(snapshot.files.size())},
                          {"total-records", std::to_string(total_rows)},
                          {"total-delete-files", "0"},
                          {"total-position-deletes", "0"},
                          {"total-equality-deletes", "0"}}}};
  json view = {{"format-version", 2},
               {"table-uuid", metadata.id},
               {"location", location},
               {"last-sequence-number", sequence},
               {"last-updated-ms", at},
               {"last-column-id", last_column_id},
               {"current-schema-id", schema_id},
               {"schemas", json::array({schema})},
               {"default-spec-id", 0},
               {"partition-specs", json::array({{{"spec-id", 0}, {"fields", spec_fields}}})},
               {"last-partition-id", kFirstPartitionFieldId - 1 + static_cast<int>(partition.size())},
               {"default-sort-order-id", 0},
               {"sort-orders", json::array({{{"order-id", 0}, {"fields", json::array()}}})},
               {"properties",
                {{"converted_delta_version", std::to_string(snapshot.version)},
                 {"converted_delta_timestamp", std::to_string(at)},
                 {"format-version", "2"}}},
               {"current-snapshot-id", sequence},
               {"refs", {{"main", {{"snapshot-id", sequence}, {"type", "branch"}}}}},
               {"snapshots", json::array({snapshot_json})},
               {"snapshot-log", json::array({{{"timestamp-ms", at}, {"snapshot-id", sequence}}})},
               {"metadata-log", json::array()}};
  put_table_file(table, "metadata/v" + n + ".metadata.json", view.dump(2) + "\n");
  // The hint only moves forward: a writer that was slower to describe an older version leaves
  // a newer hint in place.
  auto current = iceberg_metadata_version(table);
  if (!current || *current < snapshot.version) put_table_file(table, kHint, n);
  // Older views go as Iceberg's own writers let them (write.metadata.previous-versions-max):
  // the newest kIcebergViewsKept stay. Every kIcebergViewsKept-th view deletes the hundred before
  // those, by name (no listing), so a service writing a view per commit keeps a bounded folder.
  if (sequence % kIcebergViewsKept == 0)
    for (int64_t old = sequence - 2 * kIcebergViewsKept + 1; old <= sequence - kIcebergViewsKept; old++) {
      if (old < 1) continue;
      std::string m = std::to_string(old);
      for (const std::string& key : {"metadata/v" + m + ".metadata.json", "metadata/snap-" + m + ".avro", "metadata/" + m + "-m0.avro"})
        remove_table_file(table, key);
    }
}

std::optional<int64_t> iceberg_metadata_version(const Table& table) {
  auto hint = read_table_file(table, kHint);
  if (!hint) return std::nullopt;
  try {
    return std::stoll(*hint) - 1;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged hint: the next view replaces it
  }
}

bool catch_up_iceberg_metadata(const Table& table) {
  int64_t newest = latest_version(table);
  if (newest < 0) return false;
  auto described = iceberg_metadata_version(table);
  if (described && *described >= newest) return false;
  Snapshot snapshot = load_snapshot(table, newest);
  if (!iceberg_enabled(snapshot.metadata)) return false;
  write_iceberg_metadata(snapshot);
  return true;
}

}  // namespace lakestream::delta
