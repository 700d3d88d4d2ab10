// The pipeline: what the user declared in the pipeline file (lakestream.toml), validated. Every
// other module reads its settings from here; only pipeline_file.cc knows the TOML.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/pipeline_mistakes.h"

namespace lakestream {

// The value types a source's JSON schema can declare.
enum class FieldType { BigInt, Int, Double, Boolean, String, Decimal, Timestamp };

struct Field {
  std::string name;
  FieldType type = FieldType::String;
  int precision = 0;  // decimal only
  int scale = 0;      // decimal only
  bool required = false;

  // The type as the pipeline file spells it: "bigint", "decimal(18,2)", ...
  std::string type_text() const;
  // The DuckDB column type: BIGINT, INTEGER, DOUBLE, BOOLEAN, VARCHAR, DECIMAL(p,s), TIMESTAMPTZ.
  std::string duckdb_type() const;
  // The Delta/Spark schemaString type: long, integer, double, boolean, string, decimal(p,s), timestamp.
  std::string delta_type() const;
};

// Parses "bigint", "int", "double", "boolean", "string", "decimal(p,s)", "timestamp";
// nullopt for anything else.
std::optional<Field> parse_field_type(const std::string& name, const std::string& type_text);

struct Schema {
  std::vector<Field> fields;  // in the order the file declares them
  const Field* find(const std::string& name) const;
};

struct KafkaSettings {
  std::string bootstrap;  // "host:port,..." or "embedded" (the address `lakestream broker` wrote)
  // librdkafka properties passed through as given, after ${ENV} substitution.
  std::vector<std::pair<std::string, std::string>> properties;
  // The topics of the pipeline's sources, named in the hint when its embedded broker is not running.
  std::vector<std::string> topics = {};
  // [kafka] group: ingest streams run as workers of consumer group "<group>.<stream>", each
  // reading the partitions the group assigns it; empty: one process reads every partition.
  std::string group = {};
};

// True for librdkafka property names whose values are secrets and must never be printed
// (sasl.password, ssl.key.password, *.secret, ...).
bool is_secret_property(const std::string& name);

// How a source's values are written: JSON text, or Avro in Confluent's wire format with the
// writer schema in a schema registry.
enum class SourceFormat { Json, Avro };

// What wraps each value: nothing (the value is the event), or Debezium's change event envelope
// (op, before, after, source), whose row is the event and whose op and source position become
// the bronze columns _op, _source_ts_ms and _source_lsn (docs/pipeline-file.md#change-data-capture).
enum class SourceEnvelope { None, Debezium };

// The bronze columns a Debezium envelope adds after the row's fields.
inline constexpr const char* kDebeziumOpColumn = "_op";
inline constexpr const char* kDebeziumTsColumn = "_source_ts_ms";
inline constexpr const char* kDebeziumLsnColumn = "_source_lsn";

// Where an Avro source's schemas are: the registry's URL and the client settings for it.
struct SchemaRegistrySettings {
  std::string url;  // "http://host:8081", or "embedded" / "embedded:NAME" for `lakestream broker --schema-registry`
  // basic.auth.user.info ("user:password"), ssl.ca.location, ssl.certificate.location,
  // ssl.key.location, ssl.key.password; after ${ENV} substitution.
  std::vector<std::pair<std::string, std::string>> properties;
};

// A Kinesis data stream as a source (kinesis = "NAME"), in place of a Kafka topic: its shards are
// the partitions (docs/kinesis.md).
struct KinesisSettings {
  std::string stream;    // empty: the source is a Kafka topic
  std::string region;    // empty: AWS_REGION, the profile's, or us-east-1
  std::string endpoint;  // empty: AWS_ENDPOINT_URL_KINESIS, AWS_ENDPOINT_URL, or AWS's own
  // Where a shard the stream has never read starts on the first run: its oldest record, the
  // records that arrive from the first run on, or those that arrived at or after a time.
  enum class Start { TrimHorizon, Latest, AtTimestamp } start = Start::TrimHorizon;
  int64_t start_timestamp_ms = 0;  // AtTimestamp
  std::string start_text;          // as the pipeline file wrote it, for messages
};

struct Source {
  std::string name;
  std::string topic;  // a Kafka source's topic (the source's name unless given)
  KinesisSettings kinesis;
  bool is_kinesis() const { return !kinesis.stream.empty(); }
  SourceFormat format = SourceFormat::Json;
  SchemaRegistrySettings schema_registry;  // Avro only
  SourceEnvelope envelope = SourceEnvelope::None;
  // JSON: the fields the file declares (with a Debezium envelope, the row's, then _op,
  // _source_ts_ms and _source_lsn). Avro: empty (with a Debezium envelope, the columns are the
  // writer schema's after record's fields, then those three); the columns are the writer schemas' fields,
  // known when the ingest stream reads them.
  Schema schema;
  std::string key_field;          // the event field that is the Kafka key (for `produce`), may be empty
  bool start_at_latest = false;   // startingOffsets: earliest (default) | latest
  int64_t max_offsets_per_trigger = 0;  // 0: no cap, one batch takes all that is there (Kinesis: max_records_per_trigger)
  int64_t max_value_bytes = 1 << 20;    // larger values are quarantined, never parsed
  std::string sent_twice_by = "the producer";  // who sends events twice, in check's note
  // Spark's failOnDataLoss: false accepts offsets that went back or aged out, goes on from the
  // earliest offset there, and records the gap in the bronze commit (check shows it).
  bool fail_on_data_loss = true;
  std::string group;  // this source's ingest workers' consumer group, overriding [kafka] group
  int line = 0;
};

enum class StreamKind { Ingest, Latest, Window };
enum class OutputMode { Append, Update };

struct Aggregate {
  std::string name;      // the gold column
  std::string function;  // count | sum | min | max | avg
  std::string argument;  // a SQL expression over the source's columns, "*" for count(*)
};

// How long a latest stream's `<table>_deleted` remembers a delete (deletes_retention), on the
// scale of the stream's order_by: a duration for a timestamp or date order_by, a number in its
// units for a numeric one (a Debezium lsn, epoch milliseconds).
struct DeletesRetention {
  bool is_duration = true;
  int64_t amount = 0;  // microseconds when is_duration
  std::string text;    // as the pipeline file wrote it, for messages
  int line = 0;        // of the setting in the pipeline file
};

// The retention as SQL that order_by minus it reads: an INTERVAL for a duration, else a number.
std::string deletes_retention_sql(const DeletesRetention& retention);

enum class SourceRead { Appends, SkipChanges, Changes };

// "appends", "skip_changes", "changes": the `read` setting's value.
const char* source_read_name(SourceRead read);

struct Stream {
  std::string name;
  StreamKind kind = StreamKind::Ingest;
  std::string table;   // the table it writes
  int line = 0;
  // The line of each key holding SQL ("filter", "derived.dt", "aggregates.revenue"), for the
  // errors of check_pipeline_sql, which runs the expressions after loading.
  std::map<std::string, int> sql_lines;

  // ingest
  std::string source;  // a [sources.X] name
  // Columns computed from each event by a SQL expression over the source's fields, added to the
  // table after ingest's own columns, in the order declared ([streams.X.derived] dt = "date(event_time)").
  std::vector<std::pair<std::string, std::string>> derived;
  // The table's partition columns (a field, an ingest column or a derived column); empty: none.
  std::vector<std::string> partition_by;

  // latest and window: the table it reads
  std::string from;
  // What it reads of `from`: its appended rows (a version that changes rows is refused), its
  // appended rows skipping versions that change rows (Spark's skipChangeCommits), or its change
  // data feed, each row with _change_type, _commit_version and _commit_timestamp (Spark's
  // readChangeFeed; `from`'s stream must write the feed).
  SourceRead read = SourceRead::Appends;
  // The most data files one batch reads (whole versions, at least one), as Spark's Delta source's
  // maxFilesPerTrigger: memory follows the batch, not the backlog.
  int64_t max_files_per_trigger = 1000;

  // latest
  std::vector<std::string> key;
  std::string order_by;
  std::string entity;  // what one key is called in check ("order"); default from the key
  // A SQL condition over the rows of `from` that marks an event as a delete of its key
  // (Spark's whenMatchedDelete), e.g. "_op = 'd'"; empty: rows are never deleted. The deletes
  // applied are remembered in the table deleted_table() names.
  std::string deletes;
  // A remembered delete is forgotten by the first batch whose newest change is more than this
  // newer than it (by order_by) and that does not change its key; absent: kept forever. An
  // older change of the key read after that brings the row back (docs/pipeline-file.md).
  std::optional<DeletesRetention> deletes_retention;
  // Merge-on-read: the table gets delta.enableDeletionVectors, and a batch marks the rows it
  // replaces in deletion vectors instead of rewriting their files (sinks/upsert.h).
  bool deletion_vectors = false;
  // Latest and window streams: the table's change data feed on (delta.enableChangeDataFeed): each
  // commit that changes rows writes them with their change type (sinks/upsert.h, recount).
  bool change_data_feed = false;
  // Delta column mapping for the tables it creates: "none", "name" or "id"; empty: the
  // pipeline's [lake] column_mapping.
  std::string column_mapping;
  // Iceberg metadata beside its tables' Delta logs (table/iceberg_metadata.h); unset: the
  // pipeline's [lake] iceberg.
  std::optional<bool> iceberg;

  // window
  std::string filter;                 // SQL boolean expression, may be empty
  std::string event_time;             // the event-time column
  int64_t watermark_delay_us = 0;
  std::vector<std::string> dedup;     // drop duplicates within the watermark on these; empty: off
  int64_t window_us = 0;              // tumbling window size
  std::string window_column = "window_start";
  std::string window_end_column;      // optional: a column with each window's end (Spark's window.end)
  std::vector<std::string> group_by;
  std::vector<Aggregate> aggregates;  // in the order the file declares them
  OutputMode output = OutputMode::Append;

  // Data-quality limits that `check` enforces (off when negative / zero):
  double max_quarantine_share = -1;  // ingest: quarantined records / all records read, 0..1
  double max_late_share = -1;        // window: per window, events dropped as late / its events, 0..1
  int64_t max_staleness_us = 0;      // latest, window: how far the table's newest event may be behind its source's
  // Continuous mode with interval 0: the most an input may wait for its commit (0: the
  // pipeline's [service] target_latency). Within it the stream takes fewer, larger batches.
  int64_t target_latency_us = 0;

  // A latest stream with deletes: the table of the deletes it remembers ("<table>_deleted": per
  // key the newest delete event read, until a newer change of the key comes), so that an older
  // change of a deleted key arriving later does not bring it back. Empty for other streams.
  std::string deleted_table() const { return kind == StreamKind::Latest && !deletes.empty() ? table + "_deleted" : ""; }
  // Every table the stream writes: its table, an ingest stream's quarantine, the deleted table.
  std::vector<std::string> tables_written() const;
};

struct Pipeline {
  std::string path;              // the pipeline file
  std::string dir;               // its folder: relative paths in it are relative to this
  KafkaSettings kafka;
  // Where the tables live: an absolute folder, or an object store URL (s3://bucket/prefix,
  // abfss://container@account.dfs.core.windows.net/prefix, az://container/prefix,
  // https://account.blob.core.windows.net/container/prefix); one sub-folder per table.
  std::string tables_dir;
  // [lake.table_locations]: a table kept somewhere else than tables_dir/NAME (folder or URL).
  std::map<std::string, std::string> table_locations;
  std::string checkpoints_dir;   // absolute; with checkpoints_url, the checkpoints' local working copy
  // `[lake] checkpoints` on an object store (s3://, az://, abfss://...): the checkpoints live
  // there; empty when they are the local folder checkpoints_dir.
  std::string checkpoints_url;
  // [lake.storage]: the object stores' settings (storage::StoreSettings keys: endpoint, region,
  // path_style, account, ...), ${VAR} expanded. May hold secrets: never print a value.
  std::map<std::string, std::string> storage;
  // [lake] cache: the local folder (absolute) where the files of tables on an object store are
  // cached for reading and staged before upload; at most cache_size_bytes of cached files.
  std::string cache_dir;
  int64_t cache_size_bytes = 10LL << 30;
  // [lake] compact, target_file_size, compact_min_files: after a stream commits, the small files
  // of the tables it writes are merged when one size tier of a partition holds compact_min_files
  // of them (table/compaction.h), in dataChange=false commits that streaming readers skip.
  bool compact = true;
  int64_t target_file_bytes = 128LL << 20;
  int64_t compact_min_files = 10;
  // [lake] column_mapping: "none", "name" or "id", for the tables of streams that do not say.
  std::string column_mapping = "none";
  // [lake] iceberg: every table gets Iceberg metadata, unless its stream says otherwise.
  bool iceberg = false;
  // [lake] checkpoint_policy: "classic", or "v2" for checkpoints whose tombstones are kept in
  // sidecars from one checkpoint to the next (delta.checkpointPolicy; table/checkpoint_sidecars.h).
  std::string checkpoint_policy = "classic";
  // Whether the stream's tables get Iceberg metadata: its iceberg, else [lake] iceberg.
  bool iceberg_for(const Stream& stream) const { return stream.iceberg.value_or(iceberg); }
  // The Delta table properties the tables `stream` writes must have (column mapping, the change
  // data feed, the Iceberg metadata with the column mapping in id mode it needs), beyond those a
  // stream kind adds itself.
  std::map<std::string, std::string> table_properties(const Stream& stream) const;
  // [service] target_latency: each stream's target_latency unless it sets its own; 0: none, a
  // continuous run with interval 0 commits whatever has arrived as soon as it can.
  int64_t target_latency_us = 0;
  // The target latency of `stream` (its own, else the pipeline's); 0 when there is none.
  int64_t target_latency_of(const Stream& stream) const {
    return stream.target_latency_us > 0 ? stream.target_latency_us : target_latency_us;
  }
  std::vector<Source> sources;
  std::vector<Stream> streams;   // in the order the file declares them

  const Source* find_source(const std::string& name) const;
  const Stream* find_stream(const std::string& name) const;
  // Why `name` is not a stream of this pipeline, to throw: a likely typo's correction, or the
  // stream that writes it when it is a table's name; else the streams there are.
  std::string no_stream_named(const std::string& name) const;
  // The consumer group an ingest stream's workers share ("<group>.<stream>", the source's group
  // before [kafka]'s), or "" when it runs alone; "" for other kinds of stream.
  std::string worker_group(const Stream& stream) const;
  // The stream that writes `table`, or nullptr.
  const Stream* writer_of(const std::string& table) const;
  // Where `table` lives: its [lake.table_locations] entry, else tables_dir/table (a folder or a URL).
  std::string table_path(const std::string& table) const;
  // True when any table of the pipeline lives on an object store.
  bool has_remote_tables() const;
  std::string checkpoint_path(const std::string& stream) const;
  // The URL of a stream's checkpoint on the object store (checkpoints_url set).
  std::string checkpoint_url(const std::string& stream) const;
  // Every table the pipeline writes, with the quarantine tables of ingest streams and the
  // deleted tables of latest streams with deletes.
  std::vector<std::string> table_names() const;
  // The streams in an order where each comes after the stream that writes what it reads.
  std::vector<const Stream*> in_dependency_order() const;
};

// A pipeline file as read, with every mistake found in it. `pipeline` holds what could be read
// (whole only when there is no mistake): a later check (the SQL expressions', in streams/) adds
// the mistakes it finds before all are told at once.
struct PipelineReading {
  Pipeline pipeline;
  PipelineMistakes mistakes;
  // The tables whose columns the mistakes leave unknown (and the tables made from them): a check
  // of what a stream reads from one of them would only tell a mistake that follows.
  std::set<std::string> unsure_tables;
};

// Reads and validates a pipeline file, keeping its mistakes, each naming the file, the line and
// the key: "lakestream.toml:12: streams.hourly_sales.window: '1 hours' is not a duration ...".
// Throws Error only when the file cannot be read or is not TOML.
PipelineReading read_pipeline(const std::string& path);

// read_pipeline, then every mistake thrown in one Error (PipelineMistakes::throw_if_any).
Pipeline load_pipeline(const std::string& path);

// Parses "90s", "15 minutes", "1 hour", "2h", "1 day", "500ms" into microseconds; nullopt if not.
std::optional<int64_t> parse_duration_us(const std::string& text);

}  // namespace lakestream
