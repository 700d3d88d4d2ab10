// The pipeline the lake tests share: orders from Kafka into a partitioned bronze table and a
// latest (silver) table. Each test picks the extra fields, the amount's type, the partition
// columns and the derived columns.
#pragma once

#include <string>

namespace lakestream::testing {

inline std::string orders_pipeline(const std::string& extra_fields, const std::string& amount_type = "decimal(18,2)",
                                   const std::string& partition_by = "[\"dt\"]",
                                   const std::string& derived = "dt = \"date(event_time)\"\n") {
  return R"toml(
[kafka]
bootstrap = "@BOOTSTRAP@"

[sources.orders]
key = "order_id"
required = ["order_id", "event_time"]

[sources.orders.schema]
order_id = "bigint"
status = "string"
amount = ")toml" + amount_type + "\"\nevent_time = \"timestamp\"\n" + extra_fields + R"toml(
[streams.read_orders]
kind = "ingest"
source = "orders"
table = "bronze_orders"
partition_by = )toml" + partition_by + R"toml(

[streams.read_orders.derived]
)toml" + derived + R"toml(
[streams.latest_orders]
kind = "latest"
from = "bronze_orders"
table = "orders"
key = "order_id"
order_by = "event_time"
)toml";
}

}  // namespace lakestream::testing
