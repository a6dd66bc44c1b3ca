// FeatureGates: the Kubernetes feature gates `trimtab local` honours, set like kube-apiserver's
// and kube-controller-manager's `--feature-gates` flag ("HPAScaleToZero=true,Foo=false"). Each
// known gate has the default of the Kubernetes version the local cluster reports (v1.32).
//
//   HPAScaleToZero   false   HPAs may have minReplicas 0 (with an Object or External metric) and
//                            scale their target to and from zero
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(FeatureGates gates, FeatureGates::Parse(flag_value));
//   if (gates.Enabled(kHpaScaleToZero)) ...
//
// Thread-safety: a value; const methods are safe for concurrent use.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace trimtab {

inline constexpr std::string_view kHpaScaleToZero = "HPAScaleToZero";

class FeatureGates {
 public:
  // Every known gate at its default.
  FeatureGates();

  // Parses "Name=bool[,Name=bool...]" on top of the defaults ("" keeps them). Errors (as
  // Kubernetes words them): "unrecognized feature gate: Foo", "missing bool value for Foo",
  // "invalid value of Foo=maybe, err: ...".
  static StatusOr<FeatureGates> Parse(std::string_view text);

  // False for unknown names.
  bool Enabled(std::string_view name) const;
  void Set(std::string_view name, bool enabled);
  // "HPAScaleToZero=false" for every known gate, sorted by name.
  std::string String() const;

 private:
  std::map<std::string, bool, std::less<>> gates_;
};

}  // namespace trimtab
