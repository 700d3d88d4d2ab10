// Debezium's Avro envelope (the AvroConverter's before/after records, source, op) from an
// independent producer through the embedded registry: bronze holds each change's row with its
// op and source position, silver is the replayed change log, deletes applied.
#include "avro/avro_fixture.h"
#include "support/change_log.h"

namespace lakestream::testing {
namespace {

using json = nlohmann::json;

const std::string kPipeline =
    change_log_pipeline("format = \"avro\"\nschema_registry = \"@REGISTRY@\"\nenvelope = \"debezium\"\n");

// The value schema Debezium's Postgres connector registers for a customers table.
json envelope_schema() {
  json value = {{"type", "record"},
                {"name", "Value"},
                {"fields",
                 {{{"name", "id"}, {"type", "long"}},
                  {{"name", "name"}, {"type", {"null", "string"}}, {"default", nullptr}},
                  {{"name", "score"}, {"type", {"null", "double"}}, {"default", nullptr}}}}};
  json source = {{"type", "record"},
                 {"name", "Source"},
                 {"namespace", "io.debezium.connector.postgresql"},
                 {"fields",
                  {{{"name", "version"}, {"type", "string"}},
                   {{"name", "connector"}, {"type", "string"}},
                   {{"name", "ts_ms"}, {"type", "long"}},
                   {{"name", "lsn"}, {"type", {"null", "long"}}, {"default", nullptr}}}}};
  return {{"type", "record"},
          {"name", "Envelope"},
          {"namespace", "shop.public.customers"},
          {"fields",
           {{{"name", "before"}, {"type", {"null", value}}, {"default", nullptr}},
            {{"name", "after"}, {"type", {"null", "Value"}}, {"default", nullptr}},
            {{"name", "source"}, {"type", source}},
            {{"name", "op"}, {"type", "string"}},
            {{"name", "ts_ms"}, {"type", {"null", "long"}}, {"default", nullptr}}}}};
}

json change(const std::string& op, int64_t id, const std::string& name, double score, int64_t lsn) {
  json row = {{"id", id}, {"name", name}, {"score", score}};
  json key_only = {{"id", id}, {"name", nullptr}, {"score", nullptr}};
  return {{"before", op == "d" ? key_only : op == "u" ? row : json(nullptr)},
          {"after", op == "d" ? json(nullptr) : row},
          {"source", {{"version", "2.7.0.Final"}, {"connector", "postgresql"}, {"ts_ms", 1790845500000 + lsn}, {"lsn", lsn}}},
          {"op", op},
          {"ts_ms", 1790845501000 + lsn}};
}

TEST(AvroChangeEvents, TheEnvelopesRowsGoToBronzeAndTheReplayedLogToSilver) {
  AvroFixture f(kPipeline, {{"customers", 1}});
  // Out of order: 2's delete before its older create; 1 created, updated, then an older update.
  json records = {change("r", 1, "Ada", 1.5, 10), change("d", 2, "", 0, 40), change("c", 2, "Grace", 2.5, 20),
                  change("u", 1, "Ada L", 3.5, 30), change("u", 1, "Ada K", 4.5, 25), change("c", 3, "Alan", 5.5, 50)};
  std::string out = f.produce({{"topic", "customers"}, {"subject", "customers-value"},
                               {"steps", {{{"schema", envelope_schema()}, {"records", records}}}}});
  ASSERT_NE(out.find("sent 6"), std::string::npos) << out;
  f.pipeline().produce_empty("customers");  // the tombstone after 2's delete

  CommandResult run = f.pipeline().lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("7 in, 6 out to bronze_customers, 1 tombstone skipped"), std::string::npos) << run.out;
  EXPECT_EQ(f.pipeline().query("select id, name, score, _op, _source_ts_ms, _source_lsn from bronze_customers order by "
                               "\"offset\""),
            "id,name,score,_op,_source_ts_ms,_source_lsn\n1,Ada,1.5,r,1790845500010,10\n2,,,d,1790845500040,40\n"
            "2,Grace,2.5,c,1790845500020,20\n1,Ada L,3.5,u,1790845500030,30\n1,Ada K,4.5,u,1790845500025,25\n"
            "3,Alan,5.5,c,1790845500050,50\n");
  EXPECT_EQ(f.pipeline().query("select id, name from customers order by id"), "id,name\n1,Ada L\n3,Alan\n");
  CommandResult check = f.pipeline().lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      customers has the newest state of all 2 customers\n"
                           "note    1 customer deleted from customers: the newest change of each in bronze_customers "
                           "is a delete"),
            std::string::npos)
      << check.out;
}

TEST(AvroChangeEvents, AWriterSchemaThatIsNoEnvelopeIsRefused) {
  AvroFixture f(kPipeline, {{"customers", 1}});
  json plain = {{"type", "record"}, {"name", "Customer"}, {"fields", {{{"name", "id"}, {"type", "long"}}}}};
  f.produce({{"topic", "customers"}, {"subject", "customers-value"},
             {"steps", {{{"schema", plain}, {"records", {{{"id", 1}}}}}}}});
  CommandResult run = f.pipeline().lakestream("run");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("is not Debezium's change event envelope: it has no record field \"after\""), std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace lakestream::testing
