// A shared library loaded on first use (dlopen), not when the process starts, for the libraries
// a run with nothing new never needs (DuckDB, libcurl): loading them costs more than such a run.
// Each function of the library that lakestream calls is defined with LAKESTREAM_FORWARD to call
// the library's own, looked up once.
#pragma once

#include <mutex>

namespace lakestream {

class SharedLibrary {
 public:
  // `file`: found as the linker finds it (the binary's RUNPATH, then the system's paths).
  // `if_missing`: what the user should do when it cannot be loaded.
  constexpr SharedLibrary(const char* file, const char* if_missing) : file_(file), if_missing_(if_missing) {}

  // The library's function `name`, loading the library on the first call. Throws Error with
  // `if_missing` when it cannot be loaded, or when it has no such function.
  void* function(const char* name);

 private:
  const char* file_;
  const char* if_missing_;
  std::once_flag once_;
  void* handle_ = nullptr;
  char failure_[512] = {};  // dlerror()'s text (not a std::string: the object is constant-initialized)
};

}  // namespace lakestream

// ret name(params) { return <the library's name>(args); }, `library` a SharedLibrary&.
#define LAKESTREAM_FORWARD(library, ret, name, params, args)                                \
  ret name params {                                                                         \
    static const auto library_function = reinterpret_cast<ret(*) params>((library).function(#name)); \
    return library_function args;                                                           \
  }
