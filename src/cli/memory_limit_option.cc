#include "cli/memory_limit_option.h"

#include "util/byte_size.h"
#include "util/error.h"

namespace lakestream::cli {

std::shared_ptr<std::string> add_memory_limit_option(CLI::App* cmd) {
  auto text = std::make_shared<std::string>();
  cmd->add_option("--memory-limit", *text,
                  "the most memory its queries take before they spill to $TMPDIR (default: a quarter of RAM): "
                  "4GiB, 512MiB, ...");
  return text;
}

int64_t memory_limit_bytes(const std::string& text) {
  if (text.empty()) return 0;
  auto bytes = parse_byte_size(text);
  if (!bytes) throw Error("--memory-limit " + text + ": give a size, as in 4GiB or 512MiB");
  return *bytes;
}

}  // namespace lakestream::cli
