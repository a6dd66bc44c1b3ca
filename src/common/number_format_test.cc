#include "common/number_format.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace trimtab {
namespace {

std::string Printf(const char* format, int precision, double v) {
  char buf[400];
  std::snprintf(buf, sizeof buf, format, precision, v);
  return buf;
}

// Values where a fast path could go wrong: exact binary ties and near-ties at each position,
// decade boundaries, numbers with few decimals (rates, ratios), random magnitudes, and the
// special values; each also negated.
std::vector<double> TrickyValues() {
  std::vector<double> out = {0,     0.5,    1.5,     2.5,    0.125,  0.375,   2.675,
                             9.995, 99.95,  1e15 + 0.5, 1e300, 1e-9, 0.004, 1.005,
                             123456.789, 999999.5, 99999.95, 9.999995, 0.99999949999,
                             1e-4, 9.99999e-5, 0.1, 0.01, 1e-3, 1e6, 1e9, 999999999.5,
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 20000; ++i) {
    const int decade = static_cast<int>(rng() % 24) - 8;  // 1e-8 .. 1e15
    out.push_back(unit(rng) * std::pow(10.0, decade));
    // A decimal with few digits, as rates and ratios are: 1234.5, 0.0121818, ...
    const double places = std::pow(10.0, static_cast<int>(rng() % 8));
    out.push_back(std::round(unit(rng) * 1e7) / places);
    // Just off a tie at some decimal position, and the double nearest to one.
    const double step = std::pow(10.0, -static_cast<int>(rng() % 7));
    const double tie = (std::floor(unit(rng) * 1e5) + 0.5) * step;
    out.push_back(tie);
    out.push_back(std::nextafter(tie, 0.0));
    out.push_back(std::nextafter(tie, 1e300));
    out.push_back(tie * (1 + 1e-9));
  }
  const size_t n = out.size();
  for (size_t i = 0; i < n; ++i) out.push_back(-out[i]);
  out.push_back(-0.0);
  return out;
}

TEST(FormatFixedTest, ReadsAsPrintf) {
  for (double v : TrickyValues()) {
    for (int decimals : {0, 1, 2, 3, 6, 9, 12}) {
      ASSERT_EQ(FormatFixed(v, decimals), Printf("%.*f", decimals, v))
          << v << " with " << decimals << " decimals";
    }
  }
}

TEST(FormatGeneralTest, ReadsAsPrintf) {
  for (double v : TrickyValues()) {
    for (int precision : {1, 3, 6, 9, 12, 17}) {
      ASSERT_EQ(FormatGeneral(v, precision), Printf("%.*g", precision, v))
          << v << " with precision " << precision;
    }
  }
}

}  // namespace
}  // namespace trimtab
