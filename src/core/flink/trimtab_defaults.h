// trimtab's autoscaler defaults: the job.autoscaler.* values the `trimtab` policy is measured
// with (docs/benchmarks.md), in the decision core so that every caller of
// ParseAutoscalerOptions (the operator, the standalone autoscaler, `trimtab eval flink` and the
// simulator) gets the same defaults from one place.
//
// A configuration chooses them with `job.autoscaler.defaults` (or the legacy prefix):
//
//   flink    upstream's default for every option (the default when the key is absent, so an
//            upstream manifest means what it means upstream)
//   trimtab  the values of TrimtabAutoscalerDefaults() for every option the configuration does
//            not set itself, under either prefix or a deprecated alias
//
// The operator puts `job.autoscaler.defaults: trimtab` in its default configuration unless
// started with `--autoscaler-defaults flink` (docs/operator.md), so a job that only sets
// `job.autoscaler.enabled: "true"` is scaled as `trimtab simulate`'s `trimtab` policy scales it.
//
// Usage:
//   std::map<std::string, std::string> conf = WithAutoscalerDefaults(user_conf).value();
//
// Thread-safety: values and pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace trimtab::core::flink {

// Suffix of the option under job.autoscaler. / kubernetes.operator.job.autoscaler.
inline constexpr const char kDefaultsOption[] = "defaults";
inline constexpr const char kDefaultsFlink[] = "flink";
inline constexpr const char kDefaultsTrimtab[] = "trimtab";

enum class AutoscalerDefaults {
  kFlink,    // upstream's defaults
  kTrimtab,  // TrimtabAutoscalerDefaults() under what the configuration sets
};
std::string_view AutoscalerDefaultsName(AutoscalerDefaults d);

// trimtab's values, as full `job.autoscaler.*` keys (without `enabled`, which stays the
// user's choice). Each value's reason and measurement is written beside it in the source.
const std::map<std::string, std::string>& TrimtabAutoscalerDefaults();

// Which defaults `conf` asks for; an unknown value is an error naming the key.
StatusOr<AutoscalerDefaults> ReadAutoscalerDefaults(const std::map<std::string, std::string>& conf);

// `conf` with the chosen defaults filled in: unchanged for kFlink; for kTrimtab every default
// whose option `conf` does not set under either prefix (or a deprecated alias of it) is added,
// except the utilization band (utilization.target / .max / .min, target.utilization.boundary),
// which is added whole or not at all.
StatusOr<std::map<std::string, std::string>> WithAutoscalerDefaults(
    const std::map<std::string, std::string>& conf);

}  // namespace trimtab::core::flink
