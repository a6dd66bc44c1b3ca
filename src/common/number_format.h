// Numbers as fixed-point text, as printf's "%.Nf" writes them.
//
// Decision logs, events and plugin verdicts format a handful of numbers on every autoscaler cycle;
// std::to_chars gives printf's digits (correctly rounded, "inf" / "nan" alike) without parsing a
// format string or consulting the locale.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace trimtab {

// printf("%.*f", decimals, v). REQUIRES: 0 <= decimals <= 17.
std::string FormatFixed(double v, int decimals);

}  // namespace trimtab
