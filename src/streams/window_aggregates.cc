#include "streams/window_aggregates.h"

#include <regex>

#include "util/error.h"

namespace lakestream {

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

// Spark's result type of sum/avg over a decimal(p,s): decimal(p+10,s) and decimal(p+4,s+4).
std::string widened_decimal(const std::string& type, int add_precision, int add_scale) {
  std::smatch m;
  static const std::regex decimal(R"(DECIMAL\((\d+),\s*(\d+)\))");
  if (!std::regex_match(type, m, decimal)) return "";
  int p = std::min(38, std::stoi(m[1]) + add_precision);
  int s = std::min(p, std::stoi(m[2]) + add_scale);
  return "DECIMAL(" + std::to_string(p) + "," + std::to_string(s) + ")";
}

// The decimal average of a window state's sum `s` and count `c` in `wide` (DECIMAL(p,s)) as Spark
// gives it: exact, rounded half up (away from zero). In integers, so that no double rounds it:
// the sum in units of the result's scale, divided by the count.
std::string decimal_average(const std::string& s, const std::string& c, const std::string& wide) {
  size_t scale = std::stoul(wide.substr(wide.find(',') + 1));
  std::string per_unit = "1" + std::string(scale, '0');
  std::string unit = scale == 0 ? "1" : "0." + std::string(scale - 1, '0') + "1";
  std::string units = "CAST(" + s + " * " + per_unit + " AS HUGEINT)";
  std::string rounded = "sign(" + units + ") * ((abs(" + units + ") * 2 + " + c + ") // (2 * " + c + "))";
  return "CAST(CAST(" + rounded + " AS DECIMAL(38,0)) * " + unit + " AS " + wide + ")";
}

}  // namespace

namespace {

std::vector<std::string> argument_types_of(sql::Connection& con, const Stream& stream, const std::string& source_relation) {
  std::vector<std::string> types;
  for (const auto& a : stream.aggregates) {
    if (a.argument == "*") {
      types.push_back("");
      continue;
    }
    sql::Rows described = con.query("DESCRIBE SELECT " + a.argument + " AS x FROM (" + source_relation + ")");
    types.push_back(described.text(0, "column_type"));
  }
  return types;
}

}  // namespace

WindowAggregates::WindowAggregates(sql::Connection& con, const Stream& stream, const std::string& source_relation)
    : WindowAggregates(stream, argument_types_of(con, stream, source_relation)) {}

WindowAggregates::WindowAggregates(const Stream& stream, std::vector<std::string> argument_types)
    : stream_(stream), argument_types_(std::move(argument_types)) {
  if (argument_types_.size() != stream.aggregates.size())
    throw Error("internal: " + std::to_string(argument_types_.size()) + " argument types for " +
                std::to_string(stream.aggregates.size()) + " aggregates");
}

std::string WindowAggregates::window_start_us() const {
  std::string us = "epoch_us(" + q(stream_.event_time) + ")";
  std::string w = std::to_string(stream_.window_us);
  // Floor, not truncation, so that windows before 1970 are aligned too.
  return "(" + us + " - ((" + us + " % " + w + ") + " + w + ") % " + w + ")";
}

std::string WindowAggregates::window_key_select() const {
  std::string s = "make_timestamp(" + window_start_us() + ")::TIMESTAMPTZ AS ws";
  for (const auto& g : stream_.group_by) s += ", " + q(g);
  return s;
}

std::string WindowAggregates::partial_select_of(const std::function<std::string(size_t)>& argument) const {
  std::string s;
  for (size_t i = 0; i < stream_.aggregates.size(); i++) {
    const auto& a = stream_.aggregates[i];
    std::string n = std::to_string(i);
    std::string arg = argument(i);
    if (!s.empty()) s += ", ";
    if (a.function == "count") s += "count(" + arg + ") AS c" + n;
    else if (a.function == "sum") s += "sum(" + arg + ") AS s" + n;
    else if (a.function == "min") s += "min(" + arg + ") AS m" + n;
    else if (a.function == "max") s += "max(" + arg + ") AS m" + n;
    else if (a.function == "avg") s += "sum(" + arg + ") AS s" + n + ", count(" + arg + ") AS c" + n;
    else throw Error("internal: unknown aggregate " + a.function);
  }
  return s;
}

std::string WindowAggregates::partial_select() const {
  return partial_select_of([&](size_t i) { return stream_.aggregates[i].argument; });
}

namespace {
std::string argument_column(size_t i) { return "__arg" + std::to_string(i); }
}  // namespace

std::string WindowAggregates::argument_select() const {
  std::string s;
  for (size_t i = 0; i < stream_.aggregates.size(); i++) {
    const auto& a = stream_.aggregates[i];
    if (a.argument == "*") continue;
    s += (s.empty() ? "" : ", ") + ("(" + a.argument + ") AS " + argument_column(i));
  }
  return s;
}

std::string WindowAggregates::partials_by_window(const std::string& relation) const {
  std::string groups;
  for (const auto& g : stream_.group_by) groups += ", " + q(g);
  std::string partials = partial_select_of([&](size_t i) {
    return stream_.aggregates[i].argument == "*" ? std::string("*") : argument_column(i);
  });
  return "SELECT make_timestamp(ws_us)::TIMESTAMPTZ AS ws" + groups + ", " + partial_columns() + " FROM (SELECT " +
         window_start_us() + " AS ws_us" + groups + ", " + partials + " FROM " + relation + " GROUP BY ALL)";
}

std::string WindowAggregates::partial_columns() const {
  std::string s;
  for (size_t i = 0; i < stream_.aggregates.size(); i++) {
    const auto& f = stream_.aggregates[i].function;
    std::string n = std::to_string(i);
    if (!s.empty()) s += ", ";
    if (f == "count") s += "c" + n;
    else if (f == "sum") s += "s" + n;
    else if (f == "min" || f == "max") s += "m" + n;
    else s += "s" + n + ", c" + n;
  }
  return s;
}

std::string WindowAggregates::merge_assignments() const {
  std::string s;
  auto add = [&](const std::string& col, const std::string& expr) { s += (s.empty() ? "" : ", ") + col + " = " + expr; };
  for (size_t i = 0; i < stream_.aggregates.size(); i++) {
    const auto& f = stream_.aggregates[i].function;
    std::string n = std::to_string(i);
    auto w = [&](const char* c) { return std::string("w.") + c + n; };
    auto p = [&](const char* c) { return std::string("p.") + c + n; };
    auto col = [&](const char* c) { return std::string(c) + n; };
    // NULL partials (sum/min/max over only NULLs) must not wipe out the other side.
    if (f == "count") add(col("c"), w("c") + " + " + p("c"));
    else if (f == "sum") add(col("s"), "coalesce(" + w("s") + " + " + p("s") + ", " + w("s") + ", " + p("s") + ")");
    else if (f == "min") add(col("m"), "coalesce(least(" + w("m") + ", " + p("m") + "), " + w("m") + ", " + p("m") + ")");
    else if (f == "max") add(col("m"), "coalesce(greatest(" + w("m") + ", " + p("m") + "), " + w("m") + ", " + p("m") + ")");
    else {
      add(col("s"), "coalesce(" + w("s") + " + " + p("s") + ", " + w("s") + ", " + p("s") + ")");
      add(col("c"), w("c") + " + " + p("c"));
    }
  }
  return s;
}

std::string WindowAggregates::same_window(const std::string& w, const std::string& p) const {
  std::string s = w + ".ws = " + p + ".ws";
  for (const auto& g : stream_.group_by) s += " AND " + w + "." + q(g) + " IS NOT DISTINCT FROM " + p + "." + q(g);
  return s;
}

std::string WindowAggregates::final_select() const {
  std::string s = "ws AS " + q(stream_.window_column);
  if (!stream_.window_end_column.empty())
    s += ", ws + to_microseconds(" + std::to_string(stream_.window_us) + ") AS " + q(stream_.window_end_column);
  for (const auto& g : stream_.group_by) s += ", " + q(g);
  for (size_t i = 0; i < stream_.aggregates.size(); i++) {
    const auto& a = stream_.aggregates[i];
    const std::string& type = argument_types_[i];
    std::string n = std::to_string(i);
    std::string expr;
    if (a.function == "count") {
      expr = "c" + n;
    } else if (a.function == "sum") {
      std::string wide = widened_decimal(type, 10, 0);
      expr = wide.empty() ? "s" + n : "CAST(s" + n + " AS " + wide + ")";
    } else if (a.function == "min" || a.function == "max") {
      expr = "m" + n;
    } else {
      std::string wide = widened_decimal(type, 4, 4);
      expr = "CASE WHEN c" + n + " = 0 THEN NULL ELSE " +
             (wide.empty() ? "s" + n + "::DOUBLE / c" + n : decimal_average("s" + n, "c" + n, wide)) +
             " END";
    }
    s += ", " + expr + " AS " + q(a.name);
  }
  return s;
}

}  // namespace lakestream
