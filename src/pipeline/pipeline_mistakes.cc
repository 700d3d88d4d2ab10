#include "pipeline/pipeline_mistakes.h"

#include <algorithm>

namespace lakestream {

bool PipelineMistakes::keep(const std::string& key, const std::function<void()>& read) {
  try {
    read();
    return true;
  } catch (const PipelineMistake& e) {
    add(key, e.line(), e.what());
  } catch (const Error& e) {
    add(key, 0, e.what());  // a mistake without a line (e.g. a store's credentials) comes first
  }
  return false;
}

bool PipelineMistakes::read(const std::string& key, const std::function<void()>& read) {
  return !under(key) && keep(key, read);
}

void PipelineMistakes::add(const std::string& key, int line, const std::string& message) {
  for (const auto& kept : mistakes_)
    if (kept.message == message) return;  // one wrong value read by two checks is one mistake
  mistakes_.push_back({key, line, message});
}

bool PipelineMistakes::under(const std::string& key) const {
  return std::any_of(mistakes_.begin(), mistakes_.end(), [&](const Kept& kept) {
    return kept.key == key || (kept.key.size() > key.size() && kept.key.compare(0, key.size(), key) == 0 &&
                               kept.key[key.size()] == '.');
  });
}

std::vector<std::string> PipelineMistakes::messages() const {
  std::vector<Kept> sorted = mistakes_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Kept& a, const Kept& b) { return a.line < b.line; });
  std::vector<std::string> out;
  for (const auto& kept : sorted) out.push_back(kept.message);
  return out;
}

void PipelineMistakes::throw_if_any() const {
  if (mistakes_.empty()) return;
  if (mistakes_.size() == 1) throw Error(mistakes_.front().message);
  std::string all;
  for (const auto& message : messages()) all += message + "\n";
  throw Error(all + std::to_string(mistakes_.size()) + " mistakes in " + file_ + ": fix them all, then run again");
}

}  // namespace lakestream
