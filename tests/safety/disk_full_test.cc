// A full disk fails a run cleanly: an error that says so, no crash, the table still readable at
// its last version; with room again the next run loads everything, once. The lake lives on a
// small tmpfs (the test is skipped where mounting is not allowed).
#include <sys/mount.h>

#include <filesystem>
#include <random>

#include "safety/safety_pipeline.h"

namespace lakestream::testing {
namespace {

// Events whose filler does not compress, so that the data files are about as big as the events.
std::string incompressible_events(int first, int n) {
  std::mt19937 rng(first);
  std::string lines;
  for (int i = first; i < first + n; i++) {
    std::string pad(2000, ' ');
    for (auto& c : pad) c = static_cast<char>('a' + rng() % 26);
    lines += "{\"order_id\":" + std::to_string(i) + ",\"status\":\"placed\",\"amount\":1.50,\"note\":\"" + pad + "\"}\n";
  }
  return lines;
}

class SmallDisk {
 public:
  explicit SmallDisk(const std::string& path) : path_(path) {
    std::filesystem::create_directories(path);
    mounted_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, "size=1m") == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  bool grow() { return ::mount("tmpfs", path_.c_str(), "tmpfs", MS_REMOUNT, "size=64m") == 0; }

 private:
  std::string path_;
  bool mounted_ = false;
};

TEST(DiskFull, ARunFailsCleanlyAndTheTableStaysReadable) {
  std::string toml = safety_pipeline();
  toml.replace(toml.find("amount = \"decimal(18,2)\""), 24, "amount = \"decimal(18,2)\"\nnote = \"string\"");
  PipelineFixture f(toml, {{"orders", 1}});
  SmallDisk disk(f.dir() + "/lake");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here";

  f.produce("orders", incompressible_events(0, 20), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  f.produce("orders", incompressible_events(20, 1000), "order_id");  // about 2 MB: more than the disk holds
  CommandResult full = f.lakestream("run");
  EXPECT_EQ(full.exit_code, 1) << "killed by signal " << full.signal;
  EXPECT_TRUE(contains(full.err, "No space left on device")) << full.err;
  EXPECT_EQ(f.query("select count(*) from bronze_orders"), "count_star()\n20\n") << "readable at its last version";

  ASSERT_TRUE(disk.grow());
  CommandResult again = f.lakestream("run");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(f.query("select count(*), count(distinct order_id) from bronze_orders"),
            "count_star(),count(DISTINCT order_id)\n1020,1020\n");
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

}  // namespace
}  // namespace lakestream::testing
