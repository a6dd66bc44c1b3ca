#include "common/number_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace trimtab {
namespace {

// Exact as doubles.
constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
constexpr uint64_t kPow10Int[] = {1,          10,          100,          1000,         10000,
                                  100000,     1000000,     10000000,     100000000,    1000000000};

// The integer nearest to x (>= 0), when x is below 1e9 and not within 1e-6 of a tie. x is a
// product of one rounding, so it lies within half an ulp (at most 6e-8 below 1e9) of the exact
// product: outside the tie margin both have the same nearest integer, and printf's own rounding
// of the exact value (to even on a tie) cannot differ.
bool NearestAwayFromTie(double x, uint64_t* n) {
  if (!(x < 1e9)) return false;
  const double whole = std::floor(x);
  const double frac = x - whole;
  if (std::abs(frac - 0.5) < 1e-6) return false;
  *n = static_cast<uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
  return true;
}

// Writes n's last `width` decimal digits (zero-padded on the left) at `out`; returns the end.
char* WriteDigits(uint64_t n, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + n % 10);
    n /= 10;
  }
  return out + width;
}

// The number of decimal digits of n (at least 1).
int DigitCount(uint64_t n) {
  int count = 1;
  while (n >= 10) {
    n /= 10;
    ++count;
  }
  return count;
}

}  // namespace

std::string FormatFixed(double v, int decimals) {
  uint64_t n;
  if (decimals <= 9 && NearestAwayFromTie(std::abs(v) * kPow10[decimals], &n)) {
    char buf[32];
    char* end = buf;
    // printf keeps the sign of a negative value that rounds to zero ("-0.00").
    if (std::signbit(v)) *end++ = '-';
    const uint64_t whole = n / kPow10Int[decimals];
    end = WriteDigits(whole, DigitCount(whole), end);
    if (decimals > 0) {
      *end++ = '.';
      end = WriteDigits(n % kPow10Int[decimals], decimals, end);
    }
    return std::string(buf, end);
  }
  // The largest double has 309 integer digits.
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return std::string(buf, r.ptr);
}

std::string FormatGeneral(double v, int precision) {
  // %g writes style f when the exponent X of the value rounded to `precision` digits satisfies
  // -4 <= X < precision. The fast path covers 1e-4 <= |v| < 10^precision; each power of ten
  // compared with below is either exact or a double just above the real power, so a double
  // compares as its exact value would.
  const double a = std::abs(v);
  if (precision <= 9 && a >= 1e-4 && a < kPow10[precision]) {
    constexpr double kDecade[] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2,
                                  1e3,  1e4,  1e5,  1e6,  1e7, 1e8, 1e9};  // [e + 4] = 10^e
    int exponent = -4;  // of a's leading digit
    while (exponent + 1 < precision && a >= kDecade[exponent + 5]) ++exponent;
    // a x 10^(precision - 1 - exponent), as an integer of `precision` digits.
    const int shift = precision - 1 - exponent;  // 0 .. precision + 3
    uint64_t n;
    if (shift <= 9 && NearestAwayFromTie(a * kPow10[shift], &n)) {
      if (n == kPow10Int[precision]) {  // rounded up to the next power of ten
        n /= 10;
        ++exponent;
      }
      if (exponent < precision) {
        char digits[9];
        WriteDigits(n, precision, digits);
        int significant = precision;  // %g drops trailing zeros...
        while (significant > 0 && digits[significant - 1] == '0') --significant;
        char buf[32];
        char* end = buf;
        if (std::signbit(v)) *end++ = '-';
        int next = 0;  // the next digit of `digits` to write
        if (exponent >= 0) {
          for (; next <= exponent; ++next) *end++ = digits[next];
        } else {
          *end++ = '0';
        }
        if (next < significant) {  // ...and the point when no digit follows it
          *end++ = '.';
          for (int zero = exponent + 1; zero < 0; ++zero) *end++ = '0';
          for (; next < significant; ++next) *end++ = digits[next];
        }
        return std::string(buf, end);
      }
    }
  }
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
  return std::string(buf, r.ptr);
}

std::string FormatLogNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // Whole numbers below 10^6 print as integers under %.6g too; the integer path is cheaper.
  // -0 keeps its sign through FormatGeneral.
  if (std::abs(v) < 1e6 && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
    return std::string(buf, r.ptr);
  }
  return FormatGeneral(v, 6);
}

}  // namespace trimtab
