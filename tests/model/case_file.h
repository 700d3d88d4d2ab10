// A case as a JSON file (tests/data/model/*.json): the pipeline's shape and the sends, each
// event as the text Kafka got. A failing case prints this form, so that it can be kept as a
// regression test as it is.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/model_case.h"

namespace lakestream::model {

nlohmann::json case_to_json(const Case& c);
// Throws std::runtime_error naming what is wrong in the file.
Case case_from_json(const nlohmann::json& j);

// What the source's schema makes of a message value: its fields, or valid = false when it does
// not parse or does not fit (`require_ts`: ts must be there and not null). The model's own
// reading of ISO-8601 times: 2026-10-01T09:00:00[.ffffff](Z|+hh:mm|-hh:mm).
Event event_of(const std::string& value, int partition, bool require_ts);

}  // namespace lakestream::model
