#include "checkpoint/stream_metadata.h"

#include <ctime>

#include "checkpoint/checkpoint_mirror.h"
#include "checkpoint/definition_change.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

nlohmann::json stream_definition(const Pipeline& pipeline, const Stream& s) {
  nlohmann::json d = {{"name", s.name}, {"table", s.table}};
  switch (s.kind) {
    case StreamKind::Ingest:
      d["kind"] = "ingest";
      d["source"] = s.source;
      if (const Source* source = pipeline.find_source(s.source)) {
        nlohmann::json schema = nlohmann::json::object();
        for (const auto& f : source->schema.fields) schema[f.name] = f.delta_type();
        d["schema"] = schema;
      }
      break;
    case StreamKind::Latest:
      d["kind"] = "latest";
      d["from"] = s.from;
      d["read"] = source_read_name(s.read);
      d["key"] = s.key;
      d["order_by"] = s.order_by;
      // Deletes change what the table holds: rows of delete events written before stay.
      d["deletes"] = s.deletes;
      break;
    case StreamKind::Window: {
      d["kind"] = "window";
      d["from"] = s.from;
      d["read"] = source_read_name(s.read);
      d["filter"] = s.filter;
      d["event_time"] = s.event_time;
      d["watermark_delay_us"] = s.watermark_delay_us;
      d["dedup"] = s.dedup;
      d["window_us"] = s.window_us;
      d["group_by"] = s.group_by;
      nlohmann::json aggs = nlohmann::json::array();
      for (const auto& a : s.aggregates) aggs.push_back({{"name", a.name}, {"function", a.function}, {"argument", a.argument}});
      d["aggregates"] = aggs;
      d["output"] = s.output == OutputMode::Append ? "append" : "update";
      break;
    }
  }
  return d;
}

StreamMetadata::StreamMetadata(const Pipeline& pipeline, const Stream& stream, std::string dir, CheckpointMirror* mirror)
    : dir_(std::move(dir)), mirror_(mirror) {
  std::string meta_path = dir_ + "/metadata.json";
  nlohmann::json definition = stream_definition(pipeline, stream);
  if (!path_exists(meta_path)) {
    id_ = new_uuid();
    nlohmann::json meta = {{"id", id_}, {"stream", stream.name}, {"created", static_cast<int64_t>(std::time(nullptr))},
                           {"definition", definition}};
    write(meta, true);
    is_new_ = true;
    return;
  }
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(read_file(meta_path));
    id_ = meta.at("id").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("the checkpoint of stream " + stream.name + " is damaged: " + meta_path + " is not valid (" + e.what() +
                "). Restore it from a backup, or start the stream over with a new checkpoint.");
  }
  changes_ = definition_changes(meta.value("definition", nlohmann::json::object()), definition);
  if (!changes_.empty()) {
    refusal_ = "stream " + stream.name + " has changed since its checkpoint " + dir_ +
               " was made, and the checkpoint's batches and state only fit the old definition:" + changes_ +
               "\nUndo the change; or start over with the new definition: delete the checkpoint folder and the "
               "table " + pipeline.table_path(stream.table) + " (or write to a new table), then run: the stream "
               "reads its whole source again (a backfill).";
    new_metadata_ = meta;
    new_metadata_["definition"] = definition;
  } else if (meta.value("definition", nlohmann::json::object()) != definition) {
    // Fields were added: record them, so that dropping one later is caught like any other change.
    meta["definition"] = definition;
    write(meta, false);
  }
}

void StreamMetadata::accept_new_definition() {
  if (changes_.empty()) return;
  write(new_metadata_, false);
  changes_.clear();
}

void StreamMetadata::write(const nlohmann::json& meta, bool first) {
  write_file_atomic(dir_ + "/metadata.json", meta.dump(2) + "\n", 0600);
  if (!mirror_) return;
  if (first) mirror_->push_once("metadata.json");
  else mirror_->push("metadata.json");
}

std::optional<std::string> read_checkpoint_id(const Pipeline& pipeline, const Stream& stream) {
  std::string meta_path = pipeline.checkpoint_path(stream.name) + "/metadata.json";
  if (!path_exists(meta_path)) return std::nullopt;
  auto meta = nlohmann::json::parse(read_file(meta_path), nullptr, false);
  if (meta.is_discarded() || !meta.contains("id"))
    throw Error("the checkpoint of stream " + stream.name + " is damaged: " + meta_path +
                " is not valid. Restore it from a backup, or start the stream over with a new checkpoint.");
  return meta["id"].get<std::string>();
}

}  // namespace lakestream
