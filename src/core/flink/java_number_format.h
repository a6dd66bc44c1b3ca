// Numbers as upstream's Java code prints them, for the texts trimtab must reproduce exactly
// (event messages and their deduplication keys).
//
//   FormatJavaDouble(90)         -> "90.0"     (Double.toString: String.format "%s" of a double)
//   FormatJavaFixed(714.285, 2)  -> "714.29"   (String.format "%.2f"; printf gives "714.28")
//
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace trimtab::core::flink {

// Java's Double.toString: the shortest digits that read back as the same double, plain with at
// least one decimal for 1e-3 <= |v| < 1e7 ("90.0", "-5.25", "0.001"), otherwise scientific
// ("1.0E7", "1.234E-5"); "NaN", "Infinity", "-Infinity", "-0.0".
std::string FormatJavaDouble(double v);

// Java's String.format("%.<decimals>f"): the shortest digits of the double rounded half up at
// `decimals` ("0.13" for 0.125, where printf gives "0.12"); the sign is kept ("-0.00"); "NaN",
// "Infinity", "-Infinity".
std::string FormatJavaFixed(double v, int decimals);

}  // namespace trimtab::core::flink
