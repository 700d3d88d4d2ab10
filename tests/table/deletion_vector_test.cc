// Deletion vectors read as PROTOCOL.md lays them out, proven three ways: the protocol's own
// examples, the vectors Spark wrote into delta-kernel-rs's test tables, and generated sets of rows
// coded both ways by roaring-wasm (CRoaring as WebAssembly, run containers included), which
// shares no code with ours. A damaged vector is refused, never read as fewer deleted rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "sql/duckdb.h"
#include "support/error_of.h"
#include "support/test_support.h"
#include "table/deletion_vector.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

std::string small_table() { return testing::test_data_dir() + "/delta-kernel/table-with-dv-small"; }

DeletionVector inline_vector(const std::string& text, int64_t size, int64_t cardinality) {
  return DeletionVector{"i", text, std::nullopt, size, cardinality};
}

TEST(Z85, CodesTheSpecExample) {
  // ZeroMQ's RFC 32: these 8 bytes are "HelloWorld".
  std::string bytes = "\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B";
  EXPECT_EQ(z85_encode(bytes), "HelloWorld");
  EXPECT_EQ(z85_decode("HelloWorld"), bytes);
  EXPECT_NE(testing::error_of([] { z85_decode("Hello Worl"); }).find("not a Z85 character"), std::string::npos);
  EXPECT_NE(testing::error_of([] { z85_decode("Hell"); }).find("not a multiple of 5"), std::string::npos);
}

TEST(DeletionVectorRead, TheProtocolsInlineExample) {
  auto rows = deleted_rows("/nowhere", inline_vector("^Bg9^0rr910000000000iXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", 44, 6));
  EXPECT_EQ(rows, (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
}

TEST(DeletionVectorRead, FileNamesFromTheirUuidAndPrefix) {
  EXPECT_EQ(deletion_vector_file({"u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6}),
            "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  EXPECT_EQ(deletion_vector_file({"u", "vBn[lx{q8@P<9BNH/isA", 1, 36, 2}),
            "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin");
  EXPECT_EQ(deletion_vector_file(inline_vector("HelloWorld", 8, 0)), "");
  EXPECT_NE(testing::error_of([] { deletion_vector_file({"u", "short", 1, 36, 2}); }).find("shorter than the 20"),
            std::string::npos);
}

// delta-kernel-rs's table-with-dv-small: Spark ran DELETE ... WHERE value IN (0, 9) on a file of
// values 0..9, writing a vector instead of a new file.
TEST(DeletionVectorRead, TheRowsSparksDeleteMarked) {
  Snapshot snapshot = load_snapshot(small_table());
  ASSERT_EQ(snapshot.files.size(), 1u);
  ASSERT_TRUE(snapshot.files[0].deletion_vector);
  EXPECT_EQ(deleted_rows(snapshot.table, *snapshot.files[0].deletion_vector), (std::vector<uint64_t>{0, 9}));
  EXPECT_EQ(snapshot.files[0].live_rows(), 8);

  auto commit = read_commits(small_table(), 1, 1).at(0);
  ASSERT_NE(commit.commit_info.dump().find("IN (0, 9)"), std::string::npos) << "the DELETE this test knows";
  sql::Database db;
  sql::Connection con(db);
  std::string raw = "read_parquet(" + sql::quote_literal(small_table() + "/" + snapshot.files[0].path) + ")";
  std::string kept = "SELECT value FROM " + raw + " WHERE value NOT IN (0, 9)";
  std::string read = "SELECT value FROM (" + scan_sql(snapshot) + ")";
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + read + ")"), 8);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + read + " EXCEPT ALL " + kept + ")"), 0);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + kept + " EXCEPT ALL " + read + ")"), 0);
  // The version before the DELETE has all ten.
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + scan_sql(load_snapshot(small_table(), 0)) + ")"), 10);
}

class DamagedVector : public ::testing::Test {
 protected:
  void SetUp() override { fs::copy(small_table(), table, fs::copy_options::recursive); }
  DeletionVector vector() { return *load_snapshot(table).files.at(0).deletion_vector; }
  std::string file() { return table + "/" + deletion_vector_file(vector()); }

  testing::TempDir dir;
  std::string table = dir / "table";
};

TEST_F(DamagedVector, FailsItsChecksum) {
  std::string bytes = read_file(file());
  bytes[1 + 4 + 20] ^= 0x01;  // a byte of the serialized vector
  write_file_atomic(file(), bytes);
  std::string message = testing::error_of([&] { deleted_rows(table, vector()); });
  EXPECT_NE(message.find("fails its checksum"), std::string::npos) << message;
  EXPECT_NE(message.find(deletion_vector_file(vector())), std::string::npos) << message;
}

TEST_F(DamagedVector, IsMissing) {
  fs::remove(file());
  std::string message = testing::error_of([&] { load_snapshot(table); sql::Database db; sql::Connection con(db);
                                                 con.query(scan_sql(load_snapshot(table))); });
  EXPECT_NE(message.find("is missing"), std::string::npos) << message;
}

TEST_F(DamagedVector, DisagreesWithTheLogsCardinality) {
  DeletionVector wrong = vector();
  wrong.cardinality = 3;
  std::string message = testing::error_of([&] { deleted_rows(table, wrong); });
  EXPECT_NE(message.find("deletes 2 rows where the log says 3"), std::string::npos) << message;
}

TEST(DeletionVectorRead, RefusesBytesThatAreNotAVector) {
  std::string message = testing::error_of([] { decode_row_bitmap(std::string(12, '\0'), "test"); });
  EXPECT_NE(message.find("magic number"), std::string::npos) << message;
  std::string cut = encode_row_bitmap({1, 2, 3});
  cut.pop_back();
  message = testing::error_of([&] { decode_row_bitmap(cut, "test"); });
  EXPECT_NE(message.find("damaged"), std::string::npos) << message;
}

// Sets of rows of every shape a vector takes: empty, sparse (array containers), dense (bitset
// containers, over 4096 rows under one 16-bit key), runs, and rows past 2^32 (more bitmaps).
std::vector<std::vector<uint64_t>> generated_row_sets(uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::vector<uint64_t>> sets;
  auto add = [&](std::set<uint64_t> rows) { sets.emplace_back(rows.begin(), rows.end()); };
  add({});
  add({0});
  for (int i = 0; i < 6; i++) {
    std::set<uint64_t> sparse, dense, runs, wide, mixed;
    for (int n = 0; n < 300; n++) sparse.insert(random() % 2000000);
    for (int n = 0; n < 20000; n++) dense.insert(random() % 65536 + 65536 * (random() % 3));
    for (int r = 0; r < 20; r++) {
      uint64_t start = random() % 1000000, length = random() % 5000;
      for (uint64_t v = start; v <= start + length; v++) runs.insert(v);
    }
    for (int n = 0; n < 200; n++) wide.insert((random() % 4) << 32 | (random() % 100000));
    mixed.insert(sparse.begin(), sparse.end());
    mixed.insert(runs.begin(), runs.end());
    for (uint64_t v = 4294967290ull; v < 4294967300ull; v++) mixed.insert(v);  // across the 32-bit boundary
    for (auto* set : {&sparse, &dense, &runs, &wide, &mixed}) add(*set);
  }
  return sets;
}

// Runs tests/table/roaring_vectors.js in `mode` on `input`; returns its output.
nlohmann::json roaring_wasm(const std::string& mode, const nlohmann::json& input, const testing::TempDir& dir) {
  testing::write_text(dir / (mode + ".in.json"), input.dump());
  std::string command = "NODE_PATH=" + testing::source_dir() + "/.deps/npm/node_modules timeout 120 node " +
                        testing::source_dir() + "/tests/table/roaring_vectors.js " + mode + " " + dir / (mode + ".in.json") +
                        " " + dir / (mode + ".out.json") + " 2> " + dir / (mode + ".err");
  int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << (path_exists(dir / (mode + ".err")) ? read_file(dir / (mode + ".err")) : "");
  return nlohmann::json::parse(read_file(dir / (mode + ".out.json")));
}

std::string hex_of(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 0xF]);
  }
  return hex;
}

std::string bytes_of(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

TEST(DeletionVectorCoding, AgreesWithRoaringWasmBothWays) {
  testing::TempDir dir;
  for (uint32_t seed : {1u, 2u, 3u}) {
    auto sets = generated_row_sets(seed);
    nlohmann::json as_text = nlohmann::json::array();
    for (const auto& rows : sets) {
      nlohmann::json list = nlohmann::json::array();
      for (uint64_t row : rows) list.push_back(std::to_string(row));
      as_text.push_back(list);
    }
    // Theirs, run-optimized, read by ours.
    auto encoded = roaring_wasm("encode", as_text, dir);
    ASSERT_EQ(encoded.size(), sets.size());
    for (size_t i = 0; i < sets.size(); i++)
      EXPECT_EQ(decode_row_bitmap(bytes_of(encoded[i].get<std::string>()), "generated"), sets[i])
          << "seed " << seed << ", set " << i;
    // Ours, read by theirs.
    nlohmann::json ours = nlohmann::json::array();
    for (const auto& rows : sets) ours.push_back(hex_of(encode_row_bitmap(rows)));
    EXPECT_EQ(roaring_wasm("decode", ours, dir), as_text) << "seed " << seed;
  }
}

TEST(DeletionVectorCoding, InlineVectorsRoundTripThroughZ85) {
  for (const auto& rows : generated_row_sets(7)) {
    std::string bytes = encode_row_bitmap(rows);
    DeletionVector vector = inline_vector(z85_encode(bytes), static_cast<int64_t>(bytes.size()),
                                          static_cast<int64_t>(rows.size()));
    EXPECT_EQ(deleted_rows("/nowhere", vector), rows);
  }
}

}  // namespace
}  // namespace lakestream::delta
