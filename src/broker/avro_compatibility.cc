// Avro schema resolution, reduced to the question "can it read it", with the reasons when not.
#include "broker/avro_compatibility.h"

#include <map>
#include <set>

#include "util/json_member.h"

namespace lakestream {
namespace {

using json = nlohmann::json;


// The named types (records, enums, fixed) a schema defines, by name and by full name, so that a
// later reference by name finds its definition.
class NamedTypes {
 public:
  explicit NamedTypes(const json& schema) { collect(schema, ""); }

  // `type` with a reference to a named type replaced by its definition.
  const json& resolve(const json& type) const {
    if (!type.is_string()) return type;
    auto it = named_.find(type.get<std::string>());
    return it == named_.end() ? type : *it->second;
  }

 private:
  void collect(const json& type, const std::string& enclosing_namespace) {
    if (type.is_array()) {
      for (const auto& branch : type) collect(branch, enclosing_namespace);
      return;
    }
    if (!type.is_object()) return;
    const json& type_member = json_member(type, "type");
    std::string kind = type_member.is_string() ? type_member.get<std::string>() : "";
    std::string space = type.value("namespace", enclosing_namespace);
    if ((kind == "record" || kind == "error" || kind == "enum" || kind == "fixed") && type.contains("name")) {
      std::string name = type["name"].get<std::string>();
      named_[name] = &type;
      if (!space.empty() && name.find('.') == std::string::npos) named_[space + "." + name] = &type;
    }
    for (const auto& field : json_member(type, "fields")) collect(json_member(field, "type"), space);
    collect(json_member(type, "items"), space);
    collect(json_member(type, "values"), space);
    if (kind != "record" && kind != "enum" && kind != "fixed" && kind != "array" && kind != "map")
      collect(json_member(type, "type"), space);
  }

  std::map<std::string, const json*> named_;
};

// The kind of a resolved type: a primitive's name, "record", "enum", "array", "map", "fixed" or "union".
std::string kind_of(const json& type) {
  if (type.is_array()) return "union";
  if (type.is_string()) return type.get<std::string>();
  if (type.is_object()) {
    const json& inner = json_member(type, "type");
    if (inner.is_string()) {
      std::string kind = inner.get<std::string>();
      return kind == "error" ? "record" : kind;
    }
    return kind_of(inner);
  }
  return "?";
}

// Writer primitives a reader primitive accepts besides itself (Avro's promotions).
bool promotes(const std::string& writer, const std::string& reader) {
  static const std::set<std::pair<std::string, std::string>> promotions = {
      {"int", "long"},    {"int", "float"},   {"int", "double"},  {"long", "float"},
      {"long", "double"}, {"float", "double"}, {"string", "bytes"}, {"bytes", "string"}};
  return promotions.count({writer, reader}) > 0;
}

std::string a_kind(const std::string& kind) {
  bool vowel = !kind.empty() && std::string("aeiou").find(kind[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + kind;
}

class Resolver {
 public:
  Resolver(const json& reader, const json& writer) : reader_names_(reader), writer_names_(writer) {}

  // `path`: the dotted field path of what is checked ("" for the whole schema, "[]" after an
  // array's items, "{}" after a map's values).
  void check(const json& reader_type, const json& writer_type, const std::string& path) {
    std::string where = path.empty() ? "the schema" : "field \"" + path + "\"";
    const json& reader = reader_names_.resolve(reader_type);
    const json& writer = writer_names_.resolve(writer_type);
    std::string rk = kind_of(reader), wk = kind_of(writer);
    if (wk == "union") {
      // Every branch the writer may have written must be readable.
      for (const auto& branch : writer) check(reader, branch, path);
      return;
    }
    if (rk == "union") {
      for (const auto& branch : reader) {
        Resolver trial(*this);
        trial.problems_.clear();
        trial.check(branch, writer, path);
        if (trial.problems_.empty()) return;
      }
      problems_.push_back(where + ": " + a_kind(wk) + " cannot be read as any branch of the union");
      return;
    }
    if (rk != wk && !promotes(wk, rk)) {
      problems_.push_back(where + ": " + a_kind(wk) + " cannot be read as " + a_kind(rk));
      return;
    }
    if (rk == "record") {
      // Guard against recursive types: a pair of records is checked once.
      auto pair = std::make_pair(&reader, &writer);
      if (!visiting_.insert(pair).second) return;
      std::map<std::string, const json*> written;
      for (const auto& field : json_member(writer, "fields")) {
        written[field.value("name", "")] = &field;
        for (const auto& alias : field.value("aliases", json::array())) written[alias.get<std::string>()] = &field;
      }
      for (const auto& field : json_member(reader, "fields")) {
        std::string name = field.value("name", "");
        std::string field_path = (path.empty() ? "" : path + ".") + name;
        const json* match = nullptr;
        if (auto it = written.find(name); it != written.end()) match = it->second;
        for (const auto& alias : field.value("aliases", json::array()))
          if (!match)
            if (auto it = written.find(alias.get<std::string>()); it != written.end()) match = it->second;
        if (match) {
          check(json_member(field, "type"), json_member(*match, "type"), field_path);
        } else if (!field.contains("default")) {
          problems_.push_back("field \"" + field_path +
                              "\" is new and has no default: data written before it has no value for it");
        }
      }
    } else if (rk == "enum") {
      if (reader.contains("default")) return;
      std::set<std::string> symbols;
      for (const auto& s : reader.value("symbols", json::array())) symbols.insert(s.get<std::string>());
      for (const auto& s : writer.value("symbols", json::array()))
        if (!symbols.count(s.get<std::string>()))
          problems_.push_back(where + ": the enum lost the symbol " + s.get<std::string>() + " (and has no default)");
    } else if (rk == "array") {
      check(json_member(reader, "items"), json_member(writer, "items"), path + "[]");
    } else if (rk == "map") {
      check(json_member(reader, "values"), json_member(writer, "values"), path + "{}");
    } else if (rk == "fixed") {
      if (reader.value("size", -1) != writer.value("size", -2))
        problems_.push_back(where + ": a fixed of " + std::to_string(writer.value("size", 0)) +
                            " bytes cannot be read as one of " + std::to_string(reader.value("size", 0)));
    }
  }

  std::vector<std::string> problems_;

 private:
  const NamedTypes reader_names_;
  const NamedTypes writer_names_;
  std::set<std::pair<const json*, const json*>> visiting_;
};

}  // namespace

std::vector<std::string> avro_read_problems(const json& reader, const json& writer) {
  Resolver resolver(reader, writer);
  resolver.check(reader, writer, "");
  return resolver.problems_;
}

}  // namespace lakestream
