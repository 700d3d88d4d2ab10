// Bad pipeline files, one mistake each: the error must name the file, the line and the dotted
// key, and say what is wrong. Each case is the whole file, so its line numbers can be read off.
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "pipeline/pipeline.h"
#include "support/test_support.h"
#include "util/error.h"

namespace lakestream {
namespace {

using testing::TempDir;
using testing::write_text;

struct BadFile {
  const char* mistake;
  const char* toml;
  const char* error;  // a substring the message must contain
};

// Most cases start from this valid file (lines 1-9) and add lines after it.
#define BASE                  \
  "[kafka]\n"                 \
  "bootstrap = \"embedded\"\n" \
  "[sources.orders.schema]\n" \
  "order_id = \"bigint\"\n"   \
  "event_time = \"timestamp\"\n" \
  "[streams.read_orders]\n"   \
  "kind = \"ingest\"\n"       \
  "source = \"orders\"\n"     \
  "table = \"bronze_orders\"\n"

// A latest stream over BASE's bronze table (lines 10-15) for the column checks.
#define LATEST                \
  "[streams.latest_orders]\n" \
  "kind = \"latest\"\n"       \
  "from = \"bronze_orders\"\n" \
  "table = \"orders\"\n"      \
  "key = \"order_id\"\n"      \
  "order_by = \"event_time\"\n"

// The head of a window stream over BASE's bronze table (lines 10-15); aggregates follow.
#define WINDOW                \
  "[streams.hourly]\n"        \
  "kind = \"window\"\n"       \
  "from = \"bronze_orders\"\n" \
  "table = \"hourly\"\n"      \
  "event_time = \"event_time\"\n" \
  "watermark = \"1 hour\"\n"

const BadFile kBadFiles[] = {
    {"TOML syntax", "[kafka]\nbootstrap = \n", "lakestream.toml:2:13: "},
    {"no kafka table", "[streams.x]\nkind = \"ingest\"\n", "lakestream.toml:1: kafka.bootstrap: missing"},
    {"no bootstrap", "[kafka]\n[kafka.properties]\n\"acks\" = \"all\"\n", "lakestream.toml:1: kafka.bootstrap: missing"},
    {"bootstrap not a string", "[kafka]\nbootstrap = 9092\n",
     "lakestream.toml:2: kafka.bootstrap: must be a string, not an integer"},
    {"misspelled top-level table", BASE "[lake]\n[kafak]\n",
     "lakestream.toml:11: kafak: unknown key; did you mean 'kafka'?"},
    {"misspelled lake key", BASE "[lake]\ntabels = \"lake\"\n",
     "lakestream.toml:11: lake.tabels: unknown key; did you mean 'tables'?"},
    {"misspelled stream key", BASE "tabel = \"x\"\n",
     "lakestream.toml:10: streams.read_orders.tabel: unknown key; did you mean 'table'?"},
    {"a Kinesis source with a topic", BASE "[sources.orders]\nkinesis = \"orders\"\ntopic = \"orders\"\n",
     "lakestream.toml:12: sources.orders.topic: is for Kafka sources; a Kinesis source reads the stream `kinesis` names"},
    {"a Kinesis source with Kafka's cap", BASE "[sources.orders]\nkinesis = \"orders\"\nmax_offsets_per_trigger = 5\n",
     "lakestream.toml:12: sources.orders.max_offsets_per_trigger: is for Kafka sources; write max_records_per_trigger"},
    {"a Kinesis start that is no position", BASE "[sources.orders]\nkinesis = \"orders\"\nstarting_position = \"earliest\"\n",
     "lakestream.toml:12: sources.orders.starting_position: 'earliest' is not allowed; write \"trim_horizon\""},
    {"a Kinesis start at a time without a zone", BASE "[sources.orders]\nkinesis = \"orders\"\nstarting_position = \"2026-03-02T09:00\"\n",
     "lakestream.toml:12: sources.orders.starting_position: '2026-03-02T09:00' is not allowed"},
    {"a Kinesis stream name with a slash", BASE "[sources.orders]\nkinesis = \"team/orders\"\n",
     "lakestream.toml:11: sources.orders.kinesis: 'team/orders' is not a valid Kinesis stream name"},
    {"a Kinesis endpoint that is no URL", BASE "[sources.orders]\nkinesis = \"orders\"\nendpoint = \"localhost:4567\"\n",
     "lakestream.toml:12: sources.orders.endpoint: 'localhost:4567' is not a URL"},
    {"a region on a Kafka source", BASE "[sources.orders]\nregion = \"eu-west-1\"\n",
     "lakestream.toml:11: sources.orders.region: is for Kinesis sources (kinesis = \"STREAM\")"},
    {"a window setting on a latest stream", BASE LATEST "window = \"1 hour\"\n",
     "lakestream.toml:16: streams.latest_orders.window: is a setting of window streams, not of latest streams"},
    {"a type that is a table", BASE "[sources.orders]\n[sources.orders.schema.amount]\n",
     "lakestream.toml:11: sources.orders.schema.amount: the type must be a string"},
    {"unknown type name",
     "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\namount = \"money\"\n",
     "lakestream.toml:4: sources.orders.schema.amount: unknown type 'money'; types: bigint, int, double, boolean, "
     "string, decimal(p,s), timestamp"},
    {"alias of a type", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\nn = \"integer\"\n",
     "lakestream.toml:4: sources.orders.schema.n: unknown type 'integer'; types: bigint, int, double, boolean, "
     "string, decimal(p,s), timestamp; did you mean 'int'?"},
    {"decimal too wide", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\namount = \"decimal(40,2)\"\n",
     "lakestream.toml:4: sources.orders.schema.amount: 'decimal(40,2)' is not a valid decimal"},
    {"field named like an ingest column", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\noffset = \"bigint\"\n",
     "lakestream.toml:4: sources.orders.schema.offset: field name 'offset' collides with the column ingest adds"},
    {"field named like a Kinesis ingest column", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\nKinesis_Sequence_Number = \"string\"\n",
     "lakestream.toml:4: sources.orders.schema.Kinesis_Sequence_Number: field name 'Kinesis_Sequence_Number' collides with the "
     "column ingest adds (kinesis_sequence_number); after the event's fields the bronze table holds partition, offset, "
     "kafka_timestamp, key, _batch_id and _ingested_at (of a Kinesis source partition, offset, kinesis_arrival_timestamp, key, "
     "kinesis_shard_id, kinesis_sequence_number, _batch_id and _ingested_at); rename the field"},
    {"no schema", "[kafka]\nbootstrap = \"embedded\"\n\n[sources.orders]\ntopic = \"orders\"\n",
     "lakestream.toml:4: sources.orders.schema: missing; declare the event's fields"},
    {"empty schema", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\n",
     "lakestream.toml:3: sources.orders.schema: declares no field"},
    {"required field not in schema", BASE "[sources.orders]\nrequired = [\"order_id\", \"evnet_time\"]\n",
     "lakestream.toml:11: sources.orders.required: field 'evnet_time' is not in the schema; did you mean 'event_time'?"},
    {"key field not in schema", BASE "[sources.orders]\nkey = \"id\"\n",
     "lakestream.toml:11: sources.orders.key: field 'id' is not in the schema"},
    {"bad starting_offsets", BASE "[sources.orders]\nstarting_offsets = \"beginning\"\n",
     "lakestream.toml:11: sources.orders.starting_offsets: 'beginning' is not allowed; write \"earliest\""},
    {"zero max_offsets_per_trigger", BASE "[sources.orders]\nmax_offsets_per_trigger = 0\n",
     "lakestream.toml:11: sources.orders.max_offsets_per_trigger: 0 must be a positive integer"},
    {"negative max_value_bytes", BASE "[sources.orders]\nmax_value_bytes = -5\n",
     "lakestream.toml:11: sources.orders.max_value_bytes: -5 must be a positive integer"},
    {"bad topic name", BASE "[sources.orders]\ntopic = \"shop orders\"\n",
     "lakestream.toml:11: sources.orders.topic: 'shop orders' is not a valid Kafka topic name"},
    {"no streams", "[kafka]\nbootstrap = \"embedded\"\n", "lakestream.toml:1: streams: no stream declared"},
    {"stream without kind", "[kafka]\nbootstrap = \"embedded\"\n[streams.read_orders]\ntable = \"t\"\n",
     "lakestream.toml:3: streams.read_orders.kind: missing; set kind = \"ingest\", \"latest\" or \"window\""},
    {"unknown kind", "[kafka]\nbootstrap = \"embedded\"\n[streams.s]\nkind = \"merge\"\ntable = \"t\"\n",
     "lakestream.toml:4: streams.s.kind: unknown kind 'merge'; kinds: ingest"},
    {"stream without table", "[kafka]\nbootstrap = \"embedded\"\n[streams.s]\nkind = \"ingest\"\nsource = \"x\"\n",
     "lakestream.toml:3: streams.s.table: missing"},
    {"stream name not an identifier", BASE "[streams.\"read-more\"]\nkind = \"ingest\"\n",
     "lakestream.toml:10: streams.read-more: 'read-more' is not a valid stream name"},
    {"table name not an identifier", BASE "[streams.more]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze orders\"\n",
     "lakestream.toml:13: streams.more.table: 'bronze orders' is not a valid table name"},
    {"ingest without source", "[kafka]\nbootstrap = \"embedded\"\n[streams.s]\nkind = \"ingest\"\ntable = \"t\"\n",
     "lakestream.toml:3: streams.s.source: missing"},
    {"undeclared source", BASE "[streams.more]\nkind = \"ingest\"\nsource = \"ordres\"\ntable = \"t\"\n",
     "lakestream.toml:12: streams.more.source: source 'ordres' is not declared; did you mean 'orders'?"},
    {"latest without key", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"l\"\norder_by = \"event_time\"\n",
     "lakestream.toml:10: streams.l.key: missing"},
    {"latest with empty key", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"l\"\nkey = []\n",
     "lakestream.toml:14: streams.l.key: is empty"},
    {"latest without order_by", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"l\"\nkey = \"order_id\"\n",
     "lakestream.toml:10: streams.l.order_by: missing"},
    {"reading a table no stream writes", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_order\"\ntable = \"l\"\nkey = \"order_id\"\norder_by = \"event_time\"\n",
     "lakestream.toml:12: streams.l.from: no stream of this file writes table 'bronze_order'; did you mean 'bronze_orders'?"},
    {"two writers of one table", BASE "[streams.again]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n",
     "lakestream.toml:13: streams.again.table: table bronze_orders is already written by stream read_orders (line 6)"},
    {"writing another stream's quarantine", BASE "[streams.again]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders_quarantine\"\n",
     "lakestream.toml:13: streams.again.table: table bronze_orders_quarantine is already written by stream read_orders"},
    {"a dependency cycle",
     BASE "[streams.a]\nkind = \"latest\"\nfrom = \"b\"\ntable = \"a\"\nkey = \"order_id\"\norder_by = \"event_time\"\n"
          "[streams.b]\nkind = \"latest\"\nfrom = \"a\"\ntable = \"b\"\nkey = \"order_id\"\norder_by = \"event_time\"\n",
     "lakestream.toml:12: streams.a.from: dependency cycle: a reads b (written by b), b reads a (written by a)"},
    {"a stream reading its own table",
     BASE "[streams.a]\nkind = \"latest\"\nfrom = \"a\"\ntable = \"a\"\nkey = \"order_id\"\norder_by = \"event_time\"\n",
     "lakestream.toml:12: streams.a.from: dependency cycle: a reads a (written by a)"},
    {"latest key column not upstream", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"l\"\nkey = [\"customer_id\"]\norder_by = \"event_time\"\n",
     "lakestream.toml:14: streams.l.key: column 'customer_id' is not in table bronze_orders"},
    {"order_by misspelled", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"l\"\nkey = \"order_id\"\norder_by = \"event_tme\"\n",
     "lakestream.toml:15: streams.l.order_by: column 'event_tme' is not in table bronze_orders; did you mean 'event_time'?"},
    {"window without watermark", BASE "[streams.w]\nkind = \"window\"\nfrom = \"bronze_orders\"\ntable = \"w\"\nevent_time = \"event_time\"\n",
     "lakestream.toml:10: streams.w.watermark: missing"},
    {"window without aggregates", BASE WINDOW "window = \"1 hour\"\n",
     "lakestream.toml:10: streams.hourly.aggregates: missing; add [streams.hourly.aggregates]"},
    {"window that is not a duration", BASE WINDOW "window = \"1 hours\"\n",
     "lakestream.toml:16: streams.hourly.window: '1 hours' is not a duration; write e.g. \"1 hour\", \"15 minutes\", \"90s\""},
    {"zero window", BASE WINDOW "window = \"0s\"\n[streams.hourly.aggregates]\nn = \"count(*)\"\n",
     "lakestream.toml:16: streams.hourly.window: a window must be longer than 0"},
    {"bad output mode", BASE WINDOW "window = \"1h\"\noutput = \"complete\"\n[streams.hourly.aggregates]\nn = \"count(*)\"\n",
     "lakestream.toml:17: streams.hourly.output: 'complete' is not an output mode; write \"append\""},
    {"unknown aggregate function", BASE WINDOW "window = \"1h\"\n[streams.hourly.aggregates]\nn = \"count(*)\"\nmid = \"median(order_id)\"\n",
     "lakestream.toml:19: streams.hourly.aggregates.mid: 'median(order_id)' is not an aggregate (unknown function 'median')"},
    {"two aggregates in one", BASE WINDOW "window = \"1h\"\n[streams.hourly.aggregates]\nn = \"sum(a) + sum(b)\"\n",
     "lakestream.toml:18: streams.hourly.aggregates.n: 'sum(a) + sum(b)' is not a single aggregate"},
    {"sum of star", BASE WINDOW "window = \"1h\"\n[streams.hourly.aggregates]\nn = \"sum(*)\"\n",
     "lakestream.toml:18: streams.hourly.aggregates.n: 'sum(*)': only count takes *"},
    {"aggregate named like the window column", BASE WINDOW "window = \"1h\"\nwindow_column = \"hour\"\n[streams.hourly.aggregates]\nhour = \"count(*)\"\n",
     "lakestream.toml:19: streams.hourly.aggregates.hour: the table hourly already has a column 'hour'"},
    {"event_time not a timestamp", BASE "[streams.w]\nkind = \"window\"\nfrom = \"bronze_orders\"\ntable = \"w\"\nevent_time = \"order_id\"\nwatermark = \"1h\"\nwindow = \"1h\"\naggregates = { n = \"count(*)\" }\n",
     "lakestream.toml:14: streams.w.event_time: column 'order_id' of bronze_orders is bigint, not a timestamp"},
    {"dedup column not upstream", BASE WINDOW "window = \"1h\"\ndedup = [\"order_id\", \"status\"]\n[streams.hourly.aggregates]\nn = \"count(*)\"\n",
     "lakestream.toml:17: streams.hourly.dedup: column 'status' is not in table bronze_orders"},
    {"group_by column not upstream", BASE LATEST WINDOW "window = \"1h\"\ngroup_by = [\"partition\", \"shop\"]\n[streams.hourly.aggregates]\nn = \"count(*)\"\n",
     "lakestream.toml:23: streams.hourly.group_by: column 'shop' is not in table bronze_orders"},
    {"partition by a column the table lacks", BASE "partition_by = [\"day\"]\n",
     "lakestream.toml:10: streams.read_orders.partition_by: column 'day' is not in table bronze_orders"},
    {"derived column named like a field", BASE "[streams.read_orders.derived]\norder_id = \"1\"\n",
     "lakestream.toml:11: streams.read_orders.derived.order_id: source orders already has a field 'order_id'"},
    {"derived column not a string", BASE "[streams.read_orders.derived]\ndt = 3\n",
     "lakestream.toml:11: streams.read_orders.derived.dt: must be a SQL expression in a string, not an integer"},
    {"read that is no way to read", BASE LATEST "read = \"updates\"\n",
     "lakestream.toml:16: streams.latest_orders.read: 'updates' is not a way to read a table; write \"appends\""},
    {"the changes of an ingest table", BASE LATEST "read = \"changes\"\n",
     "lakestream.toml:16: streams.latest_orders.read: \"changes\" reads a change data feed, and bronze_orders (written by "
     "ingest stream read_orders) only ever appends"},
    {"the changes of a table without a feed", BASE LATEST "[streams.hourly]\nkind = \"window\"\nfrom = \"orders\"\ntable = \"hourly\"\n"
     "event_time = \"event_time\"\nwatermark = \"1 hour\"\nwindow = \"1h\"\nread = \"changes\"\n[streams.hourly.aggregates]\nn = \"count(*)\"\n",
     "lakestream.toml:23: streams.hourly.read: \"changes\" reads orders's change data feed, which its stream latest_orders "
     "(line 10) does not write; set change_data_feed = true there"},
    {"a change column read twice", BASE LATEST "change_data_feed = true\n[streams.again]\nkind = \"latest\"\nfrom = \"orders\"\n"
     "table = \"again\"\nkey = \"order_id\"\norder_by = \"event_time\"\nread = \"changes\"\nchange_data_feed = true\n[streams.third]\n"
     "kind = \"latest\"\nfrom = \"again\"\ntable = \"third\"\nkey = \"order_id\"\norder_by = \"event_time\"\nread = \"changes\"\n",
     "lakestream.toml:31: streams.third.read: \"changes\" adds the column _change_type to each row, and again has a column of "
     "that name already"},
    {"iceberg with deletion vectors", BASE LATEST "iceberg = true\ndeletion_vectors = true\n",
     "lakestream.toml:17: streams.latest_orders.deletion_vectors: is true, and its table gets Iceberg metadata"},
    {"iceberg without column mapping by id", BASE "iceberg = true\ncolumn_mapping = \"name\"\n",
     "lakestream.toml:11: streams.read_orders.column_mapping: is \"name\", and its tables get Iceberg metadata"},
    {"iceberg for the lake with column mapping by name", "[kafka]\nbootstrap = \"embedded\"\n[lake]\ncolumn_mapping = \"name\"\niceberg = true\n",
     "lakestream.toml:5: lake.iceberg: is true, and Iceberg metadata needs column mapping in id mode"},
    {"partition_by on a latest stream", BASE LATEST "partition_by = [\"dt\"]\n",
     "lakestream.toml:16: streams.latest_orders.partition_by: is a setting of ingest streams, not of latest streams"},
    {"a share over 100%", BASE WINDOW "window = \"1h\"\nmax_late_share = \"150%\"\n",
     "lakestream.toml:17: streams.hourly.max_late_share: '150%' is not a percentage from 0% to 100%"},
    {"staleness of a latest stream ordered by a number", BASE "[streams.l]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"l\"\nkey = \"event_time\"\norder_by = \"order_id\"\nmax_staleness = \"1h\"\n",
     "lakestream.toml:16: streams.l.max_staleness: needs a timestamp order_by; column 'order_id' of bronze_orders is bigint"},
    {"list of numbers", BASE WINDOW "window = \"1h\"\ndedup = [1]\n",
     "lakestream.toml:17: streams.hourly.dedup: must be an array of strings"},
    {"unset environment variable",
     "[kafka]\nbootstrap = \"embedded\"\n[kafka.properties]\n\"sasl.password\" = \"${LAKESTREAM_TEST_UNSET_VARIABLE}\"\n",
     "lakestream.toml:4: kafka.properties.\"sasl.password\": environment variable LAKESTREAM_TEST_UNSET_VARIABLE is not set"},
    {"brokers set twice", "[kafka]\nbootstrap = \"embedded\"\n[kafka.properties]\n\"bootstrap.servers\" = \"h:9092\"\n",
     "lakestream.toml:4: kafka.properties.\"bootstrap.servers\": set the brokers with kafka.bootstrap instead"},
    {"property of a TOML table", "[kafka]\nbootstrap = \"embedded\"\n[kafka.properties]\n\"a\" = [1]\n",
     "lakestream.toml:4: kafka.properties.a: must be a string, an integer or a boolean, not an array"},
    {"unknown format", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders]\nformat = \"protobuf\"\n",
     "lakestream.toml:4: sources.orders.format: 'protobuf' is not a format; write \"json\""},
    {"avro without a registry", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders]\nformat = \"avro\"\n",
     "lakestream.toml:3: sources.orders.schema_registry: missing; set the schema registry of the Avro schemas"},
    {"avro with a schema",
     "[kafka]\nbootstrap = \"embedded\"\n[sources.orders]\nformat = \"avro\"\nschema_registry = \"embedded\"\n"
     "[sources.orders.schema]\nid = \"bigint\"\n",
     "lakestream.toml:6: sources.orders.schema: is for JSON sources; an Avro source's fields are those of its writer schemas"},
    {"registry on a JSON source",
     "[kafka]\nbootstrap = \"embedded\"\n[sources.orders]\nschema_registry = \"embedded\"\n[sources.orders.schema]\n"
     "id = \"bigint\"\n",
     "lakestream.toml:4: sources.orders.schema_registry: is for format = \"avro\""},
    {"target latency not a duration", BASE "target_latency = \"soon\"\n",
     "lakestream.toml:10: streams.read_orders.target_latency: 'soon' is not a duration"},
    {"target latency too short", "[service]\ntarget_latency = \"1ms\"\n" BASE,
     "lakestream.toml:2: service.target_latency: must be from 10ms to 1 hour"},
    {"unknown service key", "[service]\nlatency = \"1s\"\n" BASE, "lakestream.toml:2: service.latency: "},
    {"compact not a boolean", "[lake]\ncompact = \"yes\"\n" BASE,
     "lakestream.toml:2: lake.compact: must be true or false"},
    {"compaction of one file", "[lake]\ncompact_min_files = 1\n" BASE,
     "lakestream.toml:2: lake.compact_min_files: must be 2 or more"},
    {"an unknown checkpoint policy", "[lake]\ncheckpoint_policy = \"v3\"\n" BASE,
     "lakestream.toml:2: lake.checkpoint_policy: 'v3' is not a checkpoint policy; write \"classic\""},
    {"unknown column mapping mode", "[lake]\ncolumn_mapping = \"position\"\n" BASE,
     "lakestream.toml:2: lake.column_mapping: 'position' is not a column mapping mode; write \"none\", \"name\""},
    {"column mapping not a string", BASE "column_mapping = true\n",
     "lakestream.toml:10: streams.read_orders.column_mapping: "},
    {"target file size not a size", "[lake]\ntarget_file_size = \"big\"\n" BASE,
     "lakestream.toml:2: lake.target_file_size: 'big' is not a size"},
    {"unknown registry property",
     "[kafka]\nbootstrap = \"embedded\"\n[sources.orders]\nformat = \"avro\"\nschema_registry = \"embedded\"\n"
     "[sources.orders.schema_registry_properties]\n\"basic.auth.user\" = \"u:p\"\n",
     "lakestream.toml:7: sources.orders.schema_registry_properties.\"basic.auth.user\": "},
};

// Test names and failure output show the mistake, not the struct's bytes.
void PrintTo(const BadFile& bad, std::ostream* out) { *out << bad.mistake; }

std::string test_name(const ::testing::TestParamInfo<BadFile>& info) {
  std::string name;
  for (const char* c = info.param.mistake; *c; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return name;
}

class BadPipelineFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadPipelineFile, IsRefusedWithFileLineKeyAndReason) {
  const BadFile& bad = GetParam();
  TempDir dir;
  write_text(dir / "lakestream.toml", bad.toml);
  try {
    load_pipeline(dir / "lakestream.toml");
    FAIL() << bad.mistake << ": loaded without error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad.error), std::string::npos)
        << bad.mistake << "\n  expected: " << bad.error << "\n  got:      " << e.what();
    // Every message starts with the file's path as given.
    EXPECT_EQ(std::string(e.what()).rfind(dir / "lakestream.toml:", 0), 0u) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Mistakes, BadPipelineFile, ::testing::ValuesIn(kBadFiles), test_name);

TEST(PipelineFileErrors, AMissingFileSaysHowToPointAtOne) {
  TempDir dir;
  try {
    load_pipeline(dir / "lakestream.toml");
    FAIL() << "loaded a file that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read pipeline file " + (dir / "lakestream.toml") +
                                         ": No such file or directory; pass -p FILE or create lakestream.toml");
  }
}

}  // namespace
}  // namespace lakestream
