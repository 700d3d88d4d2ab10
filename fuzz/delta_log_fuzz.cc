// libFuzzer target: the Delta log reader on arbitrary commit file text. Any input must either
// parse or throw lakestream::Error naming the file; anything else (a crash, another exception,
// a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "table/delta_log_json.h"
#include "table/table_features.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    lakestream::delta::LogActions actions = lakestream::delta::parse_commit_text(text, "fuzz.json");
    if (actions.protocol)
      lakestream::delta::check_readable(*actions.protocol, actions.metadata.value_or(lakestream::delta::Metadata{}), "fuzz");
  } catch (const lakestream::Error&) {
    // A clear refusal is the expected outcome for a bad log.
  }
  return 0;
}
