// The autoscaling/v2 HorizontalPodAutoscaler spec subset the HPA engine evaluates: metrics of all
// five source types, their targets, and the KEP-853 `behavior` block (with KEP-4951 tolerances).
//
// Field names mirror the Kubernetes API (minReplicas -> min_replicas). Optional fields are
// std::optional so that "unset" stays distinguishable from zero: defaulting (DefaultedRules)
// depends on it exactly as the apiserver's SetDefaults_HorizontalPodAutoscalerBehavior does.
// Decoding and validation live in spec_json.h.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/quantity.h"

namespace trimtab::core::hpa {

// One matchExpressions entry of a metav1.LabelSelector.
struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

// metav1.LabelSelector as used by Pods / Object / External metric identifiers.
struct MetricSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  // True when `labels` satisfy every matchLabels entry and every expression.
  bool Matches(const std::map<std::string, std::string>& labels) const;
};

// The Go `%+v` rendering of a *metav1.LabelSelector ("nil" when absent), which upstream embeds in
// metric descriptions such as "external metric queue(nil)".
std::string FormatSelectorLikeGo(const std::optional<MetricSelector>& selector);

struct CrossVersionObjectReference {
  std::string kind;
  std::string name;
  std::string api_version;
};

struct MetricIdentifier {
  std::string name;
  std::optional<MetricSelector> selector;
};

enum class MetricSourceType { kObject, kPods, kResource, kContainerResource, kExternal };
enum class MetricTargetType { kUtilization, kValue, kAverageValue };

std::string_view MetricSourceTypeName(MetricSourceType type);
std::string_view MetricTargetTypeName(MetricTargetType type);

struct MetricTarget {
  MetricTargetType type = MetricTargetType::kUtilization;
  std::optional<Quantity> value;
  std::optional<Quantity> average_value;
  std::optional<int32_t> average_utilization;  // percent of request
};

// One entry of spec.metrics, flattened: only the members of `type` are meaningful.
struct MetricSpec {
  MetricSourceType type = MetricSourceType::kResource;
  std::string resource_name;  // Resource, ContainerResource: "cpu", "memory", ...
  std::string container;      // ContainerResource
  MetricIdentifier metric;    // Pods, Object, External
  CrossVersionObjectReference described_object;  // Object
  MetricTarget target;
};

enum class ScalingPolicyType { kPods, kPercent };
enum class SelectPolicy { kMax, kMin, kDisabled };

std::string_view ScalingPolicyTypeName(ScalingPolicyType type);
std::string_view SelectPolicyName(SelectPolicy policy);

struct ScalingPolicy {
  ScalingPolicyType type = ScalingPolicyType::kPods;
  int32_t value = 0;
  int32_t period_seconds = 0;
};

// behavior.scaleUp / behavior.scaleDown as written; unset fields are filled by DefaultedRules.
struct ScalingRules {
  std::optional<int32_t> stabilization_window_seconds;
  std::optional<SelectPolicy> select_policy;
  std::optional<std::vector<ScalingPolicy>> policies;
  std::optional<Quantity> tolerance;
};

struct Behavior {
  std::optional<ScalingRules> scale_up;
  std::optional<ScalingRules> scale_down;
};

struct HpaSpec {
  CrossVersionObjectReference scale_target_ref;
  std::optional<int32_t> min_replicas;  // default 1
  int32_t max_replicas = 0;
  std::vector<MetricSpec> metrics;   // decoded specs default an empty list to cpu at 80%
  std::optional<Behavior> behavior;  // unset: the legacy (pre-KEP-853) normalization

  int32_t MinReplicasOrDefault() const { return min_replicas.value_or(1); }
  // True when some metric is of type Object or External (required for minReplicas 0).
  bool HasObjectOrExternalMetric() const;
};

// Scaling rules after apiserver defaulting, with every field set except that the scale-down
// stabilization window may stay unset (the controller then uses its own flag, 300 s default).
struct ResolvedRules {
  std::optional<int32_t> stabilization_window_seconds;
  SelectPolicy select_policy = SelectPolicy::kMax;
  std::vector<ScalingPolicy> policies;
  std::optional<Quantity> tolerance;
};

// Defaults: scaleUp {window 0, Max, [Pods 4/15s, Percent 100/15s]};
//           scaleDown {window unset, Max, [Percent 100/15s]}; given fields override each default
// and a given policy list replaces the default list.
ResolvedRules DefaultedScaleUpRules(const std::optional<ScalingRules>& rules);
ResolvedRules DefaultedScaleDownRules(const std::optional<ScalingRules>& rules);

// The replica calculator's description of a metric, as it appears in conditions and events:
// "cpu resource utilization (percentage of request)", "pods metric qps",
// "Service metric rps", "external metric queue(nil)", ...
std::string MetricDescription(const MetricSpec& spec);

}  // namespace trimtab::core::hpa
