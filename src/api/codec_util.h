// Helpers shared by the spec and status codecs of src/api (internal to the folder).
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::api::internal {

// Reads the optional string `field` and parses it with `parse` (one of the Parse* functions of
// flink_enums.h). Absent: `out` is left alone. Errors name the field and list the valid values.
template <typename E>
Status ReadEnum(JsonReader& r, std::string_view field, StatusOr<E> (*parse)(std::string_view),
                std::optional<E>* out) {
  std::string text;
  const bool present = r.Has(field);
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString(field, &text));
  if (!present) return Status::Ok();
  StatusOr<E> v = parse(text);
  if (!v.ok()) return InvalidArgumentError(r.FieldPath(field) + ": " + v.status().message());
  *out = *v;
  return Status::Ok();
}

// The same for a field with a default: `out` keeps its value when the field is absent.
template <typename E>
Status ReadEnum(JsonReader& r, std::string_view field, StatusOr<E> (*parse)(std::string_view),
                E* out) {
  std::optional<E> v;
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, field, parse, &v));
  if (v) *out = *v;
  return Status::Ok();
}

}  // namespace trimtab::api::internal
