// The checkpoint of a table with the v2Checkpoint feature: a top-level file (protocol, metaData,
// txns, domains, checkpointMetadata and one sidecar action per sidecar) and its file actions in
// sidecar files of `_delta_log/_sidecars/` (PROTOCOL.md, "V2 Spec").
//
// Why: a checkpoint carries every tombstone younger than delta.deletedFileRetentionDuration (a
// week), and a service's compactions make one of every small file it wrote: millions in a week,
// each written again by every classic checkpoint (43,000 took 0.7 s). Here the live adds go to a
// sidecar of their own, written anew each time (compaction keeps them few), and the tombstones to
// sidecars that later checkpoints name again unchanged: a checkpoint writes the tombstones of the
// commits since the one before, and merges its newest tombstone sidecars when the newest holds at
// least half as many as the one before it, so a table keeps about log2(tombstones) of them and
// each tombstone is written about log2 times in its week (a binary counter's carries). A sidecar
// whose tombstones have all expired is named no more; one partly expired drops the expired ones
// at its next merge.
//
// lakestream tags its sidecars (`lakestream.content`: `files` or `tombstones`, with their row
// count and newest deletion time) and builds on the checkpoint before only when every sidecar of
// it carries these tags; any other (Spark's, a classic checkpoint) is followed by a whole
// checkpoint in this layout. A tombstone that a later commit undid (its file added again, as a
// RESTORE does) sends the checkpoint back to the whole replay too, so a checkpoint never holds a
// file both added and removed.
//
// The log cleanup (table/vacuum.h) deletes a sidecar once no kept checkpoint can name it: made
// for a checkpoint older than the oldest one kept, not named by that one, and a day old.
#pragma once

#include <cstdint>
#include <string>

#include "table/delta_log_json.h"
#include "table/delta_table.h"

namespace lakestream::delta {

constexpr const char* kSidecarContentTag = "lakestream.content";  // "files" or "tombstones"
constexpr const char* kSidecarRowsTag = "lakestream.rows";
constexpr const char* kSidecarNewestDeletionTag = "lakestream.newestDeletion";  // ms

// Whether `sidecar` is one of lakestream's that holds removes only.
bool holds_only_tombstones(const LogActions::Sidecar& sidecar);

// The sidecar actions of the checkpoint of `live` (a snapshot of a v2Checkpoint table, without its
// tombstones) as JSON lines, after writing and publishing its sidecars; `actions` is set to the
// number of those actions and of their sidecars' rows (for `_last_checkpoint`).
std::string checkpoint_with_sidecars(const Snapshot& live, int64_t& actions);

}  // namespace lakestream::delta
