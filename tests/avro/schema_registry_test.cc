// The embedded schema registry: its REST API answered as Confluent's registry answers it, the
// independent Node client registering through it, lakestream's registry client reading what that
// client registered, and `lakestream broker --schema-registry` serving it to a pipeline.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "avro/avro_fixture.h"
#include "broker/broker_address.h"
#include "source/schema_registry_client.h"

namespace lakestream::testing {
namespace {

using json = nlohmann::json;

json schema_with(const json& fields) { return {{"type", "record"}, {"name", "Customer"}, {"fields", fields}}; }

json body_of(const json& schema) { return {{"schema", schema.dump()}}; }

// The response's status and JSON body.
std::pair<int, json> call(SchemaRegistryServer& registry, const std::string& method, const std::string& path,
                          const json& body = nullptr) {
  HttpResponse r = registry.handle({method, path, body.is_null() ? "" : body.dump()});
  EXPECT_EQ(r.content_type, "application/vnd.schemaregistry.v1+json");
  return {r.status, json::parse(r.body)};
}

TEST(SchemaRegistry, RestApiAnswersAsConfluentsDoes) {
  SchemaRegistryServer registry;
  json v1 = schema_with({{{"name", "id"}, {"type", "long"}}});
  json v2 = schema_with({{{"name", "id"}, {"type", "long"}}, {{"name", "email"}, {"type", {"null", "string"}}, {"default", nullptr}}});
  json bad = schema_with({{{"name", "id"}, {"type", "string"}}});

  EXPECT_EQ(call(registry, "POST", "/subjects/customers-value/versions", body_of(v1)), std::make_pair(200, json{{"id", 1}}));
  // The same schema again, with other spacing: the same id, no new version.
  HttpResponse again = registry.handle({"POST", "/subjects/customers-value/versions",
                                        json{{"schema", "{ \"type\" : \"record\", \"name\":\"Customer\", \"fields\":[{\"name\":\"id\",\"type\":\"long\"}] }"}}.dump()});
  EXPECT_EQ(json::parse(again.body), json({{"id", 1}}));
  EXPECT_EQ(call(registry, "POST", "/subjects/customers-value/versions", body_of(v2)), std::make_pair(200, json{{"id", 2}}));
  // Ids are global: another subject registering v1 gets id 1.
  EXPECT_EQ(call(registry, "POST", "/subjects/other%2Dvalue/versions", body_of(v1)), std::make_pair(200, json{{"id", 1}}));

  EXPECT_EQ(call(registry, "GET", "/subjects"), std::make_pair(200, json{"customers-value", "other-value"}));
  EXPECT_EQ(call(registry, "GET", "/subjects/customers-value/versions"), std::make_pair(200, json{1, 2}));
  auto [status, latest] = call(registry, "GET", "/subjects/customers-value/versions/latest");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(latest["version"], 2);
  EXPECT_EQ(latest["id"], 2);
  EXPECT_EQ(json::parse(latest["schema"].get<std::string>()), v2);
  EXPECT_EQ(json::parse(call(registry, "GET", "/schemas/ids/1").second["schema"].get<std::string>()), v1);
  EXPECT_EQ(call(registry, "GET", "/schemas/ids/1/versions").second,
            json::parse(R"([{"subject":"customers-value","version":1},{"subject":"other-value","version":1}])"));

  // Lookup of a registered schema, and of one that is not.
  auto [found_status, found] = call(registry, "POST", "/subjects/customers-value", body_of(v1));
  EXPECT_EQ(found_status, 200);
  EXPECT_EQ(found["version"], 1);
  EXPECT_EQ(found["id"], 1);
  EXPECT_EQ(call(registry, "POST", "/subjects/customers-value", body_of(bad)).second["error_code"], 40403);

  // Compatibility: BACKWARD against a version.
  auto [c1, compatible] = call(registry, "POST", "/compatibility/subjects/customers-value/versions/latest", body_of(v2));
  EXPECT_EQ(compatible["is_compatible"], true);
  auto [c2, incompatible] = call(registry, "POST", "/compatibility/subjects/customers-value/versions/1", body_of(bad));
  EXPECT_EQ(incompatible["is_compatible"], false);
  EXPECT_EQ(incompatible["messages"], json{"field \"id\": a long cannot be read as a string"});
  json needs_default = schema_with({{{"name", "id"}, {"type", "long"}}, {{"name", "tier"}, {"type", "string"}}});
  EXPECT_EQ(call(registry, "POST", "/compatibility/subjects/customers-value/versions/1", body_of(needs_default)).second["messages"],
            json{"field \"tier\" is new and has no default: data written before it has no value for it"});

  // Confluent's error shapes.
  auto [s409, conflict] = call(registry, "POST", "/subjects/customers-value/versions", body_of(bad));
  EXPECT_EQ(s409, 409);
  EXPECT_EQ(conflict["error_code"], 409);
  EXPECT_NE(conflict["message"].get<std::string>().find("incompatible with an earlier schema"), std::string::npos);
  auto [s422, invalid] = call(registry, "POST", "/subjects/customers-value/versions", json{{"schema", "{\"type\": \"recrod\"}"}});
  EXPECT_EQ(s422, 422);
  EXPECT_EQ(invalid["error_code"], 42201);
  EXPECT_EQ(call(registry, "GET", "/subjects/nobody/versions"),
            std::make_pair(404, json{{"error_code", 40401}, {"message", "Subject 'nobody' not found."}}));
  EXPECT_EQ(call(registry, "GET", "/subjects/customers-value/versions/9").second["error_code"], 40402);
  EXPECT_EQ(call(registry, "GET", "/subjects/customers-value/versions/x").second["error_code"], 42202);
  EXPECT_EQ(call(registry, "GET", "/schemas/ids/42"),
            std::make_pair(404, json{{"error_code", 40403}, {"message", "Schema 42 not found"}}));

  // With the subject's level at NONE, any change registers.
  EXPECT_EQ(call(registry, "PUT", "/config/customers-value", json{{"compatibility", "NONE"}}).second["compatibility"], "NONE");
  EXPECT_EQ(call(registry, "POST", "/subjects/customers-value/versions", body_of(bad)), std::make_pair(200, json{{"id", 3}}));
}

TEST(SchemaRegistry, LakestreamsClientReadsWhatTheNodeClientRegistered) {
  AvroFixture f("", {{"customers", 1}});
  json v1 = schema_with({{{"name", "id"}, {"type", "long"}}});
  json v2 = schema_with({{{"name", "id"}, {"type", "long"}}, {{"name", "email"}, {"type", {"null", "string"}}, {"default", nullptr}}});
  std::string out = f.produce({{"topic", "customers"}, {"subject", "customers-value"},
                               {"steps", {{{"schema", v1}, {"records", {{{"id", 1}}}}}, {{"schema", v2}, {"records", json::array()}}}}});
  EXPECT_EQ(out, "registered 1\nsent 1\nregistered 2\nsent 0\n");

  SchemaRegistryClient client({f.registry().url(), {}});
  auto schema = client.schema_by_id(2);
  ASSERT_TRUE(schema.has_value());
  EXPECT_EQ(json::parse(*schema), v2);
  EXPECT_FALSE(client.schema_by_id(77).has_value());
  auto uses = client.versions_of(2);
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].subject, "customers-value");
  EXPECT_EQ(uses[0].version, 2);
  auto first = client.schema_of_version("customers-value", 1);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(json::parse(*first), v1);
  EXPECT_FALSE(client.schema_of_version("customers-value", 3).has_value());

  // Basic auth is sent when configured (the embedded registry ignores it; a wrong host is told).
  SchemaRegistryClient unreachable({"http://127.0.0.1:1", {{"basic.auth.user.info", "u:p"}}});
  try {
    unreachable.schema_by_id(1);
    ADD_FAILURE() << "no error from an unreachable registry";
  } catch (const RegistryUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("the schema registry at http://127.0.0.1:1 did not answer"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("u:p"), std::string::npos) << "the credentials are never printed";
  }
}

TEST(SchemaRegistry, TheBrokerCommandServesItToAPipeline) {
  TempDir dir;
  std::string file = dir / "broker.json";
  BackgroundProcess broker({"broker", "--topic", "customers:2", "--schema-registry", "--address-file", file}, dir.path());
  ASSERT_TRUE(broker.wait_for_output("schema registry at http://127.0.0.1:", 10000)) << broker.out() << broker.err();
  std::optional<BrokerAddress> address;
  for (int i = 0; i < 500 && !address; i++) {
    address = read_broker_address(file);
    if (!address) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(address.has_value());
  ASSERT_EQ(address->schema_registry.rfind("http://127.0.0.1:", 0), 0u) << address->schema_registry;

  json schema = schema_with({{{"name", "id"}, {"type", "long"}}, {{"name", "name"}, {"type", "string"}}});
  json records = json::array();
  for (int id = 1; id <= 40; id++) records.push_back({{"id", id}, {"name", "c" + std::to_string(id)}});
  json plan = {{"topic", "customers"}, {"subject", "customers-value"}, {"steps", {{{"schema", schema}, {"records", records}}}}};
  write_text(dir / "plan.json", plan.dump());
  std::string command = "NODE_PATH=" + source_dir() + "/.deps/npm/node_modules timeout 120 node " + source_dir() +
                        "/tests/avro/produce_avro.js " + address->bootstrap + " " + address->schema_registry + " " +
                        dir / "plan.json" + " > " + dir / "node.out" + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);

  write_text(dir / "lakestream.toml", R"toml(
[kafka]
bootstrap = "embedded"

[sources.customers]
format = "avro"
schema_registry = "embedded"

[streams.read_customers]
kind = "ingest"
source = "customers"
table = "bronze_customers"
)toml");
  std::vector<std::string> env{"LAKESTREAM_BROKER_FILE=" + file};
  CommandResult r = run_lakestream({"run"}, dir.path(), "", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_lakestream({"query", "-f", "csv", "select count(*) as n, sum(id) as ids, count(distinct name) as names from bronze_customers"},
                     dir.path(), "", env);
  EXPECT_EQ(r.out, "n,ids,names\n40,820,40\n") << r.err;
  broker.send_signal(SIGTERM);
  EXPECT_EQ(broker.wait(10000).exit_code, 0);
}

}  // namespace
}  // namespace lakestream::testing
