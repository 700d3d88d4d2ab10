#include "check/iceberg_view.h"

#include <nlohmann/json.hpp>

#include "check/check_wording.h"
#include "table/iceberg_metadata.h"
#include "table/table_files.h"

namespace lakestream {

std::vector<CheckLine> check_iceberg_view(const std::string& table, const delta::Snapshot& snapshot) {
  if (!snapshot.exists() || !delta::iceberg_enabled(snapshot.metadata)) return {};
  std::vector<CheckLine> lines;
  auto add = [&](const std::string& verdict, const std::string& text) { lines.push_back(check_line(verdict, text)); };
  auto described = delta::iceberg_metadata_version(snapshot.table);
  if (!described || *described < snapshot.version) {
    add("note", table + "'s Iceberg view is " +
                    (described ? "of version " + std::to_string(*described) : std::string("not written yet")) +
                    ", the table is at version " + std::to_string(snapshot.version) +
                    " (a run stopped between a commit and its view): the next commit or lakestream run writes it");
    return lines;
  }
  const std::string n = std::to_string(*described + 1);
  auto text = delta::read_table_file(snapshot.table, "metadata/v" + n + ".metadata.json");
  nlohmann::json view = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!view.is_object()) {
    add("PROBLEM", table + "'s Iceberg view v" + n + ".metadata.json, which version-hint.text names, is missing or not JSON; " +
                       "the next commit or lakestream run writes it again");
    return lines;
  }
  int64_t files = static_cast<int64_t>(snapshot.files.size()), rows = 0;
  for (const auto& file : snapshot.files) rows += file.live_rows().value_or(0);
  const nlohmann::json* summary = nullptr;
  if (view.contains("snapshots") && view["snapshots"].is_array())
    for (const auto& s : view["snapshots"])
      if (s.value("snapshot-id", int64_t{-1}) == view.value("current-snapshot-id", int64_t{-2}) && s.contains("summary"))
        summary = &s["summary"];
  auto number = [&](const char* key) -> int64_t {
    if (!summary || !summary->contains(key)) return -1;
    try {
      return std::stoll((*summary)[key].get<std::string>());
    } catch (const std::exception&) {
      return -1;
    }
  };
  const std::string converted = view.value("properties", nlohmann::json::object()).value("converted_delta_version", "");
  if (converted != std::to_string(snapshot.version) || number("total-data-files") != files || number("total-records") != rows) {
    add("PROBLEM", table + "'s Iceberg view v" + n + " says version " + converted + " with " +
                       count_of(number("total-data-files"), "files") + " and " + count_of(number("total-records"), "rows") +
                       "; the table's version " + std::to_string(snapshot.version) + " has " + count_of(files, "files") + " and " +
                       count_of(rows, "rows") + ". Iceberg readers read other rows than Delta readers");
    return lines;
  }
  add("ok", table + "'s Iceberg view (v" + n + ") is of its newest version: " + count_of(files, "files") + ", " +
                count_of(rows, "rows"));
  return lines;
}

}  // namespace lakestream
