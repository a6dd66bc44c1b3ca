#include "common/number_format.h"

#include <charconv>

namespace trimtab {

std::string FormatFixed(double v, int decimals) {
  // The largest double has 309 integer digits.
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return std::string(buf, r.ptr);
}

}  // namespace trimtab
