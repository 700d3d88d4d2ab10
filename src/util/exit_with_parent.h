// A child of `lakestream bench` ends with the bench: the bench starts each step as a child process
// (a service among them, which runs until told to stop), and a bench killed mid-step must not
// leave that service running, holding its checkpoints' locks and a core.
#pragma once

namespace lakestream {

// The environment variable through which a parent asks its lakestream child to end with it: the
// parent's pid.
inline constexpr const char* kExitWithParentVariable = "LAKESTREAM_EXIT_WITH_PARENT";

// When $LAKESTREAM_EXIT_WITH_PARENT names this process's parent, asks the kernel for a SIGTERM
// (the graceful stop) as that parent ends, however it ends; when the parent is already gone,
// raises it now. Nothing otherwise.
void exit_with_parent_if_asked();

}  // namespace lakestream
