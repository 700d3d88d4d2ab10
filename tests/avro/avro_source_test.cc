// Avro sources end to end: events registered and encoded by an independent producer (Node:
// Confluent's registry client, avsc, kafkajs) through the embedded registry arrive in bronze
// with their types; schema changes evolve the table or are refused with what changed; bad
// records are quarantined with their reasons; a registry that is down fails the run cleanly.
#include <librdkafka/rdkafka.h>

#include <csignal>
#include <cstdlib>

#include <map>
#include <random>
#include <sstream>

#include "avro/avro_fixture.h"

namespace lakestream::testing {
namespace {

using json = nlohmann::json;

const char* kPipeline = R"toml(
[kafka]
bootstrap = "@BOOTSTRAP@"

[sources.people]
format = "avro"
schema_registry = "@REGISTRY@"

[streams.read_people]
kind = "ingest"
source = "people"
table = "bronze_people"

[streams.latest_people]
kind = "latest"
from = "bronze_people"
table = "people"
key = "id"
order_by = "signed_up"
)toml";

json decimal_type(int precision, int scale) {
  return {{"type", "bytes"}, {"logicalType", "decimal"}, {"precision", precision}, {"scale", scale}};
}

json person_schema() {
  return {{"type", "record"},
          {"name", "Person"},
          {"namespace", "test"},
          {"fields",
           {{{"name", "id"}, {"type", "long"}},
            {{"name", "name"}, {"type", {"null", "string"}}, {"default", nullptr}},
            {{"name", "age"}, {"type", "int"}},
            {{"name", "score"}, {"type", "double"}},
            {{"name", "active"}, {"type", "boolean"}},
            {{"name", "balance"}, {"type", decimal_type(18, 2)}},
            {{"name", "signed_up"}, {"type", {{"type", "long"}, {"logicalType", "timestamp-millis"}}}},
            {{"name", "seen_at"}, {"type", {{"type", "long"}, {"logicalType", "timestamp-micros"}}}},
            {{"name", "birthday"}, {"type", {{"type", "int"}, {"logicalType", "date"}}}},
            {{"name", "uid"}, {"type", {{"type", "string"}, {"logicalType", "uuid"}}}},
            {{"name", "tier"}, {"type", {{"type", "enum"}, {"name", "Tier"}, {"symbols", {"FREE", "PRO", "TEAM"}}}}},
            {{"name", "tags"}, {"type", {{"type", "array"}, {"items", "string"}}}},
            {{"name", "counts"}, {"type", {{"type", "map"}, {"values", "long"}}}},
            {{"name", "address"},
             {"type",
              {{"type", "record"},
               {"name", "Address"},
               {"fields",
                {{{"name", "city"}, {"type", "string"}},
                 {{"name", "zip"}, {"type", {"null", "int"}}, {"default", nullptr}}}}}}}}}};
}

// A person with values drawn from `rng`, and the CSV line the test's query gives for it.
struct Person {
  json avro;
  std::string expected;
};

std::string decimal_text(int64_t unscaled, int scale) {
  bool negative = unscaled < 0;
  std::string digits = std::to_string(negative ? -unscaled : unscaled);
  while (static_cast<int>(digits.size()) <= scale) digits.insert(0, "0");
  return (negative ? "-" : "") + digits.substr(0, digits.size() - scale) + "." + digits.substr(digits.size() - scale);
}

Person random_person(int64_t id, std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const char* tiers[] = {"FREE", "PRO", "TEAM"};
  bool has_name = pick(0, 3) > 0, has_zip = pick(0, 1) == 1;
  std::string name = "p" + std::to_string(pick(0, 1000000)) + (pick(0, 1) ? " \"q\"" : "");
  int64_t age = pick(0, 120), balance = pick(-1'000'000'000'000, 1'000'000'000'000);
  int64_t score_eighths = pick(-4000, 4000);
  double score = static_cast<double>(score_eighths) / 8;  // exact in binary
  bool active = pick(0, 1) == 1;
  int64_t signed_up = pick(0, 4'000'000'000'000), seen_at = pick(-1'000'000'000'000'000, 4'000'000'000'000'000);
  int64_t birthday = pick(-30000, 30000), zip = pick(10000, 99999);
  char uid[40];
  std::snprintf(uid, sizeof uid, "%08llx-0000-4000-8000-%012llx", static_cast<unsigned long long>(pick(0, 0xffffffff)),
                static_cast<unsigned long long>(pick(0, 0xffffffffffff)));
  std::string tier = tiers[pick(0, 2)];
  json tags = json::array();
  std::string tags_text;
  for (int64_t i = 0, n = pick(0, 3); i < n; i++) {
    std::string tag = "t" + std::to_string(pick(0, 99));
    tags.push_back(tag);
    tags_text += (tags_text.empty() ? "" : "|") + tag;
  }
  json counts = json::object();
  int64_t counts_sum = 0;
  for (int64_t i = 0, n = pick(0, 3); i < n; i++) {
    int64_t v = pick(-1000, 1000);
    counts["k" + std::to_string(i)] = v;
    counts_sum += v;
  }
  std::string city = "c" + std::to_string(pick(0, 50));

  Person p;
  p.avro = {{"id", id},
            {"name", has_name ? json(name) : json(nullptr)},
            {"age", age},
            {"score", score},
            {"active", active},
            {"balance", decimal_text(balance, 2)},
            {"signed_up", signed_up},
            {"seen_at", seen_at},
            {"birthday", birthday},
            {"uid", uid},
            {"tier", tier},
            {"tags", tags},
            {"counts", counts},
            {"address", {{"city", city}, {"zip", has_zip ? json(zip) : json(nullptr)}}}};
  std::ostringstream line;
  std::string quoted_name = "\"";
  for (char c : name) quoted_name += c == '"' ? std::string("\"\"") : std::string(1, c);
  quoted_name += "\"";
  line << id << "," << (has_name ? (name.find('"') != std::string::npos ? quoted_name : name) : "<null>") << "," << age
       << "," << score_eighths << "," << (active ? "true" : "false") << "," << decimal_text(balance, 2) << ","
       << signed_up << "," << seen_at << "," << birthday << "," << uid << "," << tier << "," << tags_text << ","
       << counts.size() << "," << counts_sum << "," << city << "," << (has_zip ? std::to_string(zip) : "<null>");
  p.expected = line.str();
  return p;
}

const char* kValuesQuery =
    "select id, coalesce(name, '<null>') as name, age, (score * 8)::BIGINT as score_eighths, active, balance, epoch_ms(signed_up) as signed_up_ms, "
    "epoch_us(seen_at) as seen_at_us, birthday - DATE '1970-01-01' as birthday_days, uid, tier, "
    "array_to_string(tags, '|') as tags, cardinality(counts) as counts, coalesce(list_sum(map_values(counts)), 0) as "
    "counts_sum, address.city as city, coalesce(address.zip::VARCHAR, '<null>') as zip from bronze_people order by id";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(AvroSource, EventsFromAnIndependentProducerArriveInBronzeWithTheirTypes) {
  AvroFixture f(kPipeline, {{"people", 3}});
  std::mt19937_64 rng(20261130);
  json records = json::array(), keys = json::array();
  std::vector<std::string> expected;
  for (int64_t id = 1; id <= 300; id++) {
    Person p = random_person(id, rng);
    records.push_back(p.avro);
    keys.push_back(id);
    expected.push_back(p.expected);
  }
  std::string out = f.produce({{"topic", "people"}, {"subject", "people-value"},
                               {"steps", {{{"schema", person_schema()}, {"records", records}, {"keys", keys}}}}});
  ASSERT_NE(out.find("sent 300"), std::string::npos) << out;

  CommandResult r = f.pipeline().lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  std::vector<std::string> rows = lines_of(f.pipeline().query(kValuesQuery));
  ASSERT_EQ(rows.size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(rows[i + 1], expected[i]);

  // The Delta types, as every reader sees them (the query reads the table through its log).
  EXPECT_EQ(f.pipeline().query("select concat_ws(' | ', typeof(id), typeof(name), typeof(age), typeof(score), "
                               "typeof(active), typeof(balance), typeof(signed_up), typeof(seen_at), typeof(birthday), "
                               "typeof(uid), typeof(tier), typeof(tags), typeof(counts), typeof(address), "
                               "typeof(\"offset\")) as types from bronze_people limit 1"),
            "types\n\"BIGINT | VARCHAR | INTEGER | DOUBLE | BOOLEAN | DECIMAL(18,2) | TIMESTAMP WITH TIME ZONE | "
            "TIMESTAMP WITH TIME ZONE | DATE | VARCHAR | VARCHAR | VARCHAR[] | MAP(VARCHAR, BIGINT) | "
            "STRUCT(city VARCHAR, zip INTEGER) | BIGINT\"\n");
  // Each offset once, none quarantined, and silver has every person.
  EXPECT_EQ(f.pipeline().query("select count(*) as n, count(distinct (partition, \"offset\")) as offsets from bronze_people"),
            "n,offsets\n300,300\n");
  EXPECT_EQ(f.pipeline().query("select count(*) as n from people"), "n\n300\n");
  CommandResult check = f.pipeline().lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

json order_schema(const json& extra_fields = json::array()) {
  json fields = {{{"name", "id"}, {"type", "long"}},
                 {{"name", "amount"}, {"type", decimal_type(10, 2)}},
                 {{"name", "status"}, {"type", "string"}}};
  for (const auto& field : extra_fields) fields.push_back(field);
  return {{"type", "record"}, {"name", "Order"}, {"fields", fields}};
}

const char* kOrdersPipeline = R"toml(
[kafka]
bootstrap = "@BOOTSTRAP@"

[sources.orders]
format = "avro"
schema_registry = "@REGISTRY@"

[streams.read_orders]
kind = "ingest"
source = "orders"
table = "bronze_orders"

[streams.latest_orders]
kind = "latest"
from = "bronze_orders"
table = "orders"
key = "id"
order_by = "id"
)toml";

json orders(int first, int n, bool with_channel) {
  json records = json::array();
  for (int id = first; id < first + n; id++) {
    json order = {{"id", id}, {"amount", std::to_string(id) + ".25"}, {"status", id % 2 ? "placed" : "paid"}};
    if (with_channel) order["channel"] = id % 3 ? json("web") : json(nullptr);
    records.push_back(order);
  }
  return records;
}

TEST(AvroSource, ACompatibleSchemaChangeAddsTheColumnDownstream) {
  AvroFixture f(kOrdersPipeline, {{"orders", 2}});
  json channel = {{"name", "channel"}, {"type", {"null", "string"}}, {"default", nullptr}};
  f.produce({{"topic", "orders"}, {"subject", "orders-value"},
             {"steps", {{{"schema", order_schema()}, {"records", orders(1, 10, false)}}}}});
  CommandResult r = f.pipeline().lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Version 2 adds a field with a default: the registry takes it as BACKWARD compatible, and
  // bronze and silver get the column at the next run; older rows read it as null.
  std::string out = f.produce({{"topic", "orders"}, {"subject", "orders-value"},
                               {"steps", {{{"schema", order_schema(json::array({channel}))}, {"records", orders(11, 6, true)}}}}});
  ASSERT_NE(out.find("registered 2"), std::string::npos) << out;
  r = f.pipeline().lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected = "id,amount,status,channel\n";
  for (int id = 1; id <= 16; id++)
    expected += std::to_string(id) + "," + std::to_string(id) + ".25," + (id % 2 ? "placed" : "paid") + "," +
                (id <= 10 || id % 3 == 0 ? "<null>" : "web") + "\n";
  EXPECT_EQ(f.pipeline().query("select id, amount, status, coalesce(channel, '<null>') as channel from bronze_orders order by id"),
            expected);
  EXPECT_EQ(f.pipeline().query("select id, amount, status, coalesce(channel, '<null>') as channel from orders order by id"),
            expected);
  CommandResult check = f.pipeline().lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST(AvroSource, ABreakingSchemaChangeIsRefusedNamingTheSchemaAndWhatChanged) {
  AvroFixture f(kOrdersPipeline, {{"orders", 2}});
  f.produce({{"topic", "orders"}, {"subject", "orders-value"},
             {"steps", {{{"schema", order_schema()}, {"records", orders(1, 5, false)}}}}});
  ASSERT_EQ(f.pipeline().lakestream("run").exit_code, 0);

  // The registry refuses the change under BACKWARD; a producer whose subject is set to NONE
  // gets it in, and the stream must refuse it rather than write a column of another type.
  json changed = order_schema();
  changed["fields"][2]["type"] = "int";
  std::string out = f.produce({{"topic", "orders"}, {"subject", "orders-value"},
                               {"steps", {{{"schema", changed}, {"records", json::array()}}}}});
  EXPECT_NE(out.find("refused"), std::string::npos) << out;
  EXPECT_NE(out.find("field \\\"status\\\": a string cannot be read as an int"), std::string::npos) << out;

  f.set_compatibility("orders-value", "NONE");
  json records = json::array();
  for (int id = 6; id <= 8; id++) records.push_back({{"id", id}, {"amount", "1.00"}, {"status", id}});
  out = f.produce({{"topic", "orders"}, {"subject", "orders-value"},
                   {"steps", {{{"schema", changed}, {"records", records}, {"compatibility", "NONE"}}}}});
  ASSERT_NE(out.find("registered 2"), std::string::npos) << out;
  CommandResult r = f.pipeline().lakestream("run");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the writer schema id 2 (subject orders-value, version 2) changes field \"status\" from string "
                       "to integer, which table bronze_orders cannot take"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Nothing was read. Register a version that keeps the field"), std::string::npos) << r.err;
  EXPECT_EQ(f.pipeline().query("select count(*) as n from bronze_orders"), "n\n5\n");

  // A required field removed: refused likewise, naming the version that required it.
  AvroFixture g(kOrdersPipeline, {{"orders", 2}});
  g.produce({{"topic", "orders"}, {"subject", "orders-value"},
             {"steps", {{{"schema", order_schema()}, {"records", orders(1, 3, false)}}}}});
  ASSERT_EQ(g.pipeline().lakestream("run").exit_code, 0);
  json without_status = order_schema();
  without_status["fields"].erase(2);
  json one_order = json::array({{{"id", 9}, {"amount", "2.00"}}});
  out = g.produce({{"topic", "orders"}, {"subject", "orders-value"},
                   {"steps", {{{"schema", without_status}, {"records", one_order}}}}});
  ASSERT_NE(out.find("registered 2"), std::string::npos) << out;  // BACKWARD allows a removal
  r = g.pipeline().lakestream("run");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the writer schema id 2 (subject orders-value, version 2) removes field \"status\", which "
                       "version 1 of orders-value required"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(g.pipeline().query("select count(*) as n from bronze_orders"), "n\n3\n");
}

// Sends raw values to partition 0 of `topic`, in order.
void send_raw(const std::string& bootstrap, const std::string& topic, const std::vector<std::string>& values) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  ASSERT_NE(producer, nullptr) << err;
  for (const auto& value : values)
    ASSERT_EQ(rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(rd_kafka_flush(producer, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_destroy(producer);
}

// Confluent framing by hand: magic byte, big-endian id, then the body.
std::string framed(int id, const std::string& body) {
  std::string value(1, '\0');
  for (int shift = 24; shift >= 0; shift -= 8) value += static_cast<char>((id >> shift) & 0xff);
  return value + body;
}

// Avro's zig-zag varint of a long.
std::string avro_long(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  std::string out;
  while (z >= 0x80) {
    out += static_cast<char>((z & 0x7f) | 0x80);
    z >>= 7;
  }
  return out + static_cast<char>(z);
}

TEST(AvroSource, MalformedRecordsAreQuarantinedWithTheirReasons) {
  AvroFixture f(kOrdersPipeline, {{"orders", 1}});
  // Schema id 1 registered through the independent client, with one good record.
  f.produce({{"topic", "orders"}, {"subject", "orders-value"},
             {"steps", {{{"schema", order_schema()}, {"records", orders(1, 1, false)}}}}});
  // A body written by hand: id 2, amount 3.50 (unscaled 350 in two bytes), status "ok".
  std::string good = avro_long(2) + avro_long(2) + std::string("\x01\x5e", 2) + avro_long(2) + "ok";
  send_raw(f.pipeline().broker().bootstrap(), "orders",
           {framed(1, good),                              // offset 1: good
            std::string("\x01", 1) + good.substr(0, 4),   // 2: wrong magic byte
            framed(1, good.substr(0, good.size() - 1)),   // 3: truncated body
            framed(999, good),                            // 4: unknown schema id
            std::string("\0\0\0", 3),                     // 5: shorter than the header
            framed(1, good + "xx"),                       // 6: bytes left over
            "{\"id\": 7}"});                              // 7: JSON on an Avro topic
  f.pipeline().produce_empty("orders");                   // 8: empty value
  CommandResult r = f.pipeline().lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(f.pipeline().query("select id, amount, status, \"offset\" from bronze_orders order by \"offset\""),
            "id,amount,status,offset\n1,1.25,placed,0\n2,3.50,ok,1\n");
  std::string reasons = f.pipeline().query("select \"offset\", reason from bronze_orders_quarantine order by \"offset\"");
  std::vector<std::string> lines = lines_of(reasons);
  ASSERT_EQ(lines.size(), 8u) << reasons;
  EXPECT_NE(lines[1].find("2,\"wrong magic byte 0x01: not Confluent-framed Avro"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("3,the Avro body does not decode with schema id 1 (truncated or corrupt"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("4,unknown schema id 999: the schema registry at " + f.registry().url() +
                          " has no schema with that id"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("5,\"not Confluent-framed Avro: 3 bytes, fewer than the 5 of the header"), std::string::npos) << lines[4];
  EXPECT_NE(lines[5].find("6,\"the Avro body has bytes left over after the record of schema id 1"), std::string::npos) << lines[5];
  EXPECT_NE(lines[6].find("7,\"wrong magic byte 0x7B"), std::string::npos) << lines[6];
  EXPECT_EQ(lines[7], "8,empty value");
  // The quarantine keeps the bytes as Kafka held them.
  EXPECT_EQ(f.pipeline().query("select octet_length(value) as n from bronze_orders_quarantine where \"offset\" = 6"),
            "n\n" + std::to_string(5 + good.size() + 2) + "\n");
  CommandResult check = f.pipeline().lakestream("check");
  EXPECT_NE(check.out.find("7 records did not fit the schema and are in bronze_orders_quarantine"), std::string::npos)
      << check.out;
}

TEST(AvroSource, ARegistryThatIsDownFailsTheRunAndTheNextRunGoesOn) {
  AvroFixture f(kOrdersPipeline, {{"orders", 2}});
  f.produce({{"topic", "orders"}, {"subject", "orders-value"},
             {"steps", {{{"schema", order_schema()}, {"records", orders(1, 20, false)}}}}});
  // A registry address where nothing listens: the run stops before planning anything.
  std::string down_pipeline = kOrdersPipeline;
  down_pipeline.replace(down_pipeline.find("@REGISTRY@"), 10, "http://127.0.0.1:1");
  f.pipeline().write_pipeline(down_pipeline);
  CommandResult r = f.pipeline().lakestream("run");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the schema registry at http://127.0.0.1:1 did not answer GET /schemas/ids/1"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Nothing was read; run again when the registry is back"), std::string::npos) << r.err;
  EXPECT_EQ(list_dir_count(f.pipeline().dir() + "/lake/bronze_orders_quarantine"), 0);
  // Back: every record once, none quarantined.
  f.pipeline().write_pipeline(f.with_registry(kOrdersPipeline));
  r = f.pipeline().lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(f.pipeline().query("select count(*) as n, count(distinct id) as ids from bronze_orders"), "n,ids\n20,20\n");
  EXPECT_EQ(list_dir_count(f.pipeline().dir() + "/lake/bronze_orders_quarantine"), 0);
}

}  // namespace
}  // namespace lakestream::testing

namespace lakestream::testing {
namespace {

// Runs of an Avro source killed with SIGKILL at random moments (LAKESTREAM_RANDOM_SEED): after
// the kills, one whole run, and bronze and silver hold each record once, as an uninterrupted run
// writes them (the crash points inside a batch are the ingest stream's, tested in tests/faults).
TEST(AvroSource, KilledRunsLoseNothingAndWriteNothingTwice) {
  std::string pipeline = kOrdersPipeline;
  // Small batches, so that the backlog takes many batches and kills land mid-way in several runs.
  pipeline.replace(pipeline.find("schema_registry"), 0, "max_offsets_per_trigger = 40\n");
  AvroFixture f(pipeline, {{"orders", 3}});
  json channel = {{"name", "channel"}, {"type", {"null", "string"}}, {"default", nullptr}};
  std::string out = f.produce({{"topic", "orders"}, {"subject", "orders-value"},
             {"steps", {{{"schema", order_schema()}, {"records", orders(1, 1500, false)}},
                        {{"schema", order_schema(json::array({channel}))}, {"records", orders(1501, 1500, true)}}}}});
  ASSERT_EQ(out, "registered 1\nsent 1500\nregistered 2\nsent 1500\n");
  std::mt19937 rng(static_cast<unsigned>(std::getenv("LAKESTREAM_RANDOM_SEED") ? std::atoi(std::getenv("LAKESTREAM_RANDOM_SEED")) : 15));
  std::uniform_int_distribution<int> delay_ms(0, 300);
  int killed = 0;
  for (int i = 0; i < 12; i++) killed += f.pipeline().lakestream_killed_after(delay_ms(rng), "run").signal == SIGKILL;
  RecordProperty("killed", killed);
  EXPECT_GT(killed, 3);
  CommandResult r = f.pipeline().lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int64_t amount_cents = 0, channels = 0;
  for (const auto& order : orders(1, 3000, true)) {
    amount_cents += order["id"].get<int64_t>() * 100 + 25;
    channels += order["id"].get<int64_t>() > 1500 && order["channel"].is_string();
  }
  EXPECT_EQ(f.pipeline().query("select count(*) as n, count(distinct (partition, \"offset\")) as offsets, "
                               "count(distinct id) as ids, sum(amount) as amount, count(channel) as channels "
                               "from bronze_orders"),
            "n,offsets,ids,amount,channels\n3000,3000,3000," + decimal_text(amount_cents, 2) + "," +
                std::to_string(channels) + "\n");
  EXPECT_EQ(f.pipeline().query("select count(*) as n, count(distinct id) as ids from orders"), "n,ids\n3000,3000\n");
  CommandResult check = f.pipeline().lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace lakestream::testing
