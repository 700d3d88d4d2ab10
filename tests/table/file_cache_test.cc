// The cache of remote tables' files: a copy is fetched once, a copy of the wrong size (torn by a
// crash) is fetched again, a download of another size than the log's is refused, and two
// processes sharing the cache keep it to its cap by evicting the least recently used copies
// that neither is reading now.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "table/file_cache.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using testing::TempDir;

int64_t bytes_in(const std::string& dir) {
  int64_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/files")) total += entry.file_size();
  return total;
}

TEST(FileCache, ACopyIsFetchedOnceAndATornOneAgain) {
  TempDir dir;
  FileCache cache(dir.path(), 1 << 20);
  int downloads = 0;
  auto download = [&] {
    downloads++;
    return std::string(100, 'x');
  };
  std::string path = cache.copy_of("s3://b/t/part-1.parquet", ".parquet", 100, download);
  EXPECT_EQ(cache.copy_of("s3://b/t/part-1.parquet", ".parquet", 100, download), path);
  EXPECT_EQ(downloads, 1);
  EXPECT_EQ(read_file(path), std::string(100, 'x'));
  write_file_atomic(path, "torn");  // what a power loss could leave
  EXPECT_EQ(cache.copy_of("s3://b/t/part-1.parquet", ".parquet", 100, download), path);
  EXPECT_EQ(downloads, 2);
  EXPECT_EQ(read_file(path).size(), 100u);
}

TEST(FileCache, ADownloadOfAnotherSizeThanTheLogsIsRefused) {
  TempDir dir;
  FileCache cache(dir.path(), 1 << 20);
  EXPECT_THROW(cache.copy_of("s3://b/t/part-2.parquet", ".parquet", 100, [] { return std::string(99, 'x'); }), Error);
}

TEST(FileCache, TheLeastRecentlyUsedCopiesNobodyReadsGoOverTheCap) {
  TempDir dir;
  auto bytes = [](int n) { return [n] { return std::string(n, 'x'); }; };
  {
    FileCache earlier(dir.path(), 1000);  // an earlier command
    for (int i = 0; i < 4; i++) earlier.copy_of("s3://b/t/old-" + std::to_string(i), ".parquet", 400, bytes(400));
    EXPECT_EQ(bytes_in(dir.path()), 1600);  // all read by this command: kept while it may use them
  }
  FileCache now(dir.path(), 1000);
  now.copy_of("s3://b/t/new", ".parquet", 400, bytes(400));
  EXPECT_LE(bytes_in(dir.path()), 1000);
  EXPECT_EQ(now.copy_of("s3://b/t/new", ".parquet", 400, [] { return std::string(); }).empty(), false);
}

// Adding a copy does not list the cache's files while this process's adds keep it under the cap:
// a service adds a copy per data file, and a listing per add made its batches slower as the cache
// filled. Past the cap it lists, and evicts down to 90% of it (what this process handed out aside).
TEST(FileCache, AddsListTheCopiesOnlyWhenTheyMayPassTheCap) {
  TempDir dir;
  FileCache cache(dir.path(), 100000);
  for (int i = 0; i < 200; i++)
    cache.copy_of("s3://b/t/part-" + std::to_string(i), ".parquet", 100, [] { return std::string(100, 'x'); });
  EXPECT_LE(cache.scans(), 2) << "a listing per add";
  EXPECT_EQ(bytes_in(dir.path()), 20000);
  {
    FileCache other(dir.path(), 100000);  // another process, whose copies nobody here reads
    for (int i = 0; i < 900; i++)
      other.copy_of("s3://b/t/other-" + std::to_string(i), ".parquet", 100, [] { return std::string(100, 'x'); });
  }
  EXPECT_LE(bytes_in(dir.path()), 100000);  // it listed when its adds passed the cap, and evicted
  FileCache next(dir.path(), 100000);
  for (int i = 0; i < 2; i++)  // the second passes the cap
    next.copy_of("s3://b/t/last-" + std::to_string(i), ".parquet", 100, [] { return std::string(100, 'x'); });
  EXPECT_EQ(bytes_in(dir.path()), 90000);
}

}  // namespace
}  // namespace lakestream::delta
