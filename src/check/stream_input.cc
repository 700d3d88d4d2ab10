#include "check/stream_input.h"

#include "pipeline/change_columns.h"
#include "source/table_source.h"

namespace lakestream {

StreamInput stream_input(sql::Connection& con, const Stream& stream, const delta::Snapshot& source,
                         const delta::TimeRange* range) {
  StreamInput input;
  input.columns = source.metadata.schema;
  if (stream.read == SourceRead::Appends) {
    input.relation = sql::quote_ident(stream.from);
    return input;
  }
  if (stream.read == SourceRead::Changes) input.columns = with_change_columns(input.columns);
  std::string where = "true";
  if (stream.read == SourceRead::Changes && stream.kind == StreamKind::Latest)
    where = std::string(kChangeTypeColumn) + " <> 'update_preimage'";
  if (range && stream.kind == StreamKind::Window) where += " AND " + range->contains_sql(sql::quote_ident(stream.event_time));
  input.relation = sql::quote_ident("__read_by_" + stream.name);
  con.exec("CREATE OR REPLACE TEMP VIEW " + input.relation + " AS SELECT * FROM (" + all_rows_read_sql(source, stream.read) +
           ") WHERE " + where);
  return input;
}

}  // namespace lakestream
