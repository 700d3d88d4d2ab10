// The checkpoint lock: one run at a time owns a stream, and the one turned away is told which
// process holds it, also when the lock file still holds a longer text from an earlier run (the
// file is written over, not truncated).
#include <gtest/gtest.h>

#include <unistd.h>

#include "checkpoint/checkpoint.h"
#include "support/test_support.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

TEST(CheckpointLock, ASecondOwnerIsToldTheHoldersPid) {
  TempDir dir;
  write_file_atomic(dir / "p.toml",
                    "[kafka]\nbootstrap = \"127.0.0.1:9\"\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n"
                    "[sources.orders]\ntopic = \"orders\"\n[sources.orders.schema]\nid = \"bigint\"\n"
                    "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n");
  Pipeline pipeline = load_pipeline(dir / "p.toml");
  const Stream& stream = *pipeline.find_stream("read_orders");
  { Checkpoint first_run(pipeline, stream); }  // makes the checkpoint and its lock file
  write_file_atomic(pipeline.checkpoint_path("read_orders") + "/lock", "123456789012\nleft by an earlier run\n");

  Checkpoint owner(pipeline, stream);
  std::string message;
  try {
    Checkpoint second(pipeline, stream);
  } catch (const StreamBusy& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("stream read_orders is already running (pid " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace lakestream::testing
