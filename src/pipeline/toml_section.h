// One table of the pipeline file, read with the checks every table needs: only known keys (with
// a "did you mean"), values of the right type, and errors that point at `file:line: dotted.key`.
// Only the pipeline module sees TOML; the rest of lakestream reads the validated Pipeline.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lakestream {

class PipelineMistakes;

// "streams.hourly_sales" + "window"; keys that are not bare TOML keys are quoted the way the
// file must write them: kafka.properties."sasl.password".
std::string dotted_key(const std::string& parent, std::string_view key);

// Throws PipelineMistake("<file>:<line>: <key>: <what>"), an Error.
[[noreturn]] void throw_at(const std::string& file, int line, const std::string& key, const std::string& what);

// The TOML type of a value in words: "a string", "an integer", "a table", ...
std::string toml_type_words(const toml::node& node);

class TomlSection {
 public:
  // The whole file: `file` is the path as the user gave it, used in every message.
  TomlSection(const toml::table& root, const std::string& file);

  const std::string& key() const { return key_; }  // dotted; "" for the whole file
  int line() const { return line_; }               // where the table starts
  const std::string& file() const { return *file_; }
  // The line of `name` in this table, or this table's line when it is absent (where it belongs).
  int line_of(std::string_view name) const;
  std::string key_of(std::string_view name) const { return dotted_key(key_, name); }
  bool has(std::string_view name) const { return table_->contains(name); }

  // Refuses any key not in `allowed`, naming the closest allowed spelling: the first one thrown,
  // or, given `mistakes`, every one kept there. A misspelled key is kept against the key it
  // likely meant when that one is absent, so that "order_by: missing" is not told as well.
  // Keys in `told_already` (refused by the caller with a better reason) are passed over.
  void allow_only(const std::vector<std::string>& allowed, PipelineMistakes* mistakes = nullptr,
                  const std::vector<std::string>& told_already = {}) const;

  // Typed getters: nullopt when absent, an error naming the key when of another type.
  std::optional<std::string> string(std::string_view name) const;
  // Present and not empty; else "missing; <how_to_set_it>".
  std::string required_string(std::string_view name, const std::string& how_to_set_it) const;
  std::optional<int64_t> positive_integer(std::string_view name) const;
  bool is_string(std::string_view name) const;  // present and a string
  std::optional<bool> boolean(std::string_view name) const;
  // An array of strings; a single string counts as a list of one.
  std::optional<std::vector<std::string>> string_list(std::string_view name) const;
  std::optional<TomlSection> table(std::string_view name) const;
  TomlSection required_table(std::string_view name, const std::string& how_to_set_it) const;

  struct Entry {
    std::string name;
    const toml::node* value;
    int line;
  };
  // Every key of this table in the order the file declares them (toml++ keeps them unordered).
  std::vector<Entry> entries() const;

  [[noreturn]] void fail(std::string_view name, const std::string& what) const;
  [[noreturn]] void fail_here(const std::string& what) const;

 private:
  TomlSection(const toml::table& table, std::string key, const std::string* file, int line);
  const toml::node* value_of(std::string_view name) const;

  const toml::table* table_;
  std::string key_;
  const std::string* file_;  // owned by whoever owns the root section
  int line_;
};

}  // namespace lakestream
