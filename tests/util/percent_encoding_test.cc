#include <gtest/gtest.h>

#include <random>

#include "util/percent_encoding.h"

namespace lakestream {
namespace {

TEST(PercentEncoding, DecodesEscapesAndLeavesTheRestAsItIs) {
  EXPECT_EQ(percent_decoded("a%20b%2Fc"), "a b/c");
  EXPECT_EQ(percent_decoded("%e2%82%ac"), "\xe2\x82\xac");  // lower-case hex, a UTF-8 euro sign
  EXPECT_EQ(percent_decoded("100%"), "100%");
  EXPECT_EQ(percent_decoded("%2"), "%2");
  EXPECT_EQ(percent_decoded("%zz%4"), "%zz%4");
  EXPECT_EQ(percent_decoded("a+b"), "a+b");
  EXPECT_EQ(percent_decoded("a+b", true), "a b");
}

// Any bytes, escaped as a browser's encodeURIComponent does (and with '+' for spaces, as a form
// does), decode back to themselves.
TEST(PercentEncoding, AnyEscapedTextDecodesBack) {
  std::mt19937 random(7);
  const char* hex = "0123456789ABCDEF";
  for (int round = 0; round < 500; round++) {
    std::string text, escaped;
    int size = static_cast<int>(random() % 20);
    for (int i = 0; i < size; i++) {
      unsigned char c = static_cast<unsigned char>(random() % 256);
      text += static_cast<char>(c);
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.') escaped += static_cast<char>(c);
      else if (c == ' ' && random() % 2) escaped += '+';
      else escaped += std::string("%") + hex[c >> 4] + hex[c & 15];
    }
    EXPECT_EQ(percent_decoded(escaped, true), text) << escaped;
    EXPECT_EQ(query_value("/api/why?mode=record&q=" + escaped + "&x=1", "q"), text) << escaped;
  }
}

TEST(PercentEncoding, FindsAQueryValueByName) {
  EXPECT_EQ(query_value("/api/why?q=order_id%3D1006&mode=window", "q"), "order_id=1006");
  EXPECT_EQ(query_value("/api/why?q=order_id%3D1006&mode=window", "mode"), "window");
  EXPECT_EQ(query_value("/api/why?q=1&mode", "mode"), "");
  EXPECT_EQ(query_value("/api/why?q=1", "mode"), std::nullopt);
  EXPECT_EQ(query_value("/api/why", "q"), std::nullopt);
  EXPECT_EQ(query_value("/api/why?qq=1&q=2", "q"), "2");
  EXPECT_EQ(query_value("/api/why?q=1#q=2", "q"), "1");
}

}  // namespace
}  // namespace lakestream
