// The writer schemas of an Avro source during one run of its ingest stream, and the columns of
// its bronze table they make: the table's columns when the run began, then each field a newer
// writer schema adds (a compatible change: the table gets the column, as a JSON source's new
// field does). A change a Delta table cannot take is refused before anything is read: a
// field's type changed, or a field that was required removed.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "decode/avro_decoder.h"
#include "pipeline/pipeline.h"
#include "source/schema_registry_client.h"
#include "table/delta_table.h"

namespace lakestream {

class WriterSchemas {
 public:
  // `table_fields`: the columns of the source's fields the table has now (none for a new table).
  WriterSchemas(const Source& source, const std::string& table, std::vector<delta::Column> table_fields);

  // The writer schema with `id`, its new fields added to columns(); nullptr when the registry has
  // no such id (the record goes to quarantine). Throws RegistryUnavailable when the registry
  // cannot answer, and Error naming the schema id, its subject and version, what changed and
  // what to do when the schema changes a column's type or drops a required field.
  const AvroWriterSchema* schema(int32_t id);

  // The table's field columns so far, in order.
  const std::vector<delta::Column>& columns() const { return columns_; }
  const std::string& registry_url() const { return registry_.url(); }

 private:
  void check_against_table(const AvroWriterSchema& writer, const std::vector<AvroColumn>& fields);
  // The table columns a writer schema makes: its fields; with a Debezium envelope, the fields of
  // its after record, then _op, _source_ts_ms and _source_lsn (Error when it has no after record).
  std::vector<AvroColumn> row_columns(const AvroWriterSchema& writer);
  // "schema id 7 (subject orders-value, version 3)".
  std::string describe(int32_t id);

  const Source& source_;
  std::string table_;
  SchemaRegistryClient registry_;
  std::map<int32_t, std::unique_ptr<AvroWriterSchema>> known_;
  std::set<int32_t> unknown_;
  std::vector<delta::Column> columns_;
};

}  // namespace lakestream
