// A micro-batch as a JSON record with the fields of Spark's StreamingQueryProgress (id, runId,
// name, timestamp, batchId, numInputRows, rates, durationMs, eventTime, stateOperators, sources,
// sink), plus a few of lakestream's own under "lakestream". Failures get a record too, so that
// status and metrics see them in the same log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "streams/batch_report.h"

namespace lakestream {

// `previous_start_us` is when the stream's previous batch started (from its progress log), for
// inputRowsPerSecond (rows over the time between batch starts, as Spark computes it).
nlohmann::json progress_record(const StreamReport& stream, const BatchReport& batch, const std::string& run_id,
                               std::optional<int64_t> previous_start_us);

// A failed run of a stream: {"name", "runId", "timestamp", "failure": {"message"}}.
nlohmann::json failure_record(const std::string& stream, const std::string& run_id, const std::string& message);

// True for a record written by failure_record.
bool is_failure(const nlohmann::json& record);

// Spark's timestamp form: "2026-10-01T09:05:00.123Z".
std::string iso_timestamp(int64_t epoch_us);
// The inverse, for records read back; nullopt when `text` is not that form.
std::optional<int64_t> parse_iso_timestamp(const std::string& text);

}  // namespace lakestream
