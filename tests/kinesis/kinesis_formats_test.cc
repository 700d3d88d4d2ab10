// A Kinesis source reads the formats a Kafka source reads: Avro in Confluent's wire format with
// its schemas in a schema registry (encoded by Confluent's own registry client), and Debezium's
// change events (the cdc example's, deletes and all), into the same tables.
#include <random>

#include "broker/schema_registry_server.h"
#include "kinesis/sent_records.h"
#include "shop/shop_scenario.h"  // read_text, replaced

namespace lakestream::testing {
namespace {

using json = nlohmann::json;

const char* kAvroPipeline = R"([lake]
tables = "lake"
checkpoints = "checkpoints"

[sources.people]
kinesis = "people"
endpoint = "@KINESIS@"
format = "avro"
schema_registry = "@REGISTRY@"
max_records_per_trigger = 70

[streams.read_people]
kind = "ingest"
source = "people"
table = "bronze_people"
)";

TEST(KinesisFormats, AvroRecordsFromTheRegistrysOwnClientArriveTyped) {
  SchemaRegistryServer registry;
  Kinesalite kinesis;
  kinesis.create("people", 2);
  json schema = {{"type", "record"}, {"name", "Person"},
                 {"fields", {{{"name", "id"}, {"type", "long"}},
                             {{"name", "name"}, {"type", "string"}},
                             {{"name", "score"}, {"type", "double"}},
                             {{"name", "nick"}, {"type", {"null", "string"}}, {"default", nullptr}},
                             {{"name", "signed_up"}, {"type", {{"type", "long"}, {"logicalType", "timestamp-millis"}}}}}}};
  std::mt19937 rng(26);
  json records = json::array();
  std::string expected = "id,name,score_64ths,nick,signed_up_ms\n";
  for (int id = 1; id <= 250; id++) {
    std::string name = id % 9 == 0 ? "Zoë Ünal 顧客 " + std::to_string(id) : "person " + std::to_string(id);
    int64_t score_64ths = static_cast<int64_t>(rng() % 100000);
    double score = static_cast<double>(score_64ths) / 64.0;  // exact in binary
    int64_t signed_up = 1790845500000LL + static_cast<int64_t>(rng() % 100000000);
    json value = {{"id", id}, {"name", name}, {"score", score}, {"signed_up", signed_up}};
    value["nick"] = id % 4 == 0 ? json(nullptr) : json("n" + std::to_string(id));
    records.push_back({{"value", value}, {"key", std::to_string(id)}});
    expected += std::to_string(id) + "," + name + "," + std::to_string(score_64ths) + "," +
                (id % 4 == 0 ? "" : "n" + std::to_string(id)) +
                "," + std::to_string(signed_up) + "\n";
  }
  auto put = kinesis.run({{{"put_avro", "people"}, {"registry", registry.url()}, {"subject", "people-value"},
                           {"schema", schema}, {"records", records}}});
  ASSERT_EQ(put.size(), 250u);
  // A record that is not Avro at all is quarantined with its reason.
  kinesis.put("people", json::array({{{"data", "{\"id\": 1}"}, {"key", "x"}}}));

  std::string toml = with_kinesis(kAvroPipeline, kinesis.endpoint());
  toml = replaced(toml, "@REGISTRY@", registry.url());
  PipelineFixture f(toml, {{"unused", 1}});
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(f.query("select id, name, (score * 64)::BIGINT as score_64ths, nick, epoch_ms(signed_up) as signed_up_ms "
                    "from bronze_people order by id"),
            expected);
  EXPECT_EQ(f.query("select concat_ws(' | ', typeof(id), typeof(name), typeof(score), typeof(nick), typeof(signed_up)) "
                    "as types from bronze_people limit 1"),
            "types\nBIGINT | VARCHAR | DOUBLE | VARCHAR | TIMESTAMP WITH TIME ZONE\n");
  std::string quarantined = f.query("select key, reason from bronze_people_quarantine");
  EXPECT_EQ(quarantined.substr(0, quarantined.find('\n') + 3), "key,reason\nx,") << quarantined;
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

// The cdc example's pipeline reading the Kinesis stream `customers` at @KINESIS@, with no [kafka].
std::string kinesis_cdc_pipeline() {
  std::string toml = read_text(source_dir() + "/examples/cdc/lakestream.toml");
  size_t kafka = toml.find("[kafka]\n");
  toml.erase(kafka, toml.find("\n[", kafka + 1) + 1 - kafka);
  return replaced(toml, "topic = \"shop.public.customers\"\n", "kinesis = \"customers\"\nendpoint = \"@KINESIS@\"\n");
}

// The example's change events as records keyed by the changed row's id ("null": Kafka's
// tombstone, which a Kinesis stream carries as the text null).
json change_records(const std::string& file) {
  json records = json::array();
  std::istringstream lines(read_text(source_dir() + "/examples/cdc/" + file));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    json event = json::parse(line);
    if (event.contains("payload")) event = event["payload"];
    std::string key = "tombstone";
    if (event.is_object()) key = std::to_string((event["after"].is_null() ? event["before"] : event["after"])["id"].get<int64_t>());
    records.push_back({{"data", line}, {"key", key}});
  }
  return records;
}

TEST(KinesisFormats, DebeziumChangeEventsMakeTheSameSilverAsFromKafka) {
  KinesisFixture f(kinesis_cdc_pipeline());
  f.kinesis().create("customers", 2);
  f.kinesis().put("customers", change_records("changes.jsonl"));
  run_ok(f);
  f.kinesis().put("customers", change_records("late-changes.jsonl"));
  run_ok(f);
  // The lines examples/cdc gives from Kafka (tests/CMakeLists.txt, example_cdc).
  EXPECT_EQ(f.query("select id, name, email, _op, _source_lsn from customers order by id"),
            "id,name,email,_op,_source_lsn\n"
            "1,Ada Lovelace,ada@lovelace.org,u,23000140\n"
            "2,Grace Hopper,grace@navy.mil,c,23000160\n"
            "3,Alan M. Turing,alan@example.com,u,23000170\n"
            "5,Barbara Liskov,liskov@mit.edu,u,23000200\n");
  EXPECT_EQ(f.query("select id, _op, _source_lsn from customers_deleted order by id"), "id,_op,_source_lsn\n4,d,23000180\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      bronze_customers has 13 events, each offset once"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("ok      customers has the newest state of all 4 customers"), std::string::npos) << check.out;
}

}  // namespace
}  // namespace lakestream::testing
