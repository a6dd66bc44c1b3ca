#include "common/quantity.h"

#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace trimtab {
namespace {

using Int128 = __int128;
using Uint128 = unsigned __int128;

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
// Largest magnitude (in units of 10^-9) a parsed inf.Dec-form quantity may have here.
constexpr Uint128 kMaxNanoMagnitude =
    static_cast<Uint128>(1000000000000000000ULL) * static_cast<Uint128>(1000000000000000000ULL);

constexpr std::string_view kFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kSuffix = "unable to parse quantity's suffix";

Status QuantityError(std::string_view text, std::string_view why) {
  return InvalidArgumentError("quantity \"" + std::string(text) + "\": " + std::string(why));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// 10^n as an unsigned 128-bit integer; REQUIRES: n <= 38.
Uint128 Pow10U(int n) {
  Uint128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

bool MulOverflow(Uint128 a, Uint128 b, Uint128* out) { return __builtin_mul_overflow(a, b, out); }

std::string U128ToString(Uint128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

Uint128 Magnitude(Int128 v) {
  return v < 0 ? static_cast<Uint128>(-(v + 1)) + 1 : static_cast<Uint128>(v);
}

int DigitCount(Uint128 v) {
  int n = 0;
  do {
    ++n;
    v /= 10;
  } while (v > 0);
  return n;
}

// The pieces of a quantity string, as upstream parseQuantityString splits them.
struct QuantityParts {
  bool positive = true;
  std::string_view num;     // integer digits without leading zeros ("0" if none)
  std::string_view denom;   // fractional digits
  std::string_view suffix;  // everything after the number
};

bool SplitQuantity(std::string_view s, QuantityParts* p) {
  size_t pos = 0;
  const size_t end = s.size();
  if (pos < end) {
    if (s[0] == '-') {
      p->positive = false;
      ++pos;
    } else if (s[0] == '+') {
      ++pos;
    }
  }
  // Leading zeros.
  while (true) {
    if (pos >= end) {
      p->num = "0";
      return true;
    }
    if (s[pos] != '0') break;
    ++pos;
  }
  // Integer part.
  size_t i = pos;
  while (i < end && IsDigit(s[i])) ++i;
  p->num = s.substr(pos, i - pos);
  pos = i;
  if (pos >= end) {
    if (p->num.empty()) p->num = "0";
    return true;
  }
  if (p->num.empty()) p->num = "0";
  // Fractional part.
  if (s[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && IsDigit(s[i])) ++i;
    p->denom = s.substr(pos, i - pos);
    pos = i;
    if (pos >= end) return true;
  }
  // Suffix: letters, an optional sign, digits.
  const size_t suffix_start = pos;
  static constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  if (pos < end) return false;
  p->suffix = s.substr(suffix_start);
  return true;
}

struct SuffixInfo {
  int base = 10;
  int64_t exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

// Go strconv.ParseInt(s, 10, 64) semantics.
bool ParseGoInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  bool negative = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    i = 1;
  }
  if (i >= s.size()) return false;
  Uint128 v = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return false;
    v = v * 10 + static_cast<Uint128>(s[i] - '0');
    if (v > static_cast<Uint128>(kMaxInt64) + 1) return false;
  }
  if (!negative && v > static_cast<Uint128>(kMaxInt64)) return false;
  *out = negative ? static_cast<int64_t>(-static_cast<Int128>(v)) : static_cast<int64_t>(v);
  return true;
}

bool InterpretSuffix(std::string_view s, SuffixInfo* info) {
  struct Entry {
    std::string_view suffix;
    int base;
    int exponent;
    Quantity::Format format;
  };
  static constexpr std::array<Entry, 16> kTable = {{
      {"", 10, 0, Quantity::Format::kDecimalSI},
      {"n", 10, -9, Quantity::Format::kDecimalSI},
      {"u", 10, -6, Quantity::Format::kDecimalSI},
      {"m", 10, -3, Quantity::Format::kDecimalSI},
      {"k", 10, 3, Quantity::Format::kDecimalSI},
      {"M", 10, 6, Quantity::Format::kDecimalSI},
      {"G", 10, 9, Quantity::Format::kDecimalSI},
      {"T", 10, 12, Quantity::Format::kDecimalSI},
      {"P", 10, 15, Quantity::Format::kDecimalSI},
      {"E", 10, 18, Quantity::Format::kDecimalSI},
      {"Ki", 2, 10, Quantity::Format::kBinarySI},
      {"Mi", 2, 20, Quantity::Format::kBinarySI},
      {"Gi", 2, 30, Quantity::Format::kBinarySI},
      {"Ti", 2, 40, Quantity::Format::kBinarySI},
      {"Pi", 2, 50, Quantity::Format::kBinarySI},
      {"Ei", 2, 60, Quantity::Format::kBinarySI},
  }};
  for (const Entry& e : kTable) {
    if (e.suffix == s) {
      *info = {e.base, e.exponent, e.format};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t exp = 0;
    if (!ParseGoInt64(s.substr(1), &exp)) return false;
    // The exponent becomes an int32 scale that is later negated: keep it in [-MaxInt32, MaxInt32].
    if (exp > kMaxInt32 || exp < -kMaxInt32) return false;
    *info = {10, exp, Quantity::Format::kDecimalExponent};
    return true;
  }
  return false;
}

// Go's math.Pow10, reproduced so float results match bit for bit.
double GoPow10(int64_t n) {
  static constexpr double kTab[32] = {1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07,
                                      1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
                                      1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
  static constexpr double kPos32[10] = {1e00,  1e32,  1e64,  1e96,  1e128,
                                        1e160, 1e192, 1e224, 1e256, 1e288};
  static constexpr double kNeg32[11] = {1e-00,  1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                        1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
  if (n >= 0 && n <= 308) return kPos32[n / 32] * kTab[n % 32];
  if (n < 0 && n >= -323) return kNeg32[(-n) / 32] / kTab[(-n) % 32];
  return n > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// Go's `%` keeps the sign of the dividend, as C++ does.
int64_t GoMod(int64_t a, int64_t b) { return a % b; }

std::string_view DecimalSuffix(int64_t exponent, bool* found) {
  *found = true;
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";
    case -3:
      return "m";
    case 0:
      return "";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    case 18:
      return "E";
    default:
      *found = false;
      return "";
  }
}

// Mantissa and exponent of |value| with the exponent made a multiple of three
// (upstream AsCanonicalBytes): 1.1e5 -> ("110", 3).
void CanonicalDecimal(Uint128 magnitude, int64_t exponent, std::string* digits, int64_t* exp_out) {
  while (magnitude >= 10 && magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  switch (GoMod(exponent, 3)) {
    case 1:
    case -2:
      magnitude *= 10;
      exponent -= 1;
      break;
    case 2:
    case -1:
      magnitude *= 100;
      exponent -= 2;
      break;
    default:
      break;
  }
  *digits = U128ToString(magnitude);
  *exp_out = exponent;
}

}  // namespace

std::string_view QuantityFormatName(Quantity::Format format) {
  switch (format) {
    case Quantity::Format::kDecimalSI:
      return "DecimalSI";
    case Quantity::Format::kBinarySI:
      return "BinarySI";
    case Quantity::Format::kDecimalExponent:
      return "DecimalExponent";
  }
  return "DecimalSI";
}

StatusOr<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return QuantityError(text, kFormatWrong);
  Quantity q;
  if (text == "0") {
    q.cached_ = "0";
    return q;
  }
  QuantityParts parts;
  if (!SplitQuantity(text, &parts)) return QuantityError(text, kFormatWrong);
  SuffixInfo suffix;
  if (!InterpretSuffix(parts.suffix, &suffix)) return QuantityError(text, kSuffix);

  // Fast path: the value fits an int64 at a scale no finer than nano (upstream int64Amount).
  int64_t precision = 0;
  int64_t scale = 0;
  int64_t mantissa = 1;
  const int64_t ndigits = static_cast<int64_t>(parts.num.size() + parts.denom.size());
  if (suffix.format == Format::kBinarySI) {
    if (suffix.exponent >= 0 && parts.denom.empty()) {
      mantissa = int64_t{1} << suffix.exponent;
      precision = 15 - static_cast<int64_t>(parts.num.size()) -
                  static_cast<int32_t>(static_cast<float>(suffix.exponent) * 3 / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = suffix.exponent;
    precision = 18 - ndigits;
  }
  if (precision >= 0) {
    scale -= static_cast<int64_t>(parts.denom.size());
    if (scale >= -9) {
      std::string shifted = std::string(parts.num) + std::string(parts.denom);
      int64_t value = 0;
      if (!ParseGoInt64(shifted, &value)) return QuantityError(text, kNumeric);
      int64_t result = 0;
      if (!__builtin_mul_overflow(value, mantissa, &result)) {
        if (!parts.positive) result = -result;
        q.unscaled_ = result;
        q.exponent_ = static_cast<int32_t>(scale);
        q.format_ = suffix.format;
        bool canonical = false;
        if (suffix.format == Format::kBinarySI) {
          canonical = suffix.exponent % 10 == 0 && (value & 0x07) != 0;
        } else {
          canonical = scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
        }
        if (canonical) q.cached_ = std::string(text);
        return q;
      }
    }
  }

  // Slow path (upstream inf.Dec): exact digits, then rounded up to nano precision. Trailing
  // zeros of the digits go into the scale, so that the canonical form of a parsed value (which
  // may append zeros to reach an exponent that is a multiple of 3) parses again.
  std::string all_digits = std::string(parts.num) + std::string(parts.denom);
  int64_t inf_scale =
      static_cast<int64_t>(parts.denom.size());  // value = magnitude * 10^-inf_scale
  while (all_digits.size() > 1 && all_digits.back() == '0') {
    all_digits.pop_back();
    --inf_scale;
  }
  Uint128 magnitude = 0;
  for (char c : all_digits) {
    if (MulOverflow(magnitude, 10, &magnitude) || magnitude > kMaxNanoMagnitude) {
      return QuantityError(text, "too many significant digits");
    }
    magnitude += static_cast<Uint128>(c - '0');
  }
  if (suffix.base == 10) {
    inf_scale -= suffix.exponent;
  } else if (MulOverflow(magnitude, static_cast<Uint128>(1) << suffix.exponent, &magnitude)) {
    return QuantityError(text, "value too large");
  }
  if (magnitude != 0) {
    if (inf_scale > 9) {
      const int64_t drop = inf_scale - 9;
      if (drop > 38) {
        magnitude = 1;
      } else {
        const Uint128 div = Pow10U(static_cast<int>(drop));
        magnitude = magnitude / div + (magnitude % div != 0 ? 1 : 0);
      }
      inf_scale = 9;
    } else if (inf_scale < 9) {
      // Nano precision, unless that does not fit: a decimal value that large keeps its exact
      // digits at a coarser scale (upstream's inf.Dec holds any size; it is a whole number).
      const int64_t grow = 9 - inf_scale;
      Uint128 grown = 0;
      if (grow <= 38 && !MulOverflow(magnitude, Pow10U(static_cast<int>(grow)), &grown) &&
          grown <= kMaxNanoMagnitude) {
        magnitude = grown;
        inf_scale = 9;
      } else if (suffix.base != 10 || -inf_scale > kMaxInt32) {
        return QuantityError(text, "value too large");
      }
    }
  }
  Format format = suffix.format;
  if (format == Format::kBinarySI) {
    const Uint128 max_allowed = static_cast<Uint128>(kMaxInt64) * Pow10U(9);
    if (magnitude > max_allowed) {
      magnitude = static_cast<Uint128>(kMaxInt64);
      inf_scale = 0;
    }
    if (magnitude != 0 && inf_scale == 9 && magnitude < Pow10U(9)) format = Format::kDecimalSI;
  }
  q.unscaled_ = parts.positive ? static_cast<Int128>(magnitude) : -static_cast<Int128>(magnitude);
  q.exponent_ = magnitude == 0 ? 0 : static_cast<int32_t>(-inf_scale);
  q.dec_form_ = true;
  q.format_ = format;
  return q;
}

Quantity Quantity::FromMilli(int64_t milli, Format format) { return FromScaled(milli, -3, format); }

Quantity Quantity::FromInt(int64_t value, Format format) { return FromScaled(value, 0, format); }

Quantity Quantity::FromScaled(int64_t value, int32_t exponent, Format format) {
  Quantity q;
  q.unscaled_ = value;
  q.exponent_ = exponent;
  q.format_ = format;
  return q;
}

int64_t Quantity::ScaledValue(int32_t exponent) const {
  const int64_t dif = static_cast<int64_t>(exponent) - exponent_;  // digits to drop (>0) or add
  if (!dec_form_) {
    const int64_t v = static_cast<int64_t>(unscaled_);
    if (dif > 0) {
      // Divide, rounding away from zero (upstream negativeScaleInt64).
      if (dif > 18) return v > 0 ? 1 : (v < 0 ? -1 : 0);
      const int64_t div = static_cast<int64_t>(Pow10U(static_cast<int>(dif)));
      const int64_t q = v / div;
      if (v % div == 0) return q;
      return v > 0 ? q + 1 : q - 1;
    }
    // Multiply; upstream returns 0 when the result does not fit. (Zero stays zero: no loop
    // over an exponent of billions.)
    int64_t r = v;
    for (int64_t i = 0; i < -dif && r != 0; ++i) {
      if (__builtin_mul_overflow(r, int64_t{10}, &r)) return 0;
    }
    return r;
  }
  // inf.Dec form: truncate toward zero, then +1 if anything was dropped (upstream scaledValue).
  if (dif == 0) return static_cast<int64_t>(unscaled_);
  if (dif < 0) {
    uint64_t r = static_cast<uint64_t>(static_cast<int64_t>(unscaled_));
    // Wraps like Go int64 multiplication; after 64 factors of 10 (2^64 divides 10^64) the
    // product is 0 and stays 0, so exponents of billions do not loop billions of times.
    for (int64_t i = 0; i < -dif && r != 0; ++i) r *= 10;
    return static_cast<int64_t>(r);
  }
  if (dif > 38) return unscaled_ != 0 ? 1 : 0;  // truncates to 0, then +1
  const Int128 div = static_cast<Int128>(Pow10U(static_cast<int>(dif)));
  const Int128 q = unscaled_ / div;
  const Int128 r = q + (unscaled_ % div != 0 ? 1 : 0);
  return static_cast<int64_t>(static_cast<uint64_t>(r));
}

double Quantity::AsApproximateFloat64() const {
  const double base = static_cast<double>(unscaled_);
  if (exponent_ == 0) return base;
  return base * GoPow10(exponent_);
}

int Quantity::Compare(const Quantity& other) const {
  if (Sign() != other.Sign()) return Sign() < other.Sign() ? -1 : 1;
  if (Sign() == 0) return 0;
  Uint128 a = Magnitude(unscaled_);
  Uint128 b = Magnitude(other.unscaled_);
  int64_t ea = exponent_;
  int64_t eb = other.exponent_;
  int cmp = 0;
  const int64_t order_a = DigitCount(a) + ea;
  const int64_t order_b = DigitCount(b) + eb;
  if (order_a != order_b) {
    cmp = order_a < order_b ? -1 : 1;
  } else {
    // Same order of magnitude: bring both to the smaller exponent (at most ~38 digits apart).
    if (ea > eb) a *= Pow10U(static_cast<int>(ea - eb));
    if (eb > ea) b *= Pow10U(static_cast<int>(eb - ea));
    cmp = a < b ? -1 : (a > b ? 1 : 0);
  }
  return Sign() > 0 ? cmp : -cmp;
}

std::string Quantity::String() const {
  if (IsZero()) return "0";
  if (!cached_.empty()) return cached_;
  const std::string sign = unscaled_ < 0 ? "-" : "";
  const Uint128 magnitude = Magnitude(unscaled_);
  Format format = format_;
  if (format == Format::kBinarySI) {
    // |q| < 1024 or not an integer: shown as DecimalSI to avoid rounding.
    bool integer = true;
    Uint128 int_value = magnitude;
    if (exponent_ < 0) {
      const int64_t drop = -static_cast<int64_t>(exponent_);
      if (drop > 38) {
        integer = false;
      } else {
        const Uint128 div = Pow10U(static_cast<int>(drop));
        integer = magnitude % div == 0;
        int_value = magnitude / div;
      }
    } else if (exponent_ > 0) {
      if (exponent_ > 38 || MulOverflow(magnitude, Pow10U(exponent_), &int_value)) {
        int_value = 0;  // too large to factor here: use the decimal fallback below
      }
    }
    if (!integer || (int_value != 0 && int_value < 1024)) {
      format = Format::kDecimalSI;
    } else if (int_value != 0) {
      int times = 0;
      while (int_value >= 1024 && int_value % 1024 == 0) {
        int_value /= 1024;
        ++times;
      }
      static constexpr std::string_view kBinary[7] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      if (times <= 6) return sign + U128ToString(int_value) + std::string(kBinary[times]);
      format = Format::kDecimalExponent;  // no binary suffix past Ei
    } else {
      format = Format::kDecimalExponent;
    }
  }
  std::string digits;
  int64_t exponent = 0;
  CanonicalDecimal(magnitude, exponent_, &digits, &exponent);
  if (format == Format::kDecimalSI) {
    bool found = false;
    std::string_view suffix = DecimalSuffix(exponent, &found);
    if (found) return sign + digits + std::string(suffix);
  }
  // DecimalExponent, and the DecimalSI fallback beyond "E" / below "n".
  if (exponent == 0) return sign + digits;
  return sign + digits + "e" + std::to_string(exponent);
}

StatusOr<Quantity> QuantityFromJson(const Json& value, std::string_view path) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_number()) {
    text = value.dump();
  } else {
    return InvalidArgumentError(std::string(path) +
                                ": expected a quantity (string or number), got " +
                                std::string(JsonTypeName(value)));
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) return q.status().WithContext(path);
  return q;
}

}  // namespace trimtab
