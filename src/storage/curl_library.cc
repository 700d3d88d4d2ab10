// libcurl is loaded on first use (dlopen), not when the process starts: it brings some 25 more
// libraries (TLS, Kerberos, LDAP, SSH, IDN), about 4 ms of CPU and 7 ms of wall time at every
// start, and only the object stores and the schema registry need it, never a run on local
// tables with nothing new. The functions of libcurl that lakestream calls are defined here to
// call the library's own, looked up once; one not listed fails to link: add it.
#define CURL_DISABLE_TYPECHECK  // the type-checking macros would rename the definitions below
#include <curl/curl.h>

#include <cstdarg>

#include "util/shared_library.h"

namespace lakestream::storage {
namespace {

constinit SharedLibrary curl_library("libcurl.so.4",
                                     "the object stores and the schema registry need libcurl 7.75 or newer (Debian: apt-get install libcurl4)");

}  // namespace
}  // namespace lakestream::storage

#define FORWARD(ret, name, params, args) LAKESTREAM_FORWARD(lakestream::storage::curl_library, ret, name, params, args)

extern "C" {
FORWARD(CURLcode, curl_global_init, (long flags), (flags))
FORWARD(CURL*, curl_easy_init, (void), ())
FORWARD(void, curl_easy_cleanup, (CURL* curl), (curl))
FORWARD(void, curl_easy_reset, (CURL* curl), (curl))
FORWARD(CURLcode, curl_easy_perform, (CURL* curl), (curl))
FORWARD(const char*, curl_easy_strerror, (CURLcode code), (code))
FORWARD(struct curl_slist*, curl_slist_append, (struct curl_slist* list, const char* text), (list, text))
FORWARD(void, curl_slist_free_all, (struct curl_slist* list), (list))

// The variadic two: an option's number says the type of its one argument (curl.h's CURLOPTTYPE_
// ranges), and every info's argument is a pointer.
CURLcode curl_easy_setopt(CURL* curl, CURLoption option, ...) {
  using Setopt = CURLcode (*)(CURL*, CURLoption, ...);
  static const auto library_function = reinterpret_cast<Setopt>(lakestream::storage::curl_library.function("curl_easy_setopt"));
  va_list ap;
  va_start(ap, option);
  CURLcode rc;
  if (option < CURLOPTTYPE_OBJECTPOINT) rc = library_function(curl, option, va_arg(ap, long));
  else if (option < CURLOPTTYPE_FUNCTIONPOINT) rc = library_function(curl, option, va_arg(ap, void*));
  else if (option < CURLOPTTYPE_OFF_T) rc = library_function(curl, option, va_arg(ap, void (*)()));
  else if (option < CURLOPTTYPE_BLOB) rc = library_function(curl, option, va_arg(ap, curl_off_t));
  else rc = library_function(curl, option, va_arg(ap, void*));
  va_end(ap);
  return rc;
}

CURLcode curl_easy_getinfo(CURL* curl, CURLINFO info, ...) {
  using Getinfo = CURLcode (*)(CURL*, CURLINFO, ...);
  static const auto library_function = reinterpret_cast<Getinfo>(lakestream::storage::curl_library.function("curl_easy_getinfo"));
  va_list ap;
  va_start(ap, info);
  CURLcode rc = library_function(curl, info, va_arg(ap, void*));
  va_end(ap);
  return rc;
}
}
