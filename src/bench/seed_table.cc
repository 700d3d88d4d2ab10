#include "bench/seed_table.h"

#include <algorithm>

#include "table/parquet_file.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log_time.h"

namespace lakestream::bench {

void seed_orders_table(sql::Connection& con, const std::string& table_path, const std::vector<delta::Column>& columns,
                       int64_t first_key, int64_t keys, int64_t keys_per_file) {
  if (delta::latest_version(table_path) >= 0) throw Error("cannot seed " + table_path + ": a table is already there");
  delta::Snapshot none = delta::load_snapshot(table_path);
  delta::Commit commit(none);
  delta::Metadata meta;
  meta.schema = columns;
  meta.created_time = now_epoch_ms();
  commit.set_metadata(meta);
  // Placed a month before the feed starts, so every event of the feed is newer.
  for (int64_t from = first_key; from < first_key + keys; from += keys_per_file) {
    int64_t to = std::min(first_key + keys, from + keys_per_file);
    std::string select =
        "SELECT i AS order_id, 'c-' || lpad((i % 500000)::VARCHAR, 6, '0') AS customer_id, 'delivered' AS status, "
        "((i % 300) + 5)::DECIMAL(18,2) AS amount, TIMESTAMPTZ '2026-09-01 00:00:00+00' + to_milliseconds(i % 86400000) "
        "AS event_time, 0 AS partition, i AS \"offset\", TIMESTAMPTZ '2026-09-01 00:00:00+00' AS kafka_timestamp, "
        "i::VARCHAR AS key, -1::BIGINT AS _batch_id, TIMESTAMPTZ '2026-09-01 00:00:00+00' AS _ingested_at "
        "FROM range(" + std::to_string(from) + ", " + std::to_string(to) + ") r(i)";
    commit.add(delta::write_data_file(con, table_path, commit.metadata_after(), select, columns));
  }
  commit.set_operation("WRITE");
  commit.publish();
}

}  // namespace lakestream::bench
