#include "util/shared_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "util/error.h"

namespace lakestream {

void* SharedLibrary::function(const char* name) {
  std::call_once(once_, [this] {
    handle_ = ::dlopen(file_, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) std::snprintf(failure_, sizeof failure_, "%s", ::dlerror());
  });
  if (!handle_) throw Error(std::string("cannot load ") + file_ + ": " + failure_ + "; " + if_missing_);
  void* function = ::dlsym(handle_, name);
  if (!function) throw Error(std::string(file_) + " has no function " + name + "; " + if_missing_);
  return function;
}

}  // namespace lakestream
