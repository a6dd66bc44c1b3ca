#include "common/number_format.h"

#include <cstdio>
#include <limits>

#include <gtest/gtest.h>

namespace trimtab {
namespace {

TEST(FormatFixedTest, ReadsAsPrintf) {
  // Ties (binary-exact and not), carries across digits, large, tiny, negative zero, negative,
  // infinite and unknown values.
  const double values[] = {0,      -0.0,   0.5,    1.5,     2.5,     0.125,       0.375,
                           2.675,  9.995,  99.95,  1e15 + 0.5, 1e300, 1e-9,      -0.004,
                           -1.005, 123456.789, std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  for (int decimals : {0, 1, 2, 3}) {
    for (double v : values) {
      char want[400];
      std::snprintf(want, sizeof want, "%.*f", decimals, v);
      EXPECT_EQ(FormatFixed(v, decimals), want) << v << " with " << decimals << " decimals";
    }
  }
}

}  // namespace
}  // namespace trimtab
