// Kubernetes label selectors and field selectors.
//
// LabelSelector follows apimachinery `labels.Parse` and `metav1.LabelSelectorAsSelector`:
//   string form     "tier=web,env!=prod,zone in (a,b),app notin (x),canary,!legacy,rank>3"
//   structured form {"matchLabels":{"app":"web"},
//                    "matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}
// Requirements are ANDed. Keys must be qualified names (optional DNS-subdomain prefix + "/" +
// name of at most 63 characters) and values valid label values, with the same error texts the
// apiserver uses. String() is canonical: requirements sorted by key (stable), set values sorted.
//
// FieldSelector follows apimachinery `fields.ParseSelector`: "metadata.name=x,status.phase!=Running"
// with `=`, `==` and `!=`; `\,` `\=` `\\` escape inside values. It matches a flat map of field
// paths to values; a missing field reads as "".
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(LabelSelector sel, LabelSelector::Parse("app=web,tier in (a,b)"));
//   if (sel.Matches(pod_labels)) ...
//
// Thread-safety: immutable values after construction; safe to share.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab {

using LabelMap = std::map<std::string, std::string, std::less<>>;

enum class SelectorOp {
  kEquals,        // key=value: label present with that value
  kDoubleEquals,  // key==value: same as kEquals, kept for String()
  kNotEquals,     // key!=value: label absent or with another value
  kIn,            // key in (a,b): label present with one of the values
  kNotIn,         // key notin (a,b): label absent or with none of the values
  kExists,        // key: label present
  kDoesNotExist,  // !key: label absent
  kGreaterThan,   // key>N: label present, an integer greater than N
  kLessThan,      // key<N: label present, an integer less than N
};

struct LabelRequirement {
  std::string key;
  SelectorOp op = SelectorOp::kExists;
  std::vector<std::string> values;  // sorted, unique; empty for kExists/kDoesNotExist

  bool Matches(const LabelMap& labels) const;
  std::string String() const;
  friend bool operator==(const LabelRequirement&, const LabelRequirement&) = default;
};

// Validates and builds one requirement as apimachinery `labels.NewRequirement` does.
StatusOr<LabelRequirement> MakeLabelRequirement(std::string key, SelectorOp op,
                                                std::vector<std::string> values);

// "" when `key` is a valid qualified name, else the apiserver's explanation.
std::string ValidateQualifiedName(std::string_view key);
// "" when `value` is a valid label value, else the apiserver's explanation.
std::string ValidateLabelValue(std::string_view value);

class LabelSelector {
 public:
  // The selector that matches everything (empty string form).
  LabelSelector() = default;

  // A selector matching nothing (a nil *metav1.LabelSelector).
  static LabelSelector Nothing();
  // Parses the string form; "" is Everything.
  static StatusOr<LabelSelector> Parse(std::string_view text);
  // Converts the structured form; a JSON null is Nothing, {} is Everything.
  static StatusOr<LabelSelector> FromJson(const Json& selector);
  // key=value for every entry (what `metav1.SelectorFromSet` builds).
  static StatusOr<LabelSelector> FromSet(const LabelMap& set);

  bool Matches(const LabelMap& labels) const;
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool IsNothing() const { return nothing_; }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // Canonical string form (what goes into ?labelSelector=). Nothing prints as "<none>" like
  // apimachinery; never send that to a server.
  std::string String() const;

  // Returns a copy with one more requirement (kept in canonical order).
  LabelSelector Add(LabelRequirement requirement) const;

 private:
  bool nothing_ = false;
  std::vector<LabelRequirement> requirements_;  // sorted by key, stable
};

struct FieldRequirement {
  std::string field;
  SelectorOp op = SelectorOp::kEquals;  // kEquals, kDoubleEquals or kNotEquals
  std::string value;
  friend bool operator==(const FieldRequirement&, const FieldRequirement&) = default;
};

using FieldMap = std::map<std::string, std::string, std::less<>>;

class FieldSelector {
 public:
  FieldSelector() = default;  // matches everything

  static StatusOr<FieldSelector> Parse(std::string_view text);

  bool Matches(const FieldMap& fields) const;
  bool Empty() const { return requirements_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  // Canonical string form, values re-escaped, requirements sorted by field (stable).
  std::string String() const;
  // The value required by an `=`/`==` term on `field`, if any (for index lookups such as
  // metadata.name / metadata.namespace).
  const std::string* RequiresExactMatch(std::string_view field) const;

 private:
  std::vector<FieldRequirement> requirements_;
};

}  // namespace trimtab
