// A stream's progress log: checkpoints/<stream>/progress.jsonl, one JSON record per micro-batch
// (Spark's StreamingQueryProgress) or per failed run, newest last. It is for operators (status,
// metrics, the dashboard), never for recovery: losing it loses history, not data. When the file
// would grow past its size limit it is renamed to progress.1.jsonl (replacing the older one), so
// that the log holds between one and two limits' worth of the newest records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lakestream {

class ProgressLog {
 public:
  static constexpr int64_t kDefaultMaxBytes = 4 << 20;

  // The log of the stream whose checkpoint folder is `checkpoint_dir` (created if missing).
  explicit ProgressLog(std::string checkpoint_dir, int64_t max_bytes = kDefaultMaxBytes);

  // Appends one record as one line, rotating first when the line would pass the limit.
  void append(const nlohmann::json& record);

  // The newest `limit` records, oldest first, across the rotated file and the current one.
  // Lines that do not parse (a line cut by a crash) are skipped.
  std::vector<nlohmann::json> read(size_t limit = SIZE_MAX) const;

  // The newest record, if any.
  std::optional<nlohmann::json> last() const;

  std::string path() const { return dir_ + "/progress.jsonl"; }
  std::string rotated_path() const { return dir_ + "/progress.1.jsonl"; }

 private:
  std::string dir_;
  int64_t max_bytes_;
};

}  // namespace lakestream
