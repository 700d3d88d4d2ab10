// Checkpoints with sidecars (delta.checkpointPolicy = v2; table/checkpoint_sidecars.h): over
// generated histories of appends, deletes, compactions and files added again after their removal,
// every checkpoint holds exactly the files and tombstones of a model of the history that shares no
// code with the log (each path once, none both added and removed), reads back alone, and keeps a
// few tombstone sidecars named again from one checkpoint to the next; the log cleanup deletes the
// sidecars no kept checkpoint names, and only those.
#include <gtest/gtest.h>
#include <sys/time.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "support/other_readers.h"
#include "table/log_files.h"
#include "table/path_encoding.h"
#include "table/vacuum.h"
#include "table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;
using fixtures::write_ids;

class CheckpointSidecars : public fixtures::TableTest {
 protected:
  // What the history should leave: the live files and the removed ones not added again.
  struct Model {
    std::map<std::string, AddFile> live;
    std::map<std::string, AddFile> removed;
  };

  void create(const std::string& at, Model& model) {
    Commit commit(load_snapshot(at));
    Metadata metadata = fixtures::ids_metadata();
    metadata.configuration["delta.checkpointPolicy"] = "v2";
    metadata.configuration["delta.checkpointInterval"] = "3";
    commit.set_metadata(metadata);
    AddFile file = write_ids(con, at, "0");
    commit.add(file);
    commit.publish();
    model.live[file.path] = file;
  }

  // One generated commit: appends, deletes, a compaction, or a file added again (as a RESTORE).
  void commit_one(const std::string& at, Model& model, std::mt19937& rng, int64_t& next_id) {
    Commit commit(load_snapshot(at));
    auto pick = [&](std::map<std::string, AddFile>& from) {
      auto it = from.begin();
      std::advance(it, std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng));
      return it->second;
    };
    auto append = [&] {
      AddFile file = write_ids(con, at, std::to_string(next_id++));
      commit.add(file);
      model.live[file.path] = file;
    };
    auto remove_one = [&] {
      AddFile file = pick(model.live);
      commit.remove(file);
      model.live.erase(file.path);
      model.removed[file.path] = file;
    };
    int op = std::uniform_int_distribution<int>(0, 9)(rng);
    if (op <= 3 || model.live.size() < 3) {
      for (int i = std::uniform_int_distribution<int>(1, 2)(rng); i > 0; i--) append();
    } else if (op <= 6) {
      remove_one();
    } else if (op <= 8) {
      for (int i = std::uniform_int_distribution<int>(2, 3)(rng); i > 0 && !model.live.empty(); i--) remove_one();
      append();
    } else if (!model.removed.empty()) {
      AddFile file = pick(model.removed);
      commit.add(file);
      model.removed.erase(file.path);
      model.live[file.path] = file;
    } else {
      append();
    }
    commit.publish();
  }

  std::string checkpoint_of(const std::string& at, int64_t version) {
    char name[64];
    std::snprintf(name, sizeof name, "/_delta_log/%020lld.checkpoint.parquet", static_cast<long long>(version));
    return at + name;
  }

  std::vector<std::string> sidecars_of(const std::string& checkpoint, const std::string& content = "") {
    std::string where = content.empty() ? "" : " AND map_extract(sidecar.tags, 'lakestream.content')[1] = " + sql::quote_literal(content);
    sql::Rows rows = con.query("SELECT sidecar.path AS p FROM read_parquet(" + sql::quote_literal(checkpoint) +
                               ") WHERE sidecar IS NOT NULL" + where);
    std::vector<std::string> names;
    for (size_t r = 0; r < rows.size(); r++) names.push_back(rows.text(r, "p"));
    return names;
  }

  // The paths of the `column` actions (add or remove) of the checkpoint's sidecars, each once.
  std::multiset<std::string> paths_in(const std::string& at, const std::string& checkpoint, const std::string& column) {
    std::string list;
    for (const auto& name : sidecars_of(checkpoint))
      list += (list.empty() ? "" : ", ") + sql::quote_literal(at + "/_delta_log/_sidecars/" + name);
    sql::Rows rows = con.query("SELECT " + column + ".path AS p FROM read_parquet([" + list +
                               "], union_by_name = true) WHERE " + column + " IS NOT NULL");
    std::multiset<std::string> paths;
    for (size_t r = 0; r < rows.size(); r++) paths.insert(url_decode_path(rows.text(r, "p")));
    return paths;
  }

  void expect_checkpoint_is_model(const std::string& at, int64_t version, const Model& model) {
    const std::string checkpoint = checkpoint_of(at, version);
    ASSERT_TRUE(path_exists(checkpoint)) << version;
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM read_parquet(" + sql::quote_literal(checkpoint) +
                             ") WHERE \"add\" IS NOT NULL OR remove IS NOT NULL"), 0)
        << "every file action is in a sidecar";
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM read_parquet(" + sql::quote_literal(checkpoint) +
                             ") WHERE checkpointMetadata.version = " + std::to_string(version)), 1);
    std::multiset<std::string> adds = paths_in(at, checkpoint, "\"add\"");
    std::multiset<std::string> removes = paths_in(at, checkpoint, "remove");
    std::multiset<std::string> live, removed;
    for (const auto& [path, file] : model.live) live.insert(path);
    for (const auto& [path, file] : model.removed) removed.insert(path);
    EXPECT_EQ(adds, live) << "version " << version;
    EXPECT_EQ(removes, removed) << "version " << version;
    // A binary counter's carries keep about log2 of the tombstones' count apart.
    size_t tombstone_sidecars = sidecars_of(checkpoint, "tombstones").size();
    EXPECT_LE(tombstone_sidecars, static_cast<size_t>(std::log2(removed.size() + 1)) + 2) << "version " << version;
  }

  // Ages every sidecar of the table two days, past the day the cleanup leaves them.
  void age_sidecars(const std::string& at) {
    struct timeval old[2];
    gettimeofday(&old[0], nullptr);
    old[0].tv_sec -= 2 * 24 * 3600;
    old[1] = old[0];
    for (const auto& entry : fs::directory_iterator(at + "/_delta_log/_sidecars"))
      utimes(entry.path().c_str(), old);
  }

  std::set<std::string> sidecar_files(const std::string& at) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(at + "/_delta_log/_sidecars")) names.insert(entry.path().filename());
    return names;
  }
};

TEST_F(CheckpointSidecars, EveryCheckpointHoldsTheFilesAndTombstonesOfTheHistoryOverGeneratedHistories) {
  for (unsigned seed = 1; seed <= 8; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string at = dir / ("t" + std::to_string(seed));
    std::mt19937 rng(seed);
    Model model;
    create(at, model);
    int64_t next_id = 1;
    for (int64_t version = 1; version <= 45; version++) {
      commit_one(at, model, rng, next_id);
      if (version % 3 == 0) expect_checkpoint_is_model(at, version, model);
      if (::testing::Test::HasFailure()) return;
    }
    // Read from its newest checkpoint alone, as Spark's rows would be.
    for (int64_t v = 0; v <= 45; v++) fs::remove(commit_file_path(at, v));
    std::set<std::string> read;
    for (const auto& file : load_snapshot(at).files) read.insert(file.path);
    std::set<std::string> live;
    for (const auto& [path, file] : model.live) live.insert(path);
    EXPECT_EQ(read, live);
  }
}

TEST_F(CheckpointSidecars, LaterCheckpointsNameTheTombstoneSidecarsAgainRatherThanWriteThemAnew) {
  // A compaction's shape: each commit adds a file and removes one, 3 tombstones a checkpoint;
  // the ninth checkpoint (27) holds sidecars of 24 and 3, the tenth (30) of 24 and 6.
  Model model;
  create(table, model);
  int64_t next_id = 1;
  for (int64_t version = 1; version <= 30; version++) {
    Commit commit(load_snapshot(table));
    AddFile file = write_ids(con, table, std::to_string(next_id++));
    commit.add(file);
    AddFile gone = model.live.begin()->second;
    commit.remove(gone);
    commit.publish();
    model.live.erase(gone.path);
    model.removed[gone.path] = gone;
    model.live[file.path] = file;
  }
  std::vector<std::string> at_27 = sidecars_of(checkpoint_of(table, 27), "tombstones");
  std::vector<std::string> at_30 = sidecars_of(checkpoint_of(table, 30), "tombstones");
  ASSERT_GE(at_27.size(), 2u);
  // The older sidecars of 27 are named again by 30: their tombstones are not written twice.
  std::set<std::string> again;
  for (const auto& name : at_30)
    if (std::find(at_27.begin(), at_27.end(), name) != at_27.end()) again.insert(name);
  EXPECT_FALSE(again.empty());
  expect_checkpoint_is_model(table, 30, model);
  testing::expect_other_readers_accept(dir.path());
}

TEST_F(CheckpointSidecars, TheLogCleanupDeletesTheSidecarsNoKeptCheckpointNamesAndOnlyThose) {
  Model model;
  create(table, model);
  std::mt19937 rng(3);
  int64_t next_id = 1;
  for (int64_t version = 1; version <= 30; version++) commit_one(table, model, rng, next_id);
  // A sidecar a killed checkpoint left, made for a version the cleanup keeps: it stays.
  std::string orphan = table + "/_delta_log/_sidecars/00000000000000000031.aaaaaaaa-0000-0000-0000-000000000000.parquet";
  fs::copy_file(table + "/_delta_log/_sidecars/" + sidecars_of(checkpoint_of(table, 30), "files").front(), orphan);
  std::set<std::string> before = sidecar_files(table);
  age_sidecars(table);

  // The log kept from the checkpoint of 30 on.
  VacuumPlan plan = plan_vacuum(table, 0, std::nullopt, true, VacuumScope::LogOnly);
  run_vacuum(plan);
  std::set<std::string> named;
  for (const auto& name : sidecars_of(checkpoint_of(table, 30))) named.insert(name);
  named.insert(fs::path(orphan).filename());
  EXPECT_EQ(sidecar_files(table), named);
  EXPECT_LT(named.size(), before.size()) << "the sidecars of older checkpoints alone are gone";
  std::set<std::string> read;
  for (const auto& file : load_snapshot(table).files) read.insert(file.path);
  std::set<std::string> live;
  for (const auto& [path, file] : model.live) live.insert(path);
  EXPECT_EQ(read, live);

  // Younger than a day, a sidecar stays though no checkpoint names it (a checkpoint being written
  // names its sidecars only once published).
  std::string young = table + "/_delta_log/_sidecars/00000000000000000010.bbbbbbbb-0000-0000-0000-000000000000.parquet";
  fs::copy_file(orphan, young);
  for (int64_t version = 31; version <= 33; version++) commit_one(table, model, rng, next_id);
  run_vacuum(plan_vacuum(table, 0, std::nullopt, true, VacuumScope::LogOnly));
  EXPECT_TRUE(path_exists(young));
  for (const auto& name : sidecars_of(checkpoint_of(table, 33)))
    EXPECT_TRUE(path_exists(table + "/_delta_log/_sidecars/" + name)) << name;
}

}  // namespace
}  // namespace lakestream::delta
