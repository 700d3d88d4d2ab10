// A stream's `metadata.json`: its id (the appId of its Delta txn actions, new for each new
// checkpoint, so that a stream started over into the same table is never taken for the old one)
// and its definition as the checkpoint recorded it, with what changed since.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/pipeline.h"

namespace lakestream {

class CheckpointMirror;

class StreamMetadata {
 public:
  // Reads `dir`/metadata.json, or writes a new one (a new id) when there is none. A changed
  // definition is only noted here; accept_new_definition() or refusal() decide. Error when the
  // file cannot be read.
  StreamMetadata(const Pipeline& pipeline, const Stream& stream, std::string dir, CheckpointMirror* mirror);

  const std::string& id() const { return id_; }
  // True when this open created the record (the stream never ran before).
  bool is_new() const { return is_new_; }
  // True when the definition in the pipeline file differs from the recorded one.
  bool definition_changed() const { return !changes_.empty(); }
  // The message that refuses a run under a changed definition: what changed and how to start over.
  const std::string& refusal() const { return refusal_; }
  // Records the new definition (nothing was committed under the old one).
  void accept_new_definition();

 private:
  void write(const nlohmann::json& meta, bool first);

  std::string dir_;
  CheckpointMirror* mirror_;
  std::string id_;
  bool is_new_ = false;
  std::string changes_;          // what changed, one "\n  ..." line per change
  std::string refusal_;
  nlohmann::json new_metadata_;  // metadata.json with the new definition
};

// The definition of a stream as its checkpoint records it (kind, source, table, and for stateful
// streams the settings their state depends on).
nlohmann::json stream_definition(const Pipeline& pipeline, const Stream& stream);

// The stream's id read without the lock (status, metrics), nullopt when it never ran.
std::optional<std::string> read_checkpoint_id(const Pipeline& pipeline, const Stream& stream);

}  // namespace lakestream
