// Broken pipeline files made from the valid ones of examples/: one to five mistakes each, of the
// kinds a person makes (a misspelled key, a table no stream writes, an expression cut short, an
// unknown type, a duration that is not one, a column that is not there). `lakestream run` must
// tell each mistake at its line, and nothing else: no mistake that follows from another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "support/test_support.h"

namespace lakestream::testing {
namespace {

enum class Mutation { KeyTypo, Kind, From, Expression, Type, Duration, Column };

struct Made {
  int line;           // 1-based
  std::string told;   // a phrase its message must hold
};

struct Line {
  std::string table;  // the [header] it is under
  std::string key;
  std::string value;  // without its quotes
  bool quoted = false;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The key = value lines of a file, by line index; headers and comments are not mutated.
std::map<size_t, Line> key_lines(const std::vector<std::string>& lines) {
  static const std::regex header(R"(^\[([^\]]+)\].*)");
  static const std::regex setting(R"(^([A-Za-z_]+)\s*=\s*(.*?)\s*(#.*)?$)");
  std::map<size_t, Line> found;
  std::string table;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, header)) {
      table = m[1];
    } else if (std::regex_match(lines[i], m, setting)) {
      Line line{table, m[1], m[2]};
      if (line.value.size() >= 2 && line.value.front() == '"' && line.value.back() == '"') {
        line.value = line.value.substr(1, line.value.size() - 2);
        line.quoted = true;
      }
      found[i] = line;
    }
  }
  return found;
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The mutations `line` can take.
std::vector<Mutation> mutations_of(const Line& line) {
  std::vector<Mutation> can;
  bool named_keys = ends_with(line.table, ".schema") || ends_with(line.table, ".aggregates") ||
                    ends_with(line.table, ".derived") || ends_with(line.table, ".properties");
  if (!named_keys && line.key.size() >= 3) can.push_back(Mutation::KeyTypo);
  if (line.table.rfind("streams.", 0) == 0 && !named_keys) {
    if (line.key == "kind") can.push_back(Mutation::Kind);
    if (line.key == "from") can.push_back(Mutation::From);
    if (line.key == "filter" || line.key == "deletes") can.push_back(Mutation::Expression);
    if (line.key == "watermark" || line.key == "window" || line.key == "max_staleness") can.push_back(Mutation::Duration);
    if (line.key == "order_by" || line.key == "event_time") can.push_back(Mutation::Column);
  }
  if (ends_with(line.table, ".derived")) can.push_back(Mutation::Expression);
  if (ends_with(line.table, ".aggregates") && line.value.find("(*)") == std::string::npos)
    can.push_back(Mutation::Expression);
  if (ends_with(line.table, ".schema") && line.quoted) can.push_back(Mutation::Type);
  return can;
}

// Two inner letters swapped: the typo "did you mean" knows.
std::string swapped(const std::string& word, std::mt19937& random) {
  std::string typo = word;
  size_t at = 1 + random() % (typo.size() - 2);
  std::swap(typo[at], typo[at + 1]);
  if (typo == word) typo.insert(at, 1, typo[at]);  // "aa" swapped is itself: double a letter
  return typo;
}

std::string mutate(const std::string& text, const Line& line, Mutation mutation, std::mt19937& random) {
  auto value = [&](const std::string& v) { return line.key + " = \"" + v + "\""; };
  switch (mutation) {
    case Mutation::KeyTypo: {
      std::string rest = text.substr(text.find('='));
      return swapped(line.key, random) + " " + rest;
    }
    case Mutation::Kind: return value(swapped(line.value, random));
    case Mutation::From: return value(line.value + "s");
    case Mutation::Expression: {
      if (line.value.back() == ')' && line.table.find(".aggregates") != std::string::npos)
        return value(line.value.substr(0, line.value.size() - 1) + " and)");
      return value(line.value + " and");
    }
    case Mutation::Type: return value("x" + line.value);
    case Mutation::Duration: return value("soon");
    case Mutation::Column: return value(line.value + "x");
  }
  return text;
}

const char* told_by(Mutation mutation) {
  switch (mutation) {
    case Mutation::KeyTypo: return ": unknown key; did you mean";
    case Mutation::Kind: return ": unknown kind";
    case Mutation::From: return "no stream of this file writes table";
    case Mutation::Expression: return "is not a SQL expression: it ends too soon, after 'and'";
    case Mutation::Type: return ": unknown type";
    case Mutation::Duration: return "'soon' is not a duration";
    case Mutation::Column: return "is not in table";
  }
  return "";
}

struct BrokenFile {
  std::string text;
  std::vector<Made> made;
};

// One to five mutations on lines of different tables. A misspelled key or kind leaves what its
// stream reads or writes unknown, so such a case names no `from` and no column elsewhere: those
// would be mistakes that follow from it, rightly not told.
BrokenFile break_file(const std::string& valid, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::string> lines = split_lines(valid);
  std::map<size_t, Line> settings = key_lines(lines);
  std::vector<size_t> candidates;
  for (const auto& [index, line] : settings)
    if (!mutations_of(line).empty()) candidates.push_back(index);
  std::shuffle(candidates.begin(), candidates.end(), random);
  size_t wanted = 1 + random() % 5;
  std::set<std::string> tables_used;
  bool masking = false;
  BrokenFile broken;
  std::vector<std::pair<size_t, Mutation>> chosen;
  for (size_t index : candidates) {
    if (chosen.size() == wanted) break;
    const Line& line = settings[index];
    std::string section = line.table.substr(0, line.table.find('.', line.table.find('.') + 1));  // streams.x
    if (tables_used.count(section)) continue;
    std::vector<Mutation> can = mutations_of(line);
    Mutation mutation = can[random() % can.size()];
    bool masks = mutation == Mutation::KeyTypo || mutation == Mutation::Kind;
    bool maskable = mutation == Mutation::From || mutation == Mutation::Column;
    bool any_maskable = std::any_of(chosen.begin(), chosen.end(), [](const auto& c) {
      return c.second == Mutation::From || c.second == Mutation::Column;
    });
    if ((masks && any_maskable) || (maskable && masking)) continue;
    masking = masking || masks;
    tables_used.insert(section);
    chosen.push_back({index, mutation});
  }
  for (const auto& [index, mutation] : chosen) {
    lines[index] = mutate(lines[index], settings[index], mutation, random);
    broken.made.push_back({static_cast<int>(index + 1), told_by(mutation)});
  }
  for (const auto& line : lines) broken.text += line + "\n";
  std::sort(broken.made.begin(), broken.made.end(), [](const Made& a, const Made& b) { return a.line < b.line; });
  return broken;
}

// Runs `lakestream run` on the broken file and checks that its mistakes, and only they, are told.
void expect_told_exactly(const BrokenFile& broken, const std::string& example, unsigned seed) {
  TempDir dir;
  write_text(dir / "lakestream.toml", broken.text);
  CommandResult r = run_lakestream({"run"}, dir.path());
  SCOPED_TRACE(example + " seed " + std::to_string(seed) + "\n" + broken.text);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::vector<std::string> told = split_lines(r.err);
  const std::string prefix = "lakestream: ";
  if (!told.empty() && told[0].rfind(prefix, 0) == 0) told[0].erase(0, prefix.size());
  size_t expected_lines = broken.made.size() + (broken.made.size() > 1 ? 1 : 0);
  ASSERT_EQ(told.size(), expected_lines) << r.err;
  for (size_t i = 0; i < broken.made.size(); ++i) {
    std::string at = "lakestream.toml:" + std::to_string(broken.made[i].line) + ": ";
    EXPECT_EQ(told[i].rfind(at, 0), 0u) << "expected at line " << broken.made[i].line << ": " << r.err;
    EXPECT_NE(told[i].find(broken.made[i].told), std::string::npos) << told[i];
  }
  if (broken.made.size() > 1) {
    EXPECT_EQ(told.back(), std::to_string(broken.made.size()) + " mistakes in lakestream.toml: fix them all, then run again");
  }
}

class BrokenExampleFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenExampleFiles, EachMutationIsToldAtItsLineAndNothingElse) {
  std::string valid = read_text(source_dir() + "/examples/" + GetParam() + "/lakestream.toml");
  ASSERT_FALSE(valid.empty());
  // More seeds with LAKESTREAM_BROKEN_FILE_SEEDS=N (each is a run of the binary, ~40 ms).
  const char* more = std::getenv("LAKESTREAM_BROKEN_FILE_SEEDS");
  unsigned seeds = more ? static_cast<unsigned>(std::stoul(more)) : 12;
  for (unsigned seed = 1; seed <= seeds; ++seed) expect_told_exactly(break_file(valid, seed), GetParam(), seed);
}

INSTANTIATE_TEST_SUITE_P(Examples, BrokenExampleFiles,
                         ::testing::Values("shop", "clickstream", "user-events", "cdc"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Cases the generator once failed on (shop seeds 2, 7 and 11, cdc seed 3 before the fixes), kept
// as files: a misspelled `table` or `kind` was told, then "missing" for the key it meant (and an
// empty table name reached the SQL check); a Debezium source with a wrong field type lost the
// change's columns, so that order_by = "_source_lsn" was told as well.
TEST(BrokenFilesKept, AMisspelledKeyIsToldOnceAndAWrongTypeKeepsTheChangesColumns) {
  std::string shop = read_text(source_dir() + "/examples/shop/lakestream.toml");
  auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  TempDir dir;
  write_text(dir / "lakestream.toml", replaced(replaced(shop, "\ntable = \"bronze_orders\"", "\ntabel = \"bronze_orders\""),
                                               "kind = \"latest\"", "knid = \"latest\""));
  CommandResult r = run_lakestream({"run"}, dir.path());
  EXPECT_EQ(r.err,
            "lakestream: lakestream.toml:29: streams.read_orders.tabel: unknown key; did you mean 'table'? (allowed here: "
            "kind, table, source, derived, partition_by, max_quarantine_share, target_latency, column_mapping, iceberg)\n"
            "lakestream.toml:37: streams.latest_orders.knid: unknown key; did you mean 'kind'? (allowed here: kind, table, "
            "source, derived, partition_by, max_quarantine_share, target_latency, column_mapping, iceberg, from, key, order_by, entity, max_staleness, "
            "max_files_per_trigger, deletes, deletes_retention, deletion_vectors, change_data_feed, read, filter, event_time, watermark, dedup, window, window_column, "
            "window_end_column, group_by, output, aggregates, max_late_share)\n"
            "2 mistakes in lakestream.toml: fix them all, then run again\n");

  std::string cdc = read_text(source_dir() + "/examples/cdc/lakestream.toml");
  write_text(dir / "lakestream.toml", replaced(cdc, "name = \"string\"", "name = \"xstring\""));
  r = run_lakestream({"run"}, dir.path());
  EXPECT_EQ(r.err,
            "lakestream: lakestream.toml:13: sources.customers.schema.name: unknown type 'xstring'; types: bigint, int, "
            "double, boolean, string, decimal(p,s), timestamp; did you mean 'string'?\n");
}

}  // namespace
}  // namespace lakestream::testing
