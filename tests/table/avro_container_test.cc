// The Avro writer of the Iceberg manifests, against the Avro specification's own examples (the
// zig-zag longs and the string of its "Binary Encoding" section), and whole container files
// decoded by avsc (Avro for JavaScript, which shares no code with ours) over generated records.
#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "support/shell.h"
#include "support/test_support.h"
#include "table/avro_container.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using testing::hex_bytes;

std::string encoded_long(int64_t value) {
  AvroEncoder out;
  out.write_long(value);
  return hex_bytes(out.bytes());
}

TEST(AvroEncoder, LongsAndStringsAreTheSpecificationsExamples) {
  EXPECT_EQ(encoded_long(0), "00");
  EXPECT_EQ(encoded_long(-1), "01");
  EXPECT_EQ(encoded_long(1), "02");
  EXPECT_EQ(encoded_long(-2), "03");
  EXPECT_EQ(encoded_long(2), "04");
  EXPECT_EQ(encoded_long(-64), "7f");
  EXPECT_EQ(encoded_long(64), "8001");
  EXPECT_EQ(encoded_long(INT64_MIN), "ffffffffffffffffff01");
  AvroEncoder text;
  text.write_string("foo");
  EXPECT_EQ(hex_bytes(text.bytes()), "06666f6f");
}

// Records {id: long, name: string, tags: ["null", {"type": "array", "items": {"type": "record",
// key: int, value: bytes}}]} written by the encoder, read back by avsc: every value as written.
TEST(AvroContainer, AvscReadsGeneratedRecordsAsWritten) {
  const std::string schema = R"({"type":"record","name":"entry","fields":[
    {"name":"id","type":"long","field-id":1},
    {"name":"name","type":"string","field-id":2},
    {"name":"tags","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k3_v4",
      "fields":[{"name":"key","type":"int","field-id":3},{"name":"value","type":"bytes","field-id":4}]}}],"default":null,"field-id":5}]})";
  std::mt19937_64 random(7);
  nlohmann::json expected = nlohmann::json::array();
  std::vector<std::string> records;
  for (int i = 0; i < 200; i++) {
    AvroEncoder out;
    // Within 2^52 either way: avsc reads a long as a JavaScript number (INT64_MIN is above).
    int64_t id = static_cast<int64_t>(random() % (1ULL << 53)) - (1LL << 52);
    std::string name(random() % 40, 'a' + static_cast<char>(i % 26));
    out.write_long(id);
    out.write_string(name);
    nlohmann::json row = {{"id", std::to_string(id)}, {"name", name}, {"tags", nullptr}};
    if (random() % 3) {
      out.write_union_branch(1);
      size_t n = random() % 4;
      out.begin_items(n);
      row["tags"] = nlohmann::json::array();
      for (size_t k = 0; k < n; k++) {
        int32_t key = static_cast<int32_t>(random());
        std::string value(random() % 9, static_cast<char>(random()));
        out.write_int(key);
        out.write_bytes(value);
        row["tags"].push_back({{"key", key}, {"value", hex_bytes(value)}});
      }
      out.end_items();
    } else {
      out.write_union_branch(0);
    }
    records.push_back(out.bytes());
    expected.push_back(row);
  }
  testing::TempDir dir;
  std::string file = dir.path() + "/records.avro";
  testing::write_text(file, avro_container_file(schema, {{"format-version", "2"}}, records));
  std::string script = dir.path() + "/read.js";
  testing::write_text(script, R"(
const avro = require(process.argv[2] + '/avsc');
const rows = [];
avro.createFileDecoder(process.argv[3], { parseHook: (s) => avro.Type.forSchema(s, { wrapUnions: false }) })
  .on('metadata', (type, codec, head) => { if (head.meta['format-version'].toString() !== '2') process.exit(3); })
  .on('data', (r) => rows.push({ id: r.id.toString(), name: r.name,
    tags: r.tags === null ? null : r.tags.map((t) => ({ key: t.key, value: t.value.toString('hex') })) }))
  .on('end', () => console.log(JSON.stringify(rows)));
)");
  auto [status, out] = testing::run_shell("node '" + script + "' '" + testing::source_dir() + "/.deps/npm/node_modules' '" + file + "'");
  ASSERT_EQ(status, 0) << out;
  nlohmann::json read = nlohmann::json::parse(out);
  ASSERT_EQ(read.size(), expected.size());
  for (size_t i = 0; i < read.size(); i++) EXPECT_EQ(read[i], expected[i]) << i;
}

}  // namespace
}  // namespace lakestream::delta
