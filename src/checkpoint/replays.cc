#include "checkpoint/replays.h"

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_mirror.h"
#include "storage/object_store.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

namespace {

std::string record_path(const Pipeline& pipeline, const std::string& into) {
  return pipeline.checkpoint_path(into) + "/replay.json";
}

nlohmann::json to_json(const ReplaySpec& spec) {
  nlohmann::json j = {{"stream", spec.stream}, {"into", spec.into}};
  if (spec.watermark_delay_us) j["watermarkDelayUs"] = *spec.watermark_delay_us;
  return j;
}

// With the checkpoints on an object store the record is there too, written once under
// _lakestream_replays/<table>.json beside the streams' checkpoints (one short listing finds them
// all), so that the replay is a stream of the pipeline on any machine.
constexpr const char* kReplaysPrefix = "_lakestream_replays/";
bool checkpoints_on_store(const Pipeline& pipeline) { return !pipeline.checkpoints_url.empty(); }

std::unique_ptr<storage::ObjectStore> checkpoints_store(const Pipeline& pipeline) {
  return storage::open_store(pipeline.checkpoints_url, pipeline.storage);
}

// Copies the store's replay records into the working copy.
void pull_replay_records(const Pipeline& pipeline) {
  auto store = checkpoints_store(pipeline);
  const std::string suffix = ".json";
  for (const auto& object : store->list(kReplaysPrefix)) {
    const std::string& key = object.key;
    if (key.size() <= suffix.size() || key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::string into = key.substr(std::string(kReplaysPrefix).size(), key.size() - suffix.size() - std::string(kReplaysPrefix).size());
    if (into.empty() || into.find('/') != std::string::npos) continue;
    auto data = store->get(key);
    if (!data) continue;
    // Not JSON: an upload a kill cut short, on a store that keeps what arrived (s3rver). The
    // record is written before the replay reads or writes anything: nothing depends on it.
    if (is_cut_short_record(*data)) {
      store->remove(key);
      continue;
    }
    std::string path = record_path(pipeline, into);
    if (path_exists(path) && read_file(path) == *data) continue;
    make_dirs(pipeline.checkpoint_path(into), 0700);
    write_file_atomic(path, *data, 0600);
  }
}

}  // namespace

Stream replay_stream(const Pipeline& pipeline, const ReplaySpec& spec) {
  const Stream* original = pipeline.find_stream(spec.stream);
  if (!original) throw Error(pipeline.no_stream_named(spec.stream));
  if (original->kind == StreamKind::Ingest)
    throw Error("stream " + spec.stream + " is an ingest stream; replay re-runs a latest or window stream from its "
                "source table (to re-read Kafka, start the ingest stream over with a new checkpoint and table)");
  if (pipeline.find_stream(spec.into) || pipeline.writer_of(spec.into) || spec.into == original->from)
    throw Error("table " + spec.into + " belongs to the pipeline already; replay into a new table name");
  if (spec.watermark_delay_us && original->kind != StreamKind::Window)
    throw Error("--watermark applies to window streams; " + spec.stream + " is a latest stream");
  if (spec.into.empty() || spec.into.find_first_of("/\\. ") != std::string::npos)
    throw Error("'" + spec.into + "' is not a table name: use letters, digits and underscores");
  Stream replay = *original;
  replay.name = spec.into;
  replay.table = spec.into;
  if (spec.watermark_delay_us) replay.watermark_delay_us = *spec.watermark_delay_us;
  return replay;
}

void record_replay(const Pipeline& pipeline, const ReplaySpec& spec) {
  std::string path = record_path(pipeline, spec.into);
  if (path_exists(path)) {
    auto recorded = nlohmann::json::parse(read_file(path), nullptr, false);
    if (recorded != to_json(spec))
      throw Error("table " + spec.into + " holds another replay (" + recorded.dump() + "); replay into a new table, "
                  "or delete " + pipeline.table_path(spec.into) + " and " + pipeline.checkpoint_path(spec.into) + " first");
    return;
  }
  std::string record = to_json(spec).dump(2) + "\n";
  if (checkpoints_on_store(pipeline)) {
    std::string key = kReplaysPrefix + spec.into + ".json";
    auto store = checkpoints_store(pipeline);
    if (!store->put_if_absent(key, record)) {
      auto there = store->get(key);
      if (there && is_cut_short_record(*there)) store->put(key, record);
      else if (!there || *there != record)
        throw Error("table " + spec.into + " holds another replay (" + (there ? *there : std::string("?")) +
                    " in " + store->describe() + "); replay into a new table, or delete its table and checkpoint first");
    }
  }
  make_dirs(pipeline.checkpoint_path(spec.into), 0700);
  write_file_atomic(path, record, 0600);
}

Pipeline with_replays(const Pipeline& pipeline) {
  if (checkpoints_on_store(pipeline)) pull_replay_records(pipeline);
  Pipeline extended = pipeline;
  for (const auto& name : list_dir(pipeline.checkpoints_dir)) {
    std::string path = record_path(pipeline, name);
    if (!path_exists(path)) continue;
    auto j = nlohmann::json::parse(read_file(path), nullptr, false);
    if (j.is_discarded() || !j.contains("stream") || !j.contains("into"))
      throw Error("the replay record " + path + " is damaged; delete the replay's table and checkpoint folder");
    ReplaySpec spec{j["stream"], j["into"], std::nullopt};
    if (j.contains("watermarkDelayUs")) spec.watermark_delay_us = j["watermarkDelayUs"].get<int64_t>();
    if (!pipeline.find_stream(spec.stream)) continue;  // its stream left the pipeline file: nothing to compare with
    extended.streams.push_back(replay_stream(pipeline, spec));
  }
  return extended;
}

}  // namespace lakestream
