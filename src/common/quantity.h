// Quantity: the Kubernetes `resource.Quantity` fixed-point number ("500m", "1.5Gi", "1e3").
//
// Parsing, comparison, MilliValue() and String() follow apimachinery's pkg/api/resource exactly,
// including its quirks, because HPA decisions depend on them:
//   * values are rounded up (away from zero) to nano precision on parse ("0.1n" -> "1n");
//   * BinarySI quantities are capped at 2^63-1;
//   * MilliValue() rounds up (ceil(q * 1000)); on overflow it returns what upstream returns;
//   * String() is the canonical form: "1.5" -> "1500m", "1024Mi" -> "1Gi", "1000Mi" stays
//     "1000Mi"; a string already in canonical form is returned as written ("1e3" stays "1e3").
//
// The number is held as (unscaled, exponent) in a 128-bit integer, like upstream's int64Amount /
// inf.Dec pair. Unlike upstream (arbitrary precision) values whose magnitude would need more
// than 36 significant digits after parsing are rejected with InvalidArgument.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(Quantity q, Quantity::Parse("250m"));
//   int64_t milli = q.MilliValue();          // 250
//   std::string s = Quantity::FromMilli(1500).String();  // "1500m"
//
// Thread-safety: a value type; const methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/status.h"

namespace trimtab {

class Quantity {
 public:
  // How String() renders the number (upstream resource.Format).
  enum class Format {
    kDecimalSI,        // 12M, 500m
    kBinarySI,         // 12Mi
    kDecimalExponent,  // 12e6
  };

  // Zero, DecimalSI.
  Quantity() = default;

  // Parses the Kubernetes quantity grammar: [+-]digits[.digits][suffix], suffix one of
  // n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, or e<int>/E<int>. No surrounding whitespace.
  static StatusOr<Quantity> Parse(std::string_view text);
  // resource.NewMilliQuantity(milli, format).
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);
  // resource.NewQuantity(value, format).
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI);
  // value * 10^exponent in the given format (upstream's test helper shape).
  static Quantity FromScaled(int64_t value, int32_t exponent, Format format);

  // ceil(q * 1000) with upstream's rounding and overflow behaviour.
  int64_t MilliValue() const { return ScaledValue(-3); }
  // The value rounded up (away from zero) to an integer.
  int64_t Value() const { return ScaledValue(0); }
  // ceil(q / 10^exponent) as upstream ScaledValue(Scale(exponent)).
  int64_t ScaledValue(int32_t exponent) const;
  // unscaled * 10^exponent in float64, as upstream AsApproximateFloat64.
  double AsApproximateFloat64() const;

  int Sign() const { return unscaled_ > 0 ? 1 : (unscaled_ < 0 ? -1 : 0); }
  bool IsZero() const { return unscaled_ == 0; }
  Format format() const { return format_; }

  // -1, 0 or 1 (by value; format is ignored).
  int Compare(const Quantity& other) const;
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }
  friend bool operator<(const Quantity& a, const Quantity& b) { return a.Compare(b) < 0; }

  // Canonical string, as upstream Quantity.String().
  std::string String() const;

 private:
  __int128 unscaled_ = 0;  // value = unscaled_ * 10^exponent_
  int32_t exponent_ = 0;
  bool dec_form_ = false;  // upstream holds the value as inf.Dec (vs int64Amount)
  Format format_ = Format::kDecimalSI;
  std::string cached_;  // the parsed text when upstream would reuse it verbatim
};

std::string_view QuantityFormatName(Quantity::Format format);

// Reads a quantity from JSON: a string ("250m") or a number (250, 0.25). Errors name `path`.
StatusOr<Quantity> QuantityFromJson(const Json& value, std::string_view path);

}  // namespace trimtab
