#include "util/exit_with_parent.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace lakestream {

void exit_with_parent_if_asked() {
  const char* parent = std::getenv(kExitWithParentVariable);
  if (!parent || !*parent) return;
  pid_t asked = 0;
  try {
    asked = static_cast<pid_t>(std::stol(parent));
  } catch (const std::exception&) {
    return;
  }
  // Not inherited by this process's own children (a child of the step, say a broker, is asked
  // by the step itself if it needs to be).
  unsetenv(kExitWithParentVariable);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  // The parent may have ended between the spawn and the prctl: then no signal comes.
  if (getppid() != asked) raise(SIGTERM);
}

}  // namespace lakestream
