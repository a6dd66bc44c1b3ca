#include "common/feature_gates.h"

#include <vector>

namespace trimtab {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// strconv.ParseBool's accepted spellings.
bool ParseBool(const std::string& v, bool* out) {
  static const std::vector<std::string> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  static const std::vector<std::string> kFalse = {"0", "f", "F", "FALSE", "false", "False"};
  for (const auto& t : kTrue) {
    if (v == t) {
      *out = true;
      return true;
    }
  }
  for (const auto& f : kFalse) {
    if (v == f) {
      *out = false;
      return true;
    }
  }
  return false;
}

}  // namespace

FeatureGates::FeatureGates() { gates_[std::string(kHpaScaleToZero)] = false; }

StatusOr<FeatureGates> FeatureGates::Parse(std::string_view text) {
  FeatureGates out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string item = Trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) {
      if (end == text.size()) break;
      continue;
    }
    size_t eq = item.find('=');
    std::string name = Trim(item.substr(0, eq));
    if (out.gates_.find(name) == out.gates_.end()) {
      return InvalidArgumentError("unrecognized feature gate: " + name);
    }
    if (eq == std::string::npos) return InvalidArgumentError("missing bool value for " + name);
    std::string value = Trim(item.substr(eq + 1));
    bool enabled = false;
    if (!ParseBool(value, &enabled)) {
      return InvalidArgumentError("invalid value of " + name + "=" + value +
                                  ", err: strconv.ParseBool: parsing \"" + value +
                                  "\": invalid syntax");
    }
    out.gates_[name] = enabled;
    if (end == text.size()) break;
  }
  return out;
}

bool FeatureGates::Enabled(std::string_view name) const {
  auto it = gates_.find(name);
  return it != gates_.end() && it->second;
}

void FeatureGates::Set(std::string_view name, bool enabled) { gates_[std::string(name)] = enabled; }

std::string FeatureGates::String() const {
  std::string out;
  for (const auto& [name, on] : gates_) {
    if (!out.empty()) out += ",";
    out += name + "=" + (on ? "true" : "false");
  }
  return out;
}

}  // namespace trimtab
