// A source field's type in its three spellings (pipeline file, DuckDB, Delta), and the schema
// lookups every module uses.
#include <cctype>
#include <string_view>

#include "pipeline/pipeline.h"

namespace lakestream {
namespace {

std::string without_spaces_lower(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Reads the digits at `pos`, advancing it; nullopt when there are none (or too many to be a precision).
std::optional<int> read_small_number(std::string_view text, size_t& pos) {
  size_t start = pos;
  int value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) && pos - start < 3) {
    value = value * 10 + (text[pos] - '0');
    ++pos;
  }
  if (pos == start || (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))) return std::nullopt;
  return value;
}

// One row per type: how the pipeline file, DuckDB and Delta spell it.
struct TypeSpellings {
  FieldType type;
  const char* file;
  const char* duckdb;
  const char* delta;
};

// Event times are instants (ISO-8601 with a zone in the JSON): TIMESTAMPTZ in DuckDB, and
// Delta's `timestamp` is an instant too.
constexpr TypeSpellings kSpellings[] = {
    {FieldType::BigInt, "bigint", "BIGINT", "long"},
    {FieldType::Int, "int", "INTEGER", "integer"},
    {FieldType::Double, "double", "DOUBLE", "double"},
    {FieldType::Boolean, "boolean", "BOOLEAN", "boolean"},
    {FieldType::String, "string", "VARCHAR", "string"},
    {FieldType::Decimal, "decimal", "DECIMAL", "decimal"},
    {FieldType::Timestamp, "timestamp", "TIMESTAMPTZ", "timestamp"},
};

const TypeSpellings& spellings_of(FieldType type) {
  for (const auto& row : kSpellings) {
    if (row.type == type) return row;
  }
  return kSpellings[4];  // unreachable: every FieldType has a row
}

// The name with the decimal's "(p,s)" where it has one.
std::string spelled(const Field& field, const char* name) {
  if (field.type != FieldType::Decimal) return name;
  return std::string(name) + "(" + std::to_string(field.precision) + "," + std::to_string(field.scale) + ")";
}

}  // namespace

std::string Field::type_text() const { return spelled(*this, spellings_of(type).file); }

std::string Field::duckdb_type() const { return spelled(*this, spellings_of(type).duckdb); }

std::string Field::delta_type() const { return spelled(*this, spellings_of(type).delta); }

std::optional<Field> parse_field_type(const std::string& name, const std::string& type_text) {
  // Spaces and case are forgiven ("Decimal(18, 2)"): they cannot make the type ambiguous.
  std::string text = without_spaces_lower(type_text);
  Field field;
  field.name = name;
  for (const auto& row : kSpellings) {
    if (row.type != FieldType::Decimal && text == row.file) {
      field.type = row.type;
      return field;
    }
  }
  if (!text.starts_with("decimal(") || !text.ends_with(")")) return std::nullopt;
  std::string_view inside(text);
  inside = inside.substr(8, inside.size() - 9);
  size_t pos = 0;
  auto precision = read_small_number(inside, pos);
  if (!precision || pos >= inside.size() || inside[pos] != ',') return std::nullopt;
  ++pos;
  auto scale = read_small_number(inside, pos);
  if (!scale || pos != inside.size()) return std::nullopt;
  // Parquet and Delta (like Spark) cap decimals at 38 digits.
  if (*precision < 1 || *precision > 38 || *scale > *precision) return std::nullopt;
  field.type = FieldType::Decimal;
  field.precision = *precision;
  field.scale = *scale;
  return field;
}

const Field* Schema::find(const std::string& name) const {
  for (const auto& field : fields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

}  // namespace lakestream
