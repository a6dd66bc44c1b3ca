#include "sim/parse_util.h"

#include <chrono>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/duration.h"
#include "common/flink_values.h"

namespace trimtab::sim {

StatusOr<double> ParseSecondsValue(const Json& value, const std::string& path) {
  if (value.is_number()) {
    const double s = value.get<double>();
    if (!std::isfinite(s)) return InvalidArgumentError(path + ": must be a finite number");
    return s;
  }
  if (!value.is_string()) {
    return InvalidArgumentError(path + ": expected a duration (seconds or \"30 s\", \"5 min\", "
                                       "\"1h30m\"), got " + std::string(JsonTypeName(value)));
  }
  const std::string text = value.get<std::string>();
  StatusOr<std::chrono::nanoseconds> d = ParseFlinkDuration(path, text);
  if (!d.ok()) d = ParseGoDuration(text);
  if (!d.ok()) {
    return InvalidArgumentError(path + ": invalid duration \"" + text +
                                "\" (use seconds or \"30 s\", \"5 min\", \"2 d\", \"1h30m\")");
  }
  return std::chrono::duration<double>(*d).count();
}

Status OptionalSeconds(JsonReader& r, std::string_view field, double* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  TRIMTAB_ASSIGN_OR_RETURN(*out, ParseSecondsValue(*v, r.FieldPath(field)));
  return Status::Ok();
}

Status RequiredSeconds(JsonReader& r, std::string_view field, double* out) {
  if (!r.Has(field)) {
    return InvalidArgumentError(r.FieldPath(field) + ": required field is missing");
  }
  return OptionalSeconds(r, field, out);
}

Status CheckPositive(const std::string& path, double value) {
  if (!(value > 0) || !std::isfinite(value)) {
    return InvalidArgumentError(path + ": must be greater than 0");
  }
  return Status::Ok();
}

Status CheckNonNegative(const std::string& path, double value) {
  if (!(value >= 0) || !std::isfinite(value)) {
    return InvalidArgumentError(path + ": must not be negative");
  }
  return Status::Ok();
}

Status CheckRange(const std::string& path, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    return InvalidArgumentError(fmt::format("{}: must be between {} and {}", path, lo, hi));
  }
  return Status::Ok();
}

}  // namespace trimtab::sim
