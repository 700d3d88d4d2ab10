#include <gtest/gtest.h>

#include "util/byte_size.h"

namespace lakestream {
namespace {

TEST(ByteSize, ReadsTheUnitsPeopleWrite) {
  EXPECT_EQ(parse_byte_size("128MB"), 128LL << 20);
  EXPECT_EQ(parse_byte_size("64 MiB"), 64LL << 20);
  EXPECT_EQ(parse_byte_size("1gb"), 1LL << 30);
  EXPECT_EQ(parse_byte_size("500kB"), 500LL << 10);
  EXPECT_EQ(parse_byte_size("4096"), 4096);
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char* text : {"", "MB", "0MB", "12 parsecs", "-5MB", "1.5GB", "99999999999999999999"})
    EXPECT_EQ(parse_byte_size(text), std::nullopt) << text;
}

TEST(ByteSize, FormatsInTheLargestWholeUnitAndReadsBack) {
  EXPECT_EQ(format_byte_size(256LL << 20), "256 MiB");
  EXPECT_EQ(format_byte_size(2LL << 30), "2 GiB");
  EXPECT_EQ(format_byte_size(1536LL << 20), "1536 MiB");
  EXPECT_EQ(format_byte_size(1500), "1500 B");
  for (int64_t size : {5LL << 20, 3LL << 30, 1LL << 10, 777LL})
    EXPECT_EQ(parse_byte_size(format_byte_size(size)), size) << size;
}

}  // namespace
}  // namespace lakestream
