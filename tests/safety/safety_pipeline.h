// A small ingest-only pipeline for the safety tests, with the source settings they vary.
#pragma once

#include <string>
#include <vector>

#include "support/pipeline_fixture.h"

namespace lakestream::testing {

inline std::string safety_pipeline(const std::string& source_extra = "", const std::string& kafka_extra = "") {
  return R"toml(
[kafka]
bootstrap = "@BOOTSTRAP@"
)toml" + kafka_extra + R"toml(

[sources.orders]
topic = "orders"
key = "order_id"
max_value_bytes = 2000000
)toml" + source_extra + R"toml(

[sources.orders.schema]
order_id = "bigint"
status = "string"
amount = "decimal(18,2)"

[streams.read_orders]
kind = "ingest"
source = "orders"
table = "bronze_orders"
)toml";
}

// `n` small events with ids from `first`; `padding` bytes of filler make them big.
inline std::string safety_events(int first, int n, size_t padding = 0) {
  std::string lines;
  std::string pad(padding, 'x');
  for (int i = first; i < first + n; i++)
    lines += "{\"order_id\":" + std::to_string(i) + ",\"status\":\"placed\",\"amount\":" + std::to_string(i % 90 + 10) +
             ".50" + (padding ? ",\"pad\":\"" + pad + "\"" : std::string()) + "}\n";
  return lines;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The run was refused (exit 1, no signal) with a message that says each of `parts`.
inline void expect_refused(const CommandResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 1) << "signal " << r.signal << "\n" << r.out;
  for (const auto& part : parts) EXPECT_TRUE(contains(r.err, part)) << "missing: " << part << "\nin: " << r.err;
}

}  // namespace lakestream::testing
