// Ingest workers of one consumer group sharing a bronze table on a store. A service trusts the end
// of a table's log it found for a moment (table/snapshot.cc), so a worker's commit may be built on
// a snapshot that misses the other worker's newest commit: it conflicts at that version (Azurite
// enforces put-if-absent; s3rver does not, so there one writer per table is all that is safe) and
// is built again, its files written again. After its first conflict with another process a worker
// looks at the log before every commit, so few commits are built twice: the data files on the
// store that no commit names stay few. And each offset is in bronze once. The workers trust an
// end for a second here (LAKESTREAM_LOG_END_TRUST_MS), not 200 ms: a worker that went on trusting
// it would then build most commits twice, far from the few that two writers' commits at the same
// moment cost (which grow with the machine's load), so the bound tells the two apart on any machine.
#include <csignal>
#include <set>
#include <thread>

#include "lake_on_store/store_lake.h"
#include "storage/object_store.h"
#include "table/delta_table.h"
#include "table/table_files.h"

namespace lakestream::testing {
namespace {

std::string workers_on_store_pipeline(const StoreEmulator& store) {
  return "[kafka]\nbootstrap = \"@BOOTSTRAP@\"\ngroup = \"shop\"\n"
         "[kafka.properties]\n\"session.timeout.ms\" = 6000\n\"heartbeat.interval.ms\" = 600\n\n" +
         store.lake_section("workers") +
         "\n[sources.orders]\ntopic = \"orders\"\nkey = \"order_id\"\nmax_offsets_per_trigger = 2000\n"
         "[sources.orders.schema]\norder_id = \"bigint\"\nstatus = \"string\"\n\n"
         "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n";
}

int64_t count_of(PipelineFixture& f, const std::string& sql) {
  CommandResult r = f.lakestream("query", {"--format", "csv", sql});
  if (r.exit_code != 0) return -1;  // no table yet
  return std::stoll(r.out.substr(r.out.find('\n') + 1));
}

TEST(WorkersOnStore, TwoWorkersSharingBronzeOnAzuriteWriteEachOffsetOnceAndFewCommitsTwice) {
  StoreEmulator store(Emulator::Azurite);
  PipelineFixture f(workers_on_store_pipeline(store), {{"orders", 6}});
  std::vector<std::string> worker_args{"run", "-p", f.pipeline_file(), "--continuous", "--interval", "100ms"};
  std::vector<std::unique_ptr<BackgroundProcess>> workers;
  for (int i = 0; i < 2; i++)
    workers.push_back(
        std::make_unique<BackgroundProcess>(worker_args, f.dir(), std::vector<std::string>{"LAKESTREAM_LOG_END_TRUST_MS=1000"}));

  // 40 sends of 300 orders, 250 ms apart: both workers commit every few hundred ms.
  int64_t sent = 0;
  for (int send = 0; send < 40; send++) {
    std::string lines;
    for (int i = 0; i < 300; i++, sent++)
      lines += "{\"order_id\":" + std::to_string(sent) + ",\"status\":\"placed\"}\n";
    f.produce("orders", lines, "order_id");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const std::string bronze_count = "SELECT count(*) FROM bronze_orders";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count_of(f, bronze_count) < sent && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (auto& w : workers) w->send_signal(SIGTERM);
  for (auto& w : workers) {
    CommandResult ended = w->wait(60000);
    EXPECT_EQ(ended.err.find("failed"), std::string::npos) << ended.err;
  }
  EXPECT_EQ(count_of(f, bronze_count), sent) << "the workers did not catch up";
  EXPECT_EQ(count_of(f, "SELECT count(*) FROM (SELECT partition, \"offset\" FROM bronze_orders GROUP BY ALL "
                        "HAVING count(*) > 1)"),
            0)
      << "an offset is in bronze twice";
  EXPECT_EQ(count_of(f, "SELECT count(DISTINCT order_id) FROM bronze_orders"), sent);

  // The data files no commit names: one per commit built again (each batch here is one file; the
  // continuous runs compact, so some named files are no longer live).
  const std::string bronze = store.url("workers/bronze_orders");
  delta::configure_table_stores({store.settings(), f.dir() + "/test-cache", 1 << 20});
  delta::Snapshot snapshot = delta::load_snapshot(bronze);
  std::set<std::string> named;  // by any commit: compaction replaced some since
  for (const auto& commit : delta::read_commits(bronze, 0, snapshot.version))
    for (const auto& file : commit.adds) named.insert(file.path);
  int64_t data_files = 0, unnamed = 0;
  for (const auto& object : storage::open_store(bronze, store.settings())->list("")) {
    if (object.key.rfind("_delta_log/", 0) == 0 || object.key.size() < 8 ||
        object.key.substr(object.key.size() - 8) != ".parquet")
      continue;
    data_files++;
    if (!named.count(object.key)) unnamed++;
  }
  std::printf("workers on Azurite: %lld commits, %lld data files, %lld named by no commit\n",
              static_cast<long long>(snapshot.version + 1), static_cast<long long>(data_files),
              static_cast<long long>(unnamed));
  // Measured (58 commits): 3 to 5 built twice, on a quiet machine and beside the table suite; 31
  // and 39 when a worker kept trusting the end after conflicts with the other. (With the 200 ms
  // trust of a service these were 3 to 6 against 13 to 15, and a fresh-clone run under load built
  // 12 twice.) On a loaded machine the batches are larger: 24 commits once; fewer than 10 would
  // tell nothing.
  EXPECT_GE(snapshot.version, 10) << "too few commits to tell";
  EXPECT_LE(unnamed, 2 + (snapshot.version + 1) / 3) << "more than one commit in three was built twice";
}

// A trusted time that is no number of milliseconds stops the service as it starts, with an error
// that names the variable and says what to give, before any batch.
TEST(WorkersOnStore, ALogEndTrustThatIsNoNumberIsRefusedByName) {
  StoreEmulator store(Emulator::Azurite);
  PipelineFixture f(workers_on_store_pipeline(store), {{"orders", 6}});
  f.produce("orders", "{\"order_id\":1,\"status\":\"placed\"}\n", "order_id");
  BackgroundProcess service({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "100ms"}, f.dir(),
                            {"LAKESTREAM_LOG_END_TRUST_MS=soon"});
  CommandResult ended = service.wait(60000);
  EXPECT_NE(ended.exit_code, 0);
  EXPECT_NE(ended.err.find("LAKESTREAM_LOG_END_TRUST_MS is \"soon\": give a whole number of milliseconds"),
            std::string::npos)
      << ended.err;
  EXPECT_EQ(count_of(f, "SELECT count(*) FROM bronze_orders"), -1) << "a batch ran with the bad value";
}

}  // namespace
}  // namespace lakestream::testing
