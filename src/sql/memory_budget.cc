#include "sql/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "util/error.h"

namespace lakestream::sql {

int64_t default_memory_budget() {
  int64_t pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  int64_t quarter = pages > 0 && page > 0 ? pages * page / 4 : 0;
  return std::max<int64_t>(quarter, int64_t{1} << 30);
}

MemoryBudget::MemoryBudget(int64_t bytes) : bytes_(bytes > 0 ? bytes : default_memory_budget()) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/lakestream-spill-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    throw Error("cannot create a folder to spill to under " + pattern.substr(0, pattern.rfind('/')) +
                ": set TMPDIR to a writable folder");
  folder_ = name.data();
}

MemoryBudget::~MemoryBudget() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

void MemoryBudget::apply(Connection& con) const {
  con.exec("SET memory_limit = '" + std::to_string(bytes_) + "B'");
  con.exec("SET temp_directory = " + quote_literal(folder_));
}

}  // namespace lakestream::sql
