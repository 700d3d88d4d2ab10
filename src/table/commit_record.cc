#include "table/commit_record.h"

namespace lakestream {

namespace {

std::optional<int64_t> optional_int(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
  return j[key].get<int64_t>();
}

}  // namespace

nlohmann::json offsets_json(const std::map<int32_t, int64_t>& offsets) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [p, o] : offsets) j[std::to_string(p)] = o;
  return j;
}

std::map<int32_t, int64_t> offsets_of(const nlohmann::json& j) {
  std::map<int32_t, int64_t> offsets;
  for (const auto& [p, o] : j.items()) offsets[std::stoi(p)] = o.get<int64_t>();
  return offsets;
}

nlohmann::json data_loss_json(const std::vector<DataLoss>& gaps) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& gap : gaps) {
    nlohmann::json g = {{"partition", gap.partition}, {"readUpTo", gap.read_up_to}, {"reason", gap.reason}};
    if (gap.continued_from) g["continuedFrom"] = *gap.continued_from;
    j.push_back(g);
  }
  return j;
}

std::vector<DataLoss> data_loss_of(const nlohmann::json& gaps) {
  std::vector<DataLoss> result;
  for (const auto& gap : gaps) {
    DataLoss loss{gap.at("partition").get<int32_t>(), gap.at("readUpTo").get<int64_t>(), std::nullopt,
                  gap.value("reason", "")};
    if (gap.contains("continuedFrom")) loss.continued_from = gap["continuedFrom"].get<int64_t>();
    result.push_back(loss);
  }
  return result;
}

std::map<int32_t, int64_t> start_offsets(const OffsetRanges& ranges) {
  std::map<int32_t, int64_t> offsets;
  for (const auto& [partition, range] : ranges) offsets[partition] = range.start;
  return offsets;
}

std::map<int32_t, int64_t> end_offsets(const OffsetRanges& ranges) {
  std::map<int32_t, int64_t> offsets;
  for (const auto& [partition, range] : ranges) offsets[partition] = range.end;
  return offsets;
}

OffsetRanges offset_ranges(const std::map<int32_t, int64_t>& start, const std::map<int32_t, int64_t>& end) {
  OffsetRanges ranges;
  for (const auto& [partition, from] : start) ranges[partition] = {from, from};
  for (const auto& [partition, to] : end) ranges[partition].end = to;  // a new entry starts at 0
  return ranges;
}

nlohmann::json commit_info_json(const CommitRecord& r) {
  nlohmann::json own = nlohmann::json::object();
  if (!r.stream.empty()) own["stream"] = r.stream;
  if (r.batch_id) own["batchId"] = *r.batch_id;
  if (r.kafka)
    own["source"] = {{"topic", r.kafka->topic},
                     {"startOffsets", offsets_json(start_offsets(r.kafka->ranges))},
                     {"endOffsets", offsets_json(end_offsets(r.kafka->ranges))}};
  if (r.table)
    own["source"] = {{"table", r.table->table}, {"fromVersion", r.table->from_version}, {"toVersion", r.table->to_version}};
  if (!r.data_loss.empty()) own["dataLoss"] = data_loss_json(r.data_loss);
  if (r.group) own["group"] = *r.group;
  if (r.watermark_us) own["watermark"] = *r.watermark_us;
  if (r.source_version) own["sourceVersion"] = *r.source_version;
  if (r.source_max_batch_id) own["sourceMaxBatchId"] = *r.source_max_batch_id;
  if (r.recount) own["recount"] = true;
  return {{"lakestream", own}};
}

std::optional<CommitRecord> commit_record_of(const nlohmann::json& commit_info) {
  if (!commit_info.is_object() || !commit_info.contains("lakestream") || !commit_info["lakestream"].is_object())
    return std::nullopt;
  const auto& own = commit_info["lakestream"];
  CommitRecord r;
  if (own.contains("stream") && own["stream"].is_string()) r.stream = own["stream"].get<std::string>();
  r.batch_id = optional_int(own, "batchId");
  if (own.contains("source") && own["source"].is_object()) {
    const auto& source = own["source"];
    if (source.contains("topic"))
      r.kafka = KafkaRead{source["topic"].get<std::string>(),
                          offset_ranges(offsets_of(source.value("startOffsets", nlohmann::json::object())),
                                        offsets_of(source.value("endOffsets", nlohmann::json::object())))};
    if (source.contains("table"))
      r.table = TableRead{source["table"].get<std::string>(), optional_int(source, "fromVersion").value_or(0),
                          optional_int(source, "toVersion").value_or(0)};
  }
  if (own.contains("dataLoss")) r.data_loss = data_loss_of(own["dataLoss"]);
  if (own.contains("group") && own["group"].is_string()) r.group = own["group"].get<std::string>();
  r.watermark_us = optional_int(own, "watermark");
  r.source_version = optional_int(own, "sourceVersion");
  r.source_max_batch_id = optional_int(own, "sourceMaxBatchId");
  r.recount = own.value("recount", false);
  return r;
}

}  // namespace lakestream
