// Builds the one SQL statement that decodes a batch: a chain of projections, each adding the
// columns the next one needs. Every document is parsed once (one json_extract of all members
// by JSON pointer); later steps only look at each member's short JSON text, with cheap string
// tests (its first character, a cast) rather than parsing it again.
#include "decode/record_decoder.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

#include "pipeline/bronze_layout.h"
#include "util/error.h"

namespace lakestream {
namespace {

using sql::quote_ident;
using sql::quote_literal;

// How far into a bad value the reason quotes it.
constexpr size_t kShownChars = 40;

// A strict ISO-8601 timestamp: date, time with seconds, at most microseconds (more digits only
// when they are zeros, so nothing is cut off), then an optional zone (none means UTC).
const char* const kTimestampPattern =
    R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,6}0{0,3})?(?:[zZ]|[+-]\d{2}(?::?\d{2})?)?)";

// A timestamp written as a JSON number: milliseconds since the epoch, 13 digits (2001-09-09 to
// 2286-11-20), as Java's and JavaScript's clocks give it. Seconds (10 digits) would otherwise
// land in January 1970 without a word; they are refused instead.
const char* const kEpochMillisPattern = "[1-9][0-9]{12}";

// The numbers a decimal field takes (in a JSON number or a string): JSON number grammar, with
// leading zeros forgiven.
const char* const kNumberPattern = R"(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)";

// What may follow a key in a document before its number, and the number: the digits a decimal
// is read from.
const char* const kColonThenNumber = R"([ \t\n\r]*:[ \t\n\r]*(-?[0-9][0-9.eE+-]*))";

// How many characters after a key the fast search for its number looks at.
constexpr int kNumberWindow = 100;

// RFC 6901 JSON pointer to a top-level member: unlike the '$.' path syntax it can name any key
// (quotes, dots, backslashes, the empty key) with only '~' and '/' escaped.
std::string json_pointer(const std::string& name) {
  std::string out = "/";
  for (char c : name) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// `name` as a JSON encoder writes it as a key, quotes included ('"', '\' and controls escaped).
std::string json_key(const std::string& name) {
  std::string key = "\"";
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      key += '\\';
      key += c;
    } else if (byte < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
      key += escaped;
    } else {
      key += c;
    }
  }
  return key + "\"";
}

// `text` as a regular expression that matches it literally.
std::string regex_literal(const std::string& text) {
  std::string regex;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    // Escape every ASCII punctuation character; letters, digits and UTF-8 bytes stand for themselves.
    if (byte < 0x80 && !std::isalnum(byte)) regex += '\\';
    regex += c;
  }
  return regex;
}

// "a bigint", "an int", "a decimal(18,2)", with an example where the format is not obvious.
std::string type_phrase(const Field& field) {
  switch (field.type) {
    case FieldType::Int: return "an int";
    case FieldType::Timestamp:
      return "a timestamp (ISO-8601, e.g. 2026-10-01T09:05:00Z, or milliseconds since the epoch, e.g. 1790845500000)";
    default: return "a " + field.type_text();
  }
}

// A SQL expression for `text` cut to kShownChars characters (ending in "..." when cut).
std::string shown_text(const std::string& text) {
  return "CASE WHEN length(" + text + ") > " + std::to_string(kShownChars) + " THEN left(" + text + ", " +
         std::to_string(kShownChars - 3) + ") || '...' ELSE " + text + " END";
}

// The SQL that decodes one field. Its columns are prefixed f<i>_; f<i>_json, the member's JSON
// text as DuckDB re-serialized it (NULL when absent), exists before any stage runs.
struct FieldPlan {
  std::vector<std::vector<std::string>> stages;  // "expr AS column" lists, one projection each
  std::string value;                             // the typed value; NULL when it does not fit
  std::string shown;                             // the JSON text a reason quotes
  std::string extra_reason;                      // "WHEN cond THEN text", checked before "does not fit"
};

class FieldPlanner {
 public:
  FieldPlanner(const Field& field, size_t index) : field_(field), prefix_("f" + std::to_string(index) + "_") {}

  FieldPlan plan() const {
    switch (field_.type) {
      case FieldType::BigInt: return integer_plan("BIGINT");
      case FieldType::Int: return integer_plan("INTEGER");
      case FieldType::Double: return double_plan();
      case FieldType::Boolean: return boolean_plan();
      case FieldType::String: return string_plan();
      case FieldType::Decimal: return decimal_plan();
      case FieldType::Timestamp: return timestamp_plan();
    }
    throw Error("internal: field " + field_.name + " has an unknown type");
  }

 private:
  std::string col(const std::string& what) const { return prefix_ + what; }
  std::string json() const { return col("json"); }
  std::string is_string() const { return "starts_with(" + json() + ", '\"')"; }
  std::string is_container() const { return "(starts_with(" + json() + ", '{') OR starts_with(" + json() + ", '['))"; }
  std::string string_value() const { return "json_extract_string(" + json() + ", '$')"; }
  // Integers are written without a point or an exponent; a cast alone would round 1.5 to 2.
  std::string has_fraction_syntax() const {
    return "(contains(" + json() + ", '.') OR contains(" + json() + ", 'e') OR contains(" + json() + ", 'E'))";
  }

  // Column `fraction`: the member is a number written with a point or an exponent. DuckDB's
  // JSON parser keeps integers exact but hands fractions back re-serialized from a double
  // (1234567890123456.78 becomes ...456.8), so where digits matter they are found again.
  std::string fraction_column() const {
    return "CASE WHEN " + is_string() + " THEN false WHEN " + has_fraction_syntax() + " THEN TRY_CAST(" + json() +
           " AS DOUBLE) IS NOT NULL ELSE false END AS " + col("fraction");
  }

  // Stages finding a fraction's exact digits in the document (columns `fraction`, then
  // `digits`): the number after this key whose double is the parsed one, so a nested member of
  // the same name is not taken for it. Fast path: the first occurrence of the key; else every
  // occurrence. NULL when not found (a key written with escapes).
  std::vector<std::vector<std::string>> exact_digits_stages() const {
    std::string key = quote_literal(json_key(field_.name));
    std::string near = col("near");
    std::string as_double = "TRY_CAST(" + json() + " AS DOUBLE)";
    std::string first_after_key = "regexp_extract(substr(doc, strpos(doc, " + key + ") + length(" + key + "), " +
                                  std::to_string(kNumberWindow) + "), " +
                                  quote_literal(std::string("^") + kColonThenNumber) + ", 1)";
    std::string every_after_key = "list_filter(regexp_extract_all(doc, " +
                                  quote_literal(regex_literal(json_key(field_.name)) + kColonThenNumber) +
                                  ", 1), lambda digits: TRY_CAST(digits AS DOUBLE) = " + as_double + ")[1]";
    return {{fraction_column()},
            {"CASE WHEN " + col("fraction") + " THEN " + first_after_key + " END AS " + near},
            {"CASE WHEN NOT " + col("fraction") + " THEN NULL WHEN TRY_CAST(" + near + " AS DOUBLE) = " + as_double +
             " THEN " + near + " ELSE " + every_after_key + " END AS " + col("digits")}};
  }

  FieldPlan integer_plan(const std::string& sql_type) const {
    FieldPlan plan;
    plan.value = "CASE WHEN NOT " + has_fraction_syntax() + " THEN TRY_CAST(" + json() + " AS " + sql_type + ") END";
    plan.shown = json();
    return plan;
  }

  FieldPlan double_plan() const {
    FieldPlan plan;
    std::string as_double = "TRY_CAST(" + json() + " AS DOUBLE)";
    // NaN and Infinity (which DuckDB's JSON reader tolerates) are not numbers JSON can carry.
    plan.value = "CASE WHEN isfinite(" + as_double + ") THEN " + as_double + " END";
    plan.shown = json();
    return plan;
  }

  FieldPlan boolean_plan() const {
    FieldPlan plan;
    plan.value = "CASE " + json() + " WHEN 'true' THEN true WHEN 'false' THEN false END";
    plan.shown = json();
    return plan;
  }

  FieldPlan string_plan() const {
    FieldPlan plan;
    plan.stages = exact_digits_stages();
    // Numbers and booleans are taken as their text (a fraction with its own digits, or as DuckDB
    // wrote it when they cannot be found); objects and arrays are not strings.
    plan.value = "CASE WHEN " + is_string() + " THEN " + string_value() + " WHEN " + is_container() + " OR " + json() +
                 " = 'null' THEN NULL ELSE coalesce(" + col("digits") + ", " + json() + ") END";
    plan.shown = json();
    return plan;
  }

  FieldPlan decimal_plan() const {
    FieldPlan plan;
    std::string text = col("text"), places = col("places");
    plan.stages = exact_digits_stages();
    // The exact text of the number (a JSON number or a numeric string), never a double's.
    plan.stages.push_back({"CASE WHEN " + is_string() + " THEN " + string_value() + " WHEN " + col("fraction") +
                           " THEN " + col("digits") + " ELSE " + json() + " END AS " + text});
    // Decimals the value really has: those after the point, trailing zeros not counted (25.50
    // has 1); with an exponent, those of the mantissa (100 has -2) minus the exponent (1.5e2
    // has -1). NULL when the text is no number.
    std::string has_exponent = "(contains(" + text + ", 'e') OR contains(" + text + ", 'E'))";
    std::string mantissa = "split_part(lower(" + text + "), 'e', 1)";
    std::string exponent = "TRY_CAST(split_part(lower(" + text + "), 'e', 2) AS INTEGER)";
    plan.stages.push_back(
        {"CASE WHEN NOT regexp_full_match(" + text + ", " + quote_literal(kNumberPattern) + ") THEN NULL WHEN NOT " +
         has_exponent + " THEN (CASE WHEN strpos(" + text + ", '.') = 0 THEN 0 ELSE length(rtrim(" + text +
         ", '0')) - strpos(" + text + ", '.') END) ELSE (CASE WHEN strpos(" + mantissa + ", '.') = 0 THEN length(rtrim(" +
         mantissa + ", '0')) - length(" + mantissa + ") ELSE length(rtrim(" + mantissa + ", '0')) - strpos(" + mantissa +
         ", '.') END) - " + exponent + " END AS " + places});
    // With no more decimals than the scale the cast cannot round; it fails when the precision is too small.
    plan.value = "CASE WHEN " + places + " <= " + std::to_string(field_.scale) + " THEN TRY_CAST(" + text + " AS " +
                 field_.duckdb_type() + ") END";
    plan.shown = "coalesce(" + col("digits") + ", " + json() + ")";
    plan.extra_reason = "WHEN " + col("fraction") + " AND " + col("digits") + " IS NULL THEN " +
                        quote_literal("field \"" + field_.name + "\": ") + " || " + shown_text(json()) + " || " +
                        quote_literal(" is a number whose exact digits could not be found in the record (is its "
                                      "key written with escapes?); send it with a plain key, or as a string");
    return plan;
  }

  FieldPlan timestamp_plan() const {
    FieldPlan plan;
    std::string text = col("text");
    plan.stages = {{"CASE WHEN " + is_string() + " THEN " + string_value() + " END AS " + text}};
    // The zone is always spelled out for the cast, so the session's time zone never matters.
    // The offset, if any, comes after the 19 characters of date and time.
    std::string zone_tail = "substr(" + text + ", 20)";
    std::string zoned = "CASE WHEN right(" + text + ", 1) IN ('Z', 'z') THEN left(" + text + ", -1) || '+00' WHEN contains(" +
                        zone_tail + ", '+') OR contains(" + zone_tail + ", '-') THEN " + text + " ELSE " + text +
                        " || '+00' END";
    // A number is milliseconds since the epoch, added to the epoch as an interval of
    // microseconds: exact, and independent of the session's zone as well.
    std::string from_millis = "TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_microseconds(CAST(" + json() +
                              " AS BIGINT) * 1000)";
    plan.value = "CASE WHEN regexp_full_match(" + text + ", " + quote_literal(kTimestampPattern) + ") THEN TRY_CAST(" +
                 zoned + " AS TIMESTAMPTZ) WHEN regexp_full_match(" + json() + ", " + quote_literal(kEpochMillisPattern) +
                 ") THEN " + from_millis + " END";
    plan.shown = json();
    return plan;
  }

  const Field& field_;
  std::string prefix_;
};

void refuse_kafka_column_names(const Source& source) {
  // The columns the decoder adds after the schema's fields.
  std::vector<std::string> added;
  for (const auto& kafka : kafka_columns()) added.push_back(kafka.name);
  added.push_back(kValueColumn);
  added.push_back(kReasonColumn);
  for (const auto& field : source.schema.fields) {
    std::string lower = field.name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (std::find(added.begin(), added.end(), lower) == added.end()) continue;
    std::string all;
    for (const auto& name : added) all += (all.empty() ? "" : ", ") + name;
    throw Error("source " + source.name + ": field \"" + field.name + "\" has the name of a column the ingest stream adds (" +
                all + "); remove it from the schema or rename it in the events");
  }
}

// The statement, as CTEs: gated (what must not be parsed) -> docs (text) -> parsed (the one
// parse) -> member_texts (one column per field) -> stage1..N (per-type steps) -> typed -> output.
std::string decode_sql(const Source& source, const std::string& raw_table, const std::string& out_table) {
  const auto& fields = source.schema.fields;
  bool change_events = source.envelope == SourceEnvelope::Debezium;
  std::string max_bytes = std::to_string(source.max_value_bytes);

  std::string sql = "CREATE OR REPLACE TEMP TABLE " + quote_ident(out_table) + " AS\nWITH gated AS (\n";
  // utf8 is the caller's verdict; when it is not TRUE the decoder finds out which part is bad.
  sql += std::string("  SELECT partition, \"offset\", kafka_timestamp, key, value, utf8, ") +
         (change_events ? "doc, envelope_reason, " : "") + "CASE"
         " WHEN utf8 IS NOT TRUE AND value IS NOT NULL AND try(decode(value)) IS NULL"
         " THEN 'value is not valid UTF-8 text'"
         " WHEN utf8 IS NOT TRUE AND key IS NOT NULL AND try(decode(key)) IS NULL THEN 'key is not valid UTF-8 text'"
         " WHEN value IS NULL OR octet_length(value) = 0 THEN 'empty value'"
         " WHEN octet_length(value) > " + max_bytes + " THEN 'value is ' || octet_length(value) || "
         "' bytes, over max_value_bytes = " + max_bytes + "'" +
         (change_events ? " WHEN envelope_reason IS NOT NULL THEN envelope_reason" : "") + " END AS gate_reason\n"
         "  FROM " + quote_ident(raw_table) + "\n)";
  // A change event's document is the row read from its envelope; the value stays as sent.
  sql += change_events ? ", docs AS (\n  SELECT * REPLACE (CASE WHEN gate_reason IS NULL THEN doc END AS doc) FROM gated\n)"
                       : ", docs AS (\n  SELECT *, CASE WHEN gate_reason IS NULL THEN decode(value) END AS doc FROM gated\n)";

  // The one parse: all members at once; NULL when the document is not JSON.
  std::string pointers;
  for (const auto& field : fields) pointers += (pointers.empty() ? "" : ", ") + quote_literal(json_pointer(field.name));
  std::string parse = fields.empty() ? "CASE WHEN json_valid(doc) THEN [] END"
                                     : "try(json_extract(doc, [" + pointers + "]))";
  sql += ", parsed AS (\n  SELECT *, " + parse +
         " AS members, regexp_matches(doc, '^[ \\t\\n\\r]*\\{') AS is_object FROM docs\n)";

  std::string previous = "parsed";
  auto add_layer = [&](const std::string& name, const std::vector<std::string>& columns) {
    sql += ", " + name + " AS (\n  SELECT *";
    for (const auto& c : columns) sql += ", " + c;
    sql += " FROM " + previous + "\n)";
    previous = name;
  };

  std::vector<std::string> member_columns;
  std::vector<FieldPlan> plans;
  for (size_t i = 0; i < fields.size(); i++) {
    member_columns.push_back("members[" + std::to_string(i + 1) + "]::VARCHAR AS f" + std::to_string(i) + "_json");
    plans.push_back(FieldPlanner(fields[i], i).plan());
  }
  add_layer("member_texts", member_columns);
  size_t stage_count = 0;
  for (const auto& plan : plans) stage_count = std::max(stage_count, plan.stages.size());
  for (size_t s = 0; s < stage_count; s++) {
    std::vector<std::string> columns;
    for (const auto& plan : plans)
      if (s < plan.stages.size()) columns.insert(columns.end(), plan.stages[s].begin(), plan.stages[s].end());
    add_layer("stage" + std::to_string(s + 1), columns);
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < plans.size(); i++) values.push_back(plans[i].value + " AS f" + std::to_string(i) + "_value");
  add_layer("typed", values);

  // The first problem wins: the gate, then the document, then each field in schema order.
  std::string reason = "coalesce(gate_reason, CASE WHEN members IS NULL THEN 'not valid JSON'"
                       " WHEN NOT is_object THEN 'not a JSON object' END";
  std::string select;
  for (size_t i = 0; i < fields.size(); i++) {
    const Field& field = fields[i];
    std::string p = "f" + std::to_string(i) + "_";
    std::string missing = field.required ? quote_literal("missing required field \"" + field.name + "\"") : "NULL";
    reason += ",\n    CASE WHEN " + p + "json IS NULL OR " + p + "json = 'null' THEN " + missing + " " +
              plans[i].extra_reason + " WHEN " + p + "value IS NULL THEN " +
              quote_literal("field \"" + field.name + "\": ") + " || " + shown_text(plans[i].shown) + " || " +
              quote_literal(" is not " + type_phrase(field)) + " END";
    select += p + "value::" + field.duckdb_type() + " AS " + quote_ident(field.name) + ", ";
  }
  reason += ")";
  sql += "\nSELECT " + select +
         "partition, \"offset\", kafka_timestamp,"
         " CASE WHEN utf8 IS TRUE THEN decode(key) ELSE coalesce(try(decode(key)), key::VARCHAR) END AS key,"
         " value, " + reason + " AS reason\nFROM " + previous;
  return sql;
}

}  // namespace

void decode_records(sql::Connection& con, const Source& source, const std::string& raw_table,
                    const std::string& out_table) {
  refuse_kafka_column_names(source);
  con.exec(decode_sql(source, raw_table, out_table));
}

}  // namespace lakestream
