// Helpers shared by the fuzz targets: a target gets raw bytes and must never crash, hang or
// leak on any of them; a property that fails (a round trip that changes a document) aborts so
// that libFuzzer records the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace trimtab::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits at the first NUL byte (two documents in one input: a target and a patch, ...).
inline std::pair<std::string_view, std::string_view> SplitAtNul(std::string_view text) {
  const size_t nul = text.find('\0');
  if (nul == std::string_view::npos) return {text, {}};
  return {text.substr(0, nul), text.substr(nul + 1)};
}

// A broken invariant: print it and abort (libFuzzer and the replay driver both report aborts).
[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

}  // namespace trimtab::fuzz
