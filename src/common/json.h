// JSON helpers on nlohmann-json: strict field readers that produce errors naming the field path
// ("spec.behavior.scaleUp.policies[1].periodSeconds: must be greater than 0"), and YAML <-> JSON
// conversion on yaml-cpp.
//
// The decoders of every input format (eval documents, scenarios, resources) use JsonReader so
// that unknown fields, wrong types and invalid values are reported the same way everywhere.
//
// Usage:
//   JsonReader r(doc, "spec");
//   int64_t min = 1;
//   TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("minReplicas", &min));
//   TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("maxReplicas", &max));
//   TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
//
// Thread-safety: JsonReader is not shared between threads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status.h"

namespace trimtab {

using Json = nlohmann::json;

// The deepest nesting of arrays and objects any decoder accepts (kube-apiserver's JSON decoder
// stops at the same depth). Everything that walks a decoded document recursively (copies,
// validation, patches, dump) is sized for this depth; deeper input is an error, never a crash.
inline constexpr int kMaxJsonDepth = 10000;

struct JsonParseOptions {
  int max_depth = kMaxJsonDepth;
  // When set, receives the field path of every key repeated within one object
  // ("metadata.name", "spec.containers[0].image"); the last value wins, as in Go's decoder.
  std::vector<std::string>* duplicate_fields = nullptr;
};

// Parses JSON text (RFC 8259; strings must be valid UTF-8, numbers finite). The error names
// `what` (a file name or "request body") and the position. The parser is iterative: depth costs
// no stack, and nesting deeper than options.max_depth is an error naming the limit.
StatusOr<Json> ParseJson(std::string_view text, std::string_view what,
                         const JsonParseOptions& options = {});
// Parses YAML (a single document; JSON is YAML too) into the JSON data model. Scalars keep their
// YAML type: plain `true`/`false`, integers and floats become JSON booleans and numbers, quoted
// scalars stay strings. Bounded: nesting at most 2,000 levels (yaml-cpp's own parser stops
// there; aliases cannot go deeper either), scalars must be valid UTF-8, non-finite numbers and
// a document whose aliases expand it far beyond its text (a "billion laughs") are errors.
StatusOr<Json> ParseYaml(std::string_view text, std::string_view what);
// Parses every document of a YAML stream ("---" separated); empty documents are skipped.
StatusOr<std::vector<Json>> ParseYamlStream(std::string_view text, std::string_view what);
// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool IsValidUtf8(std::string_view text);
// Writes block-style YAML as kubectl prints it (two-space indents, "- " items). ParseYaml reads
// it back as the same document: strings are plain only when no YAML 1.1 or 1.2 reader could
// take them for another type, otherwise double-quoted with escapes for every character YAML
// may not carry raw.
std::string ToYaml(const Json& value);
// Reads a whole file.
StatusOr<std::string> ReadFile(const std::string& path);

// Joins a path: JoinPath("spec", "minReplicas") = "spec.minReplicas"; JoinPath("a", 3) = "a[3]".
std::string JoinPath(std::string_view parent, std::string_view field);
std::string JoinPath(std::string_view parent, size_t index);

// Reads the fields of one JSON object and remembers which ones it saw, so NoUnknownFields() can
// reject the rest. Every error message starts with the full field path.
class JsonReader {
 public:
  // `object` must outlive the reader. `path` is the object's own path ("" for the root).
  JsonReader(const Json& object, std::string path);

  // OK iff the value is a JSON object (call first; other methods assume it).
  Status ExpectObject() const;

  bool Has(std::string_view field) const;
  const std::string& path() const { return path_; }
  std::string FieldPath(std::string_view field) const { return JoinPath(path_, field); }

  Status RequiredString(std::string_view field, std::string* out);
  Status OptionalString(std::string_view field, std::string* out);
  Status RequiredInt(std::string_view field, int64_t* out);
  Status OptionalInt(std::string_view field, int64_t* out);
  Status OptionalInt(std::string_view field, std::optional<int64_t>* out);
  Status RequiredDouble(std::string_view field, double* out);
  Status OptionalDouble(std::string_view field, double* out);
  Status OptionalDouble(std::string_view field, std::optional<double>* out);
  Status OptionalBool(std::string_view field, bool* out);
  // Enum given as one of `allowed` (exact, case-sensitive as Kubernetes does).
  Status OptionalEnum(std::string_view field, const std::vector<std::string_view>& allowed,
                      std::string* out);
  // Returns the raw member (or nullptr when absent) and marks it seen.
  const Json* Get(std::string_view field);
  // Marks a field as known without reading it.
  void Ignore(std::string_view field) { seen_.insert(std::string(field)); }

  // Fails naming the first field that no method above read.
  Status NoUnknownFields() const;

 private:
  const Json& object_;
  std::string path_;
  std::set<std::string, std::less<>> seen_;
};

// Short human name of a JSON value's type ("string", "number", "object", ...).
std::string_view JsonTypeName(const Json& value);

}  // namespace trimtab
