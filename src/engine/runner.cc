#include "engine/runner.h"

#include <algorithm>
#include <cstdio>

#include "sql/duckdb.h"
#include "streams/ingest_stream.h"
#include "streams/latest_stream.h"
#include "streams/window_stream.h"
#include "util/error.h"

namespace lakestream {

namespace {

StreamReport run_one(StreamContext& ctx) {
  switch (ctx.stream.kind) {
    case StreamKind::Ingest: return run_ingest_stream(ctx);
    case StreamKind::Latest: return run_latest_stream(ctx);
    case StreamKind::Window: return run_window_stream(ctx);
  }
  throw Error("internal: unknown stream kind");
}

}  // namespace

std::vector<StreamReport> run_pipeline(const Pipeline& pipeline, const RunOptions& options, std::ostream& out) {
  for (const auto& name : options.streams)
    if (!pipeline.find_stream(name)) {
      std::string known;
      for (const auto& s : pipeline.streams) known += (known.empty() ? "" : ", ") + s.name;
      throw Error("no stream named " + name + " in " + pipeline.path + "; its streams: " + known);
    }
  sql::Database db;
  sql::Connection con(db);
  std::vector<StreamReport> reports;
  for (const Stream* stream : pipeline.in_dependency_order()) {
    if (!options.streams.empty() &&
        std::find(options.streams.begin(), options.streams.end(), stream->name) == options.streams.end())
      continue;
    StreamContext ctx{pipeline, *stream, con};
    if (!options.quiet)
      ctx.on_batch = [&out](const StreamReport& s, const BatchReport& b) { out << format_batch_line(s, b) << "\n" << std::flush; };
    try {
      StreamReport report = run_one(ctx);
      if (!options.quiet && report.batches.empty()) out << stream->name << ": nothing new\n" << std::flush;
      reports.push_back(std::move(report));
    } catch (const Error& e) {
      throw Error("stream " + stream->name + " failed: " + e.what());
    }
  }
  return reports;
}

}  // namespace lakestream
