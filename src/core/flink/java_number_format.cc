#include "core/flink/java_number_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

namespace trimtab::core::flink {

std::string FormatJavaDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::string out = std::signbit(v) ? "-" : "";
  if (v == 0) return out + "0.0";
  // Shortest round-trip digits, in scientific form: "d[.ddd]e<exp>".
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::abs(v), std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
  const double a = std::abs(v);
  if (a >= 1e-3 && a < 1e7) {
    if (exp >= 0) {
      const size_t int_len = static_cast<size_t>(exp) + 1;
      if (digits.size() < int_len) digits.append(int_len - digits.size(), '0');
      std::string frac = digits.substr(int_len);
      return out + digits.substr(0, int_len) + "." + (frac.empty() ? "0" : frac);
    }
    return out + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  }
  return out + digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
         std::to_string(exp);
}

std::string FormatJavaFixed(double v, int decimals) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::abs(v), std::chars_format::fixed);
  const std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  const size_t dot = text.find('.');
  std::string whole(text.substr(0, dot));
  std::string frac(dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1));
  const size_t keep = static_cast<size_t>(std::max(0, decimals));
  const bool up = frac.size() > keep && frac[keep] >= '5';
  frac.resize(keep, '0');
  if (up) {
    // Carry through the kept digits, then the whole part.
    std::string digits = whole + frac;
    int i = static_cast<int>(digits.size()) - 1;
    while (i >= 0 && digits[static_cast<size_t>(i)] == '9') digits[static_cast<size_t>(i--)] = '0';
    if (i < 0) {
      digits.insert(digits.begin(), '1');
    } else {
      ++digits[static_cast<size_t>(i)];
    }
    whole = digits.substr(0, digits.size() - keep);
    frac = digits.substr(digits.size() - keep);
  }
  return (std::signbit(v) ? "-" : "") + whole + (keep > 0 ? "." + frac : "");
}

}  // namespace trimtab::core::flink
