// A [sources.X] section read into a Source: its format (JSON with a schema, or Avro with a schema
// registry), its envelope, and the settings every source has. Each setting is read on its own,
// its mistake kept, so that one run tells every mistake of the section.
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "pipeline/pipeline_mistakes.h"
#include "pipeline/toml_section.h"

namespace lakestream {

// The source `name` declared by `section`. A setting that depends on a wrong one (a key field of
// a schema that is missing) is not checked; a field whose type is wrong is kept, as a string, so
// that what names it elsewhere is not told as a second mistake.
Source read_source(const TomlSection& section, const std::string& name, PipelineMistakes& mistakes);

}  // namespace lakestream
