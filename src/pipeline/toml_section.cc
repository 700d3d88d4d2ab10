// Reading a pipeline file table with positions: every error names the file, line and key.
#include "pipeline/toml_section.h"

#include <algorithm>
#include <cctype>

#include "pipeline/did_you_mean.h"
#include "pipeline/pipeline_mistakes.h"
#include "util/error.h"

namespace lakestream {
namespace {

bool is_bare_key(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// toml++ lines are 1-based; 0 means "no position" (a table made implicitly by a dotted key).
int line_or(int line, int fallback) { return line > 0 ? line : fallback; }

}  // namespace

std::string dotted_key(const std::string& parent, std::string_view key) {
  std::string part = is_bare_key(key) ? std::string(key) : "\"" + std::string(key) + "\"";
  return parent.empty() ? part : parent + "." + part;
}

void throw_at(const std::string& file, int line, const std::string& key, const std::string& what) {
  throw PipelineMistake(file + ":" + std::to_string(line) + ": " + (key.empty() ? "" : key + ": ") + what, line);
}

std::string toml_type_words(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "nothing";
  }
}

TomlSection::TomlSection(const toml::table& root, const std::string& file)
    : TomlSection(root, "", &file, 1) {}

TomlSection::TomlSection(const toml::table& table, std::string key, const std::string* file, int line)
    : table_(&table), key_(std::move(key)), file_(file), line_(line) {}

const toml::node* TomlSection::value_of(std::string_view name) const { return table_->get(name); }

int TomlSection::line_of(std::string_view name) const {
  auto it = table_->find(name);
  if (it == table_->end()) return line_;
  return line_or(static_cast<int>(it->first.source().begin.line), line_);
}

void TomlSection::fail(std::string_view name, const std::string& what) const {
  throw_at(*file_, line_of(name), key_of(name), what);
}

void TomlSection::fail_here(const std::string& what) const { throw_at(*file_, line_, key_, what); }

void TomlSection::allow_only(const std::vector<std::string>& allowed, PipelineMistakes* mistakes,
                             const std::vector<std::string>& told_already) const {
  std::string list;
  for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
  for (const auto& entry : entries()) {
    if (std::find(allowed.begin(), allowed.end(), entry.name) != allowed.end()) continue;
    if (std::find(told_already.begin(), told_already.end(), entry.name) != told_already.end()) continue;
    std::string message = "unknown key" + did_you_mean(entry.name, allowed) + " (allowed here: " + list + ")";
    if (!mistakes) fail(entry.name, message);
    auto meant = closest_spelling(entry.name, allowed);
    mistakes->keep(meant && !has(*meant) ? key_of(*meant) : key_of(entry.name), [&] { fail(entry.name, message); });
  }
}

std::optional<std::string> TomlSection::string(std::string_view name) const {
  const toml::node* value = value_of(name);
  if (!value) return std::nullopt;
  if (!value->is_string()) fail(name, "must be a string, not " + toml_type_words(*value));
  return value->as_string()->get();
}

std::string TomlSection::required_string(std::string_view name, const std::string& how_to_set_it) const {
  auto value = string(name);
  if (!value) fail(name, "missing; " + how_to_set_it);
  if (value->empty()) fail(name, "is empty; " + how_to_set_it);
  return *value;
}

std::optional<int64_t> TomlSection::positive_integer(std::string_view name) const {
  const toml::node* value = value_of(name);
  if (!value) return std::nullopt;
  if (!value->is_integer()) fail(name, "must be a positive integer, not " + toml_type_words(*value));
  int64_t number = value->as_integer()->get();
  if (number <= 0) fail(name, std::to_string(number) + " must be a positive integer (> 0); leave it out for no limit");
  return number;
}

bool TomlSection::is_string(std::string_view name) const {
  const toml::node* value = value_of(name);
  return value && value->is_string();
}

std::optional<bool> TomlSection::boolean(std::string_view name) const {
  const toml::node* value = value_of(name);
  if (!value) return std::nullopt;
  if (!value->is_boolean()) fail(name, "must be true or false (bare, without quotes), not " + toml_type_words(*value));
  return value->as_boolean()->get();
}

std::optional<std::vector<std::string>> TomlSection::string_list(std::string_view name) const {
  const toml::node* value = value_of(name);
  if (!value) return std::nullopt;
  if (value->is_string()) return std::vector<std::string>{value->as_string()->get()};
  if (!value->is_array()) fail(name, "must be an array of strings like [\"a\", \"b\"], not " + toml_type_words(*value));
  std::vector<std::string> items;
  for (const auto& item : *value->as_array()) {
    if (!item.is_string()) fail(name, "must be an array of strings like [\"a\", \"b\"]; it holds " + toml_type_words(item));
    items.push_back(item.as_string()->get());
  }
  return items;
}

std::optional<TomlSection> TomlSection::table(std::string_view name) const {
  auto it = table_->find(name);
  if (it == table_->end()) return std::nullopt;
  if (!it->second.is_table()) fail(name, "must be a table ([" + key_of(name) + "]), not " + toml_type_words(it->second));
  // The header's line ([sources.orders]) is where its keys belong; the key's line is the first
  // mention, which may be a sub-table's header.
  int line = line_or(static_cast<int>(it->second.source().begin.line), line_of(name));
  return TomlSection(*it->second.as_table(), key_of(name), file_, line);
}

TomlSection TomlSection::required_table(std::string_view name, const std::string& how_to_set_it) const {
  auto section = table(name);
  if (!section) fail(name, "missing; " + how_to_set_it);
  return *section;
}

std::vector<TomlSection::Entry> TomlSection::entries() const {
  struct Positioned {
    Entry entry;
    int column;
  };
  std::vector<Positioned> positioned;
  for (const auto& [key, value] : *table_) {
    positioned.push_back({{std::string(key.str()), &value, line_or(static_cast<int>(key.source().begin.line), line_)},
                          static_cast<int>(key.source().begin.column)});
  }
  std::stable_sort(positioned.begin(), positioned.end(), [](const Positioned& a, const Positioned& b) {
    return a.entry.line != b.entry.line ? a.entry.line < b.entry.line : a.column < b.column;
  });
  std::vector<Entry> out;
  for (auto& p : positioned) out.push_back(std::move(p.entry));
  return out;
}

}  // namespace lakestream
