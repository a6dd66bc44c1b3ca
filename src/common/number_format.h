// Numbers as text, as printf's "%.Nf" and "%.Ng" write them.
//
// Decision logs, events and plugin verdicts format a few dozen numbers on every autoscaler cycle,
// and the simulator runs a cycle per simulated minute. Both functions give printf's text exactly
// (correctly rounded from the double's binary value, ties to even; "inf" / "nan" alike) without
// parsing a format string or consulting the locale. Everyday magnitudes take an integer fast
// path; the rest, and any value too close to a rounding tie for it, go through std::to_chars.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace trimtab {

// printf("%.*f", decimals, v). REQUIRES: 0 <= decimals <= 17.
std::string FormatFixed(double v, int decimals);

// printf("%.*g", precision, v). REQUIRES: 1 <= precision <= 17.
std::string FormatGeneral(double v, int precision);

// A number for decision logs and events: a whole number below 10^6 in magnitude as an integer,
// anything else as "%.6g" ("0.829167", "3.1e+06"); "NaN", "Infinity" and "-Infinity" as Java
// prints doubles that are not finite.
std::string FormatLogNumber(double v);

}  // namespace trimtab
