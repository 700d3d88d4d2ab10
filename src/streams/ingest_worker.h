// An ingest stream run by a worker of a consumer group ([streams.<name>] workers, docs/scale-out.md):
// the partitions the group gives this process, each from where bronze's txn for it stands, in
// micro-batches committed with one txn per partition (sinks/partition_commit.h). No checkpoint
// and no plan: a batch that dies uncommitted is read again by whoever owns the partitions next,
// from the same txns.
#pragma once

#include "streams/stream_context.h"

namespace lakestream {

StreamReport run_ingest_worker(StreamContext& ctx);

}  // namespace lakestream
