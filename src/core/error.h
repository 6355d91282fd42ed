// User errors versus internal bugs.
//
// A UserError is something the user can fix (a bad spec, a missing file, an
// impossible tiling). It carries the place (file, line, field) and what was
// expected; the CLI prints it on one line and exits non-zero.
// Internal invariants use FSGEN_ASSERT, which aborts: they are bugs, not input.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fsgen {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

// "place: message" where place is e.g. "spec.yaml:12:5: field 'arrays.a.tiling.m'".
[[noreturn]] inline void fail(const std::string& place, const std::string& message) {
  throw UserError(place.empty() ? message : place + ": " + message);
}

// An address as errors name it: "0x1f000".
inline std::string hex_address(uint64_t addr) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(addr));
  return text;
}

}  // namespace fsgen

#define FSGEN_ASSERT(cond, msg)                                                      \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "fsgen internal error: %s (%s:%d): %s\n", #cond, __FILE__, \
                   __LINE__, msg);                                                   \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)
