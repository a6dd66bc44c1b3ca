#include "core/hpa/spec.h"

#include <algorithm>

namespace trimtab::core::hpa {

bool MetricSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& [key, value] : match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const LabelSelectorRequirement& r : match_expressions) {
    auto it = labels.find(r.key);
    const bool present = it != labels.end();
    const bool in_values =
        present && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    if (r.op == "In" && !in_values) return false;
    if (r.op == "NotIn" && in_values) return false;
    if (r.op == "Exists" && !present) return false;
    if (r.op == "DoesNotExist" && present) return false;
  }
  return true;
}

std::string FormatSelectorLikeGo(const std::optional<MetricSelector>& selector) {
  if (!selector) return "nil";
  std::string labels = "map[string]string{";
  for (const auto& [key, value] : selector->match_labels) labels += key + ": " + value + ",";
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  for (const LabelSelectorRequirement& r : selector->match_expressions) {
    std::string values = "[";
    for (size_t i = 0; i < r.values.size(); ++i) values += (i ? " " : "") + r.values[i];
    values += "]";
    exprs +=
        "LabelSelectorRequirement{Key:" + r.key + ",Operator:" + r.op + ",Values:" + values + ",},";
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

std::string_view MetricSourceTypeName(MetricSourceType type) {
  switch (type) {
    case MetricSourceType::kObject:
      return "Object";
    case MetricSourceType::kPods:
      return "Pods";
    case MetricSourceType::kResource:
      return "Resource";
    case MetricSourceType::kContainerResource:
      return "ContainerResource";
    case MetricSourceType::kExternal:
      return "External";
  }
  return "Resource";
}

std::string_view MetricTargetTypeName(MetricTargetType type) {
  switch (type) {
    case MetricTargetType::kUtilization:
      return "Utilization";
    case MetricTargetType::kValue:
      return "Value";
    case MetricTargetType::kAverageValue:
      return "AverageValue";
  }
  return "Utilization";
}

std::string_view ScalingPolicyTypeName(ScalingPolicyType type) {
  return type == ScalingPolicyType::kPods ? "Pods" : "Percent";
}

std::string_view SelectPolicyName(SelectPolicy policy) {
  switch (policy) {
    case SelectPolicy::kMax:
      return "Max";
    case SelectPolicy::kMin:
      return "Min";
    case SelectPolicy::kDisabled:
      return "Disabled";
  }
  return "Max";
}

bool HpaSpec::HasObjectOrExternalMetric() const {
  return std::any_of(metrics.begin(), metrics.end(), [](const MetricSpec& m) {
    return m.type == MetricSourceType::kObject || m.type == MetricSourceType::kExternal;
  });
}

namespace {

ResolvedRules Overlay(ResolvedRules defaults, const std::optional<ScalingRules>& rules) {
  if (!rules) return defaults;
  if (rules->stabilization_window_seconds) {
    defaults.stabilization_window_seconds = rules->stabilization_window_seconds;
  }
  if (rules->select_policy) defaults.select_policy = *rules->select_policy;
  if (rules->policies) defaults.policies = *rules->policies;
  if (rules->tolerance) defaults.tolerance = rules->tolerance;
  return defaults;
}

}  // namespace

ResolvedRules DefaultedScaleUpRules(const std::optional<ScalingRules>& rules) {
  ResolvedRules d;
  d.stabilization_window_seconds = 0;
  d.select_policy = SelectPolicy::kMax;
  d.policies = {{ScalingPolicyType::kPods, 4, 15}, {ScalingPolicyType::kPercent, 100, 15}};
  return Overlay(std::move(d), rules);
}

ResolvedRules DefaultedScaleDownRules(const std::optional<ScalingRules>& rules) {
  ResolvedRules d;
  d.select_policy = SelectPolicy::kMax;
  d.policies = {{ScalingPolicyType::kPercent, 100, 15}};
  return Overlay(std::move(d), rules);
}

std::string MetricDescription(const MetricSpec& spec) {
  switch (spec.type) {
    case MetricSourceType::kResource:
    case MetricSourceType::kContainerResource:
      if (spec.target.average_value) return spec.resource_name + " resource";
      if (spec.type == MetricSourceType::kContainerResource) {
        return spec.resource_name + " container resource utilization (percentage of request)";
      }
      return spec.resource_name + " resource utilization (percentage of request)";
    case MetricSourceType::kPods:
      return "pods metric " + spec.metric.name;
    case MetricSourceType::kObject:
      if (spec.target.type == MetricTargetType::kValue) {
        return spec.described_object.kind + " metric " + spec.metric.name;
      }
      // Upstream reuses the external wording for Object AverageValue targets.
      return "external metric " + spec.metric.name + "(" +
             FormatSelectorLikeGo(spec.metric.selector) + ")";
    case MetricSourceType::kExternal:
      return "external metric " + spec.metric.name + "(" +
             FormatSelectorLikeGo(spec.metric.selector) + ")";
  }
  return "";
}

}  // namespace trimtab::core::hpa
