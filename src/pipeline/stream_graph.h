// The checks that span streams: one writer per table, every `from` written by a stream of the
// file, no dependency cycle, and every column a stream names present in the table it reads.
#pragma once

#include <vector>

#include "pipeline/pipeline.h"
#include "pipeline/toml_section.h"

namespace lakestream {

// `sections[i]` is where `pipeline.streams[i]` is declared (for the error's line and key).
// Throws Error at the offending setting.
void check_stream_graph(const Pipeline& pipeline, const std::vector<TomlSection>& sections);

}  // namespace lakestream
