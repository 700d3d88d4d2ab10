#include "checkpoint/planned_batch.h"

#include "util/error.h"

namespace lakestream {

namespace {

KafkaInput decode_kafka(const nlohmann::json& j) {
  KafkaInput input;
  auto start = offsets_of(j.at("start"));
  // A partition the plan ends but does not start reads nothing (as the batch that planned it read).
  for (const auto& [p, end] : offsets_of(j.at("end"))) input.partitions[p] = {start.count(p) ? start[p] : end, end};
  if (j.contains("dataLoss")) input.data_loss = data_loss_of(j["dataLoss"]);
  if (j.contains("lastRead"))
    for (const auto& [p, last] : j["lastRead"].items())
      input.last_read[std::stoi(p)] = {last.at("offset").get<int64_t>(), last.at("timestamp").get<int64_t>(),
                                       last.at("fingerprint").get<std::string>()};
  return input;
}

KinesisInput decode_kinesis(const nlohmann::json& j) {
  KinesisInput input;
  for (const auto& [id, shard] : j.items()) {
    ShardRead& read = input.shards[id];
    read.start = shard.at("start").get<int64_t>();
    read.end = shard.at("end").get<int64_t>();
    read.first = shard.value("first", "");
    read.last = shard.value("last", "");
    read.position = shard.value("position", "");
    read.finished = shard.value("finished", false);
    if (shard.contains("fromMs")) read.from_ms = shard["fromMs"].get<int64_t>();
    if (read.reads() != !read.first.empty() || read.first.empty() != read.last.empty() || read.end < read.start)
      throw nlohmann::json::other_error::create(501, "shard " + id + " has a range that does not add up", &shard);
  }
  return input;
}

nlohmann::json kinesis_json(const KinesisInput& input) {
  nlohmann::json shards = nlohmann::json::object();
  for (const auto& [id, read] : input.shards) {
    nlohmann::json& shard = shards[id];
    shard = {{"start", read.start}, {"end", read.end}};
    if (read.reads()) {
      shard["first"] = read.first;
      shard["last"] = read.last;
    }
    if (!read.position.empty()) shard["position"] = read.position;
    if (read.finished) shard["finished"] = true;
    if (read.from_ms) shard["fromMs"] = *read.from_ms;
  }
  return shards;
}

TableInput decode_table(const nlohmann::json& j) {
  return {j.at("from").get<int64_t>(), j.at("to").get<int64_t>(), j.value("noData", false)};
}

[[noreturn]] void damaged(int64_t id, const std::string& why) {
  throw Error("the checkpoint's planned batch " + std::to_string(id) + " is damaged: " + why +
              ". Restore the checkpoint from a backup, or start the stream over with a new checkpoint.");
}

}  // namespace

std::map<int32_t, int64_t> KafkaInput::start_offsets() const { return lakestream::start_offsets(partitions); }

std::map<int32_t, int64_t> KafkaInput::end_offsets() const { return lakestream::end_offsets(partitions); }

const KafkaInput& PlannedBatch::kafka() const {
  if (const auto* kafka = std::get_if<KafkaInput>(&input)) return *kafka;
  damaged(id, "it holds no Kafka offsets, which a stream reading Kafka expects");
}

const KinesisInput& PlannedBatch::kinesis() const {
  if (const auto* kinesis = std::get_if<KinesisInput>(&input)) return *kinesis;
  damaged(id, "it holds no Kinesis shards, which a stream reading Kinesis expects");
}

const TableInput& PlannedBatch::table() const {
  if (const auto* table = std::get_if<TableInput>(&input)) return *table;
  damaged(id, "it holds source positions where a stream reading a table expects versions");
}

std::string encode_planned_batch(const PlannedBatch& batch) {
  nlohmann::json j;
  if (const auto* kafka = std::get_if<KafkaInput>(&batch.input)) {
    j = {{"start", offsets_json(kafka->start_offsets())}, {"end", offsets_json(kafka->end_offsets())}};
    if (!kafka->data_loss.empty()) j["dataLoss"] = data_loss_json(kafka->data_loss);
    if (!kafka->last_read.empty()) {
      nlohmann::json last_read = nlohmann::json::object();
      for (const auto& [p, last] : kafka->last_read)
        last_read[std::to_string(p)] = {
            {"offset", last.offset}, {"timestamp", last.timestamp_ms}, {"fingerprint", last.fingerprint}};
      j["lastRead"] = last_read;
    }
  } else if (const auto* kinesis = std::get_if<KinesisInput>(&batch.input)) {
    j = {{"kinesis", kinesis_json(*kinesis)}};
    if (!kinesis->data_loss.empty()) j["dataLoss"] = data_loss_json(kinesis->data_loss);
  } else {
    const auto& table = std::get<TableInput>(batch.input);
    j = {{"from", table.from}, {"to", table.to}};
    if (table.no_data) j["noData"] = true;
  }
  return j.dump() + "\n";
}

PlannedBatch decode_planned_batch(int64_t id, const std::string& text, const std::string& file) {
  PlannedBatch batch{id, TableInput{}};
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw Error("the checkpoint is damaged: " + file + " is not valid JSON. Restore it, or start the stream over "
                "with a new checkpoint.");
  try {
    if (j.contains("kinesis")) {
      KinesisInput kinesis = decode_kinesis(j.at("kinesis"));
      if (j.contains("dataLoss")) kinesis.data_loss = data_loss_of(j["dataLoss"]);
      batch.input = std::move(kinesis);
    }
    else if (j.contains("end")) batch.input = decode_kafka(j);
    else batch.input = decode_table(j);
  } catch (const nlohmann::json::exception& e) {
    throw Error("the checkpoint is damaged: " + file + " is not a planned batch (" + e.what() +
                "). Restore it, or start the stream over with a new checkpoint.");
  } catch (const std::invalid_argument&) {
    throw Error("the checkpoint is damaged: " + file + " names a partition that is not a number. Restore it, or "
                "start the stream over with a new checkpoint.");
  }
  return batch;
}

}  // namespace lakestream
