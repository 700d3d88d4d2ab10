// The checks that span streams: one writer per table, every `from` written by a stream of the
// file, no dependency cycle, and every column a stream names present in the table it reads.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "pipeline/pipeline_mistakes.h"
#include "pipeline/toml_section.h"

namespace lakestream {

// `sections[i]` is where `pipeline.streams[i]` is declared (for the error's line and key). Each
// mistake is kept in `mistakes` at the offending setting; a setting `mistakes` holds already, or
// one that depends on it (a column of a table whose source has a wrong setting), is passed over.
// Returns the tables whose columns, or their types, are not known for that reason.
std::set<std::string> check_stream_graph(const Pipeline& pipeline, const std::vector<TomlSection>& sections,
                                         PipelineMistakes& mistakes);

}  // namespace lakestream
