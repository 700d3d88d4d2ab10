// Change data capture into silver survives kill -9 anywhere: a crash at every point of the
// commit protocols of the latest stream with deletes (its deleted table, then silver), and runs
// killed at random moments; after the reruns silver is the replay of the change log and check
// finds nothing wrong. The same again with silver merged on read (deletion vectors).
#include <functional>
#include <random>

#include "support/change_log.h"
#include "support/crash_points.h"
#include "support/pipeline_fixture.h"
#include "table/delta_table.h"

namespace lakestream::testing {
namespace {

std::string pipeline_in_batches() {
  std::string toml = change_log_pipeline();
  // Several batches per run, so that a kill can land between two of them.
  toml.replace(toml.find("envelope"), 0, "max_offsets_per_trigger = 15\n");
  return toml;
}

// Silver merged on read: replaced and deleted rows marked in deletion vectors.
std::string with_deletion_vectors(std::string toml) {
  toml.replace(toml.find("entity = \"customer\""), 0, "deletion_vectors = true\n");
  return toml;
}

// The adds with a deletion vector in silver's history: the merge-on-read path ran (with 15 keys
// most files soon pass a quarter deleted and are purged, so the table at the end may have none).
int files_with_vectors(PipelineFixture& f) {
  std::string table = f.dir() + "/lake/customers";
  int n = 0;
  for (const auto& commit : delta::read_commits(table, 0, delta::latest_version(table)))
    for (const auto& file : commit.adds) n += file.deletion_vector ? 1 : 0;
  return n;
}

// Sends `sent` in `sends` parts, calling `after_send` with each part after sending it.
void play(PipelineFixture& f, const std::vector<Change>& sent, int sends,
          const std::function<void(int, const std::vector<Change>&)>& after_send) {
  size_t per_send = (sent.size() + static_cast<size_t>(sends) - 1) / static_cast<size_t>(sends);
  for (int i = 0; i < sends; i++) {
    std::vector<Change> part;
    std::string lines;
    for (size_t at = static_cast<size_t>(i) * per_send; at < std::min(sent.size(), (static_cast<size_t>(i) + 1) * per_send); at++) {
      part.push_back(sent[at]);
      lines += change_event_json(sent[at]) + "\n";
    }
    f.produce("customers", lines);
    f.produce_empty("customers");  // a tombstone in every send
    after_send(i, part);
  }
}

void expect_replayed(PipelineFixture& f, const std::vector<Change>& log) {
  EXPECT_EQ(f.query(kSilverCustomersSql), replayed(log));
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      customers has the newest state of all"), std::string::npos) << check.out;
}

// With `retention`, silver has deletes_retention (in lsn units) and is compared with the model of
// its rules over the same batches (a send each) instead of the replay.
void crash_at_every_point(const std::function<std::string(std::string)>& shape, bool vectors, int64_t retention = 0) {
  // The points the latest stream passes: planning once per batch; then each commit's points
  // twice, the deleted table's first (hit 1), silver's second (hit 2), with
  // after_deleted_commit between them.
  std::vector<std::pair<std::string, int>> crashes = {{"after_plan", 1}, {"mid_checkpoint_file", 1},
                                                      {"after_deleted_commit", 1}};
  for (const char* point : {"after_data_files", "mid_commit_file", "before_delta_commit", "after_delta_commit"})
    for (int hit : {1, 2}) crashes.push_back({point, hit});
  std::vector<Change> log = generated_change_log(21, 260, 15);
  std::vector<Change> sent = delivered(log, 8, 21);
  std::string toml = shape(change_log_pipeline());
  if (retention > 0) toml += "deletes_retention = " + std::to_string(retention) + "\n";
  PipelineFixture f(toml, {{"customers", 3}});
  RetentionModel model;
  model.retention = retention;
  int killed = 0;
  play(f, sent, static_cast<int>(crashes.size()), [&](int send, const std::vector<Change>& part) {
    model.batch(part);
    ASSERT_EQ(f.lakestream("run", {"read_customers"}).exit_code, 0);
    const auto& [point, hit] = crashes[static_cast<size_t>(send)];
    CommandResult crashed = f.lakestream("run", {"customers"}, {"LAKESTREAM_FAULT=" + point + ":" + std::to_string(hit)});
    EXPECT_TRUE(crashed.exit_code == 0 || crashed.signal == SIGKILL) << point << ": " << crashed.out << crashed.err;
    killed += crashed.signal == SIGKILL;
    CommandResult rerun = f.lakestream("run");
    ASSERT_EQ(rerun.exit_code, 0) << point << ": " << rerun.out << rerun.err;
  });
  EXPECT_EQ(killed, static_cast<int>(crashes.size())) << "every point should have killed a run";
  if (retention > 0) {
    EXPECT_EQ(f.query(kSilverCustomersSql), model.silver_csv());
    EXPECT_EQ(f.query("select id from customers_deleted order by id"), model.deleted_ids());
    CommandResult check = f.lakestream("check");
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  } else {
    expect_replayed(f, log);
  }
  if (vectors) {
    EXPECT_GT(files_with_vectors(f), 0);
  }
}

void random_kills(const std::function<std::string(std::string)>& shape, bool vectors) {
  const int kills = std::max(10, std::atoi(std::getenv("LAKESTREAM_RANDOM_KILLS") ? std::getenv("LAKESTREAM_RANDOM_KILLS") : "0") / 2);
  std::vector<Change> log = generated_change_log(33, kills * 60, 20);
  std::vector<Change> sent = delivered(log, kills, 33);
  PipelineFixture f(shape(pipeline_in_batches()), {{"customers", 3}});
  std::mt19937 rng(33);
  // A run over one send (4 batches of each stream) takes some hundred milliseconds.
  std::uniform_int_distribution<int> delay_ms(0, 250);
  int killed = 0;
  play(f, sent, kills, [&](int, const std::vector<Change>&) {
    killed += f.lakestream_killed_after(delay_ms(rng), "run").signal == SIGKILL;
    CommandResult rerun = f.lakestream("run");
    ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
  });
  ::testing::Test::RecordProperty("killed", killed);
  EXPECT_GT(killed, kills / 3) << "most runs should have been killed mid-way";
  expect_replayed(f, log);
  if (vectors) {
    EXPECT_GT(files_with_vectors(f), 0);
  }
}

std::string as_it_is(std::string toml) { return toml; }

TEST(ChangeEventKills, ACrashAtEveryPointOfTheLatestStreamWithDeletesChangesNothing) { crash_at_every_point(as_it_is, false); }

TEST(ChangeEventKills, ACrashAtEveryPointWhileForgettingDeletesForgetsWhatAnUncrashedRunWould) {
  // 260 changes 10 lsn apart in 11 sends: a retention of 300 forgets deletes in most batches.
  crash_at_every_point(as_it_is, false, 300);
}

TEST(ChangeEventKills, RandomKillsChangeNothing) { random_kills(as_it_is, false); }

TEST(ChangeEventKills, ACrashAtEveryPointOfAStreamWritingDeletionVectorsChangesNothing) {
  crash_at_every_point(with_deletion_vectors, true);
}

TEST(ChangeEventKills, RandomKillsOfAStreamWritingDeletionVectorsChangeNothing) { random_kills(with_deletion_vectors, true); }

}  // namespace
}  // namespace lakestream::testing
