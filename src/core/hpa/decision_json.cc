#include "core/hpa/decision_json.h"

#include <nlohmann/json.hpp>

#include "common/number_format.h"
#include "core/hpa/spec_json.h"

namespace trimtab::core::hpa {
namespace {

Json IdentifierToJson(const MetricIdentifier& id) {
  Json out{{"name", id.name}};
  if (id.selector) out["selector"] = MetricSelectorToJson(*id.selector);
  return out;
}

Json Names(const std::set<std::string>& names) {
  Json out = Json::array();
  for (const auto& n : names) out.push_back(n);
  return out;
}

std::string TargetText(const MetricSpec& spec) {
  const MetricTarget& t = spec.target;
  if (t.average_utilization) return std::to_string(*t.average_utilization) + "% utilization";
  if (t.average_value) return t.average_value->String() + " average";
  if (t.value) return t.value->String() + " total";
  return "?";
}

std::string CurrentText(const MetricProposal& p) {
  if (!p.status) return "?";
  const MetricStatus& s = *p.status;
  if (s.average_utilization) {
    return std::to_string(*s.average_utilization) + "% utilization (" +
           (s.average_value ? s.average_value->String() : "?") + " average)";
  }
  if (s.average_value) return s.average_value->String() + " average";
  if (s.value) return s.value->String() + " total";
  return "?";
}

Json PolicyLimitToJson(const PolicyLimit& l) {
  return Json{{"type", ScalingPolicyTypeName(l.policy.type)},
              {"value", l.policy.value},
              {"periodSeconds", l.policy.period_seconds},
              {"replicasAdded", l.replicas_added},
              {"replicasDeleted", l.replicas_deleted},
              {"periodStart", l.period_start},
              {"limit", l.limit}};
}

}  // namespace

Json MetricStatusToJson(const MetricStatus& s) {
  Json current = Json::object();
  if (s.value) current["value"] = s.value->String();
  if (s.average_value) current["averageValue"] = s.average_value->String();
  if (s.average_utilization) current["averageUtilization"] = *s.average_utilization;
  Json body = Json::object();
  std::string member;
  switch (s.type) {
    case MetricSourceType::kResource:
      member = "resource";
      body["name"] = s.resource_name;
      break;
    case MetricSourceType::kContainerResource:
      member = "containerResource";
      body["name"] = s.resource_name;
      body["container"] = s.container;
      break;
    case MetricSourceType::kPods:
      member = "pods";
      body["metric"] = IdentifierToJson(s.metric);
      break;
    case MetricSourceType::kObject:
      member = "object";
      if (s.described_object) {
        Json ref{{"kind", s.described_object->kind}, {"name", s.described_object->name}};
        if (!s.described_object->api_version.empty()) {
          ref["apiVersion"] = s.described_object->api_version;
        }
        body["describedObject"] = ref;
      }
      body["metric"] = IdentifierToJson(s.metric);
      break;
    case MetricSourceType::kExternal:
      member = "external";
      body["metric"] = IdentifierToJson(s.metric);
      break;
  }
  body["current"] = current;
  return Json{{"type", MetricSourceTypeName(s.type)}, {member, body}};
}

Json DecisionToJson(const HpaDecision& d) {
  Json out;
  out["currentReplicas"] = d.current_replicas;
  out["desiredReplicas"] = d.desired_replicas;
  out["rescale"] = d.rescale;
  if (!d.rescale_reason.empty()) out["rescaleReason"] = d.rescale_reason;
  if (!d.error.empty()) out["error"] = d.error;

  Json metrics = Json::array();
  for (const MetricProposal& p : d.metrics) {
    Json m{
        {"index", p.index}, {"type", MetricSourceTypeName(p.spec.type)}, {"metric", p.description}};
    if (p.ok) {
      m["replicas"] = p.replicas;
      m["timestamp"] = p.timestamp ? Json(FormatRfc3339(*p.timestamp)) : Json(nullptr);
      m["usageRatio"] = p.calc.usage_ratio;
      if (p.calc.rebalanced_ratio) m["rebalancedRatio"] = *p.calc.rebalanced_ratio;
      if (p.status) {
        const Json status = MetricStatusToJson(*p.status);
        for (auto it = status.begin(); it != status.end(); ++it) {
          if (it.key() != "type") m["current"] = (*it)["current"];
        }
      }
      const bool pod_based = p.spec.type == MetricSourceType::kResource ||
                             p.spec.type == MetricSourceType::kContainerResource ||
                             p.spec.type == MetricSourceType::kPods;
      if (pod_based) {
        m["pods"] = Json{{"ready", p.calc.groups.ready_count},
                         {"unready", Names(p.calc.groups.unready)},
                         {"missing", Names(p.calc.groups.missing)},
                         {"ignored", Names(p.calc.groups.ignored)},
                         {"samplesUsed", p.calc.samples_used}};
      }
    } else {
      m["error"] = p.error;
      m["reason"] = p.condition_reason;
    }
    metrics.push_back(m);
  }
  out["metrics"] = metrics;

  const NormalizationTrace& n = d.normalization;
  Json b{{"mode", n.mode}, {"recommendation", n.recommendation}};
  if (n.up_window_seconds) b["upWindowSeconds"] = *n.up_window_seconds;
  if (n.down_window_seconds) b["downWindowSeconds"] = *n.down_window_seconds;
  if (n.up_recommendation) b["upRecommendation"] = *n.up_recommendation;
  if (n.down_recommendation) b["downRecommendation"] = *n.down_recommendation;
  b["stabilized"] = n.stabilized;
  if (!n.stabilization_reason.empty()) b["stabilizationReason"] = n.stabilization_reason;
  if (!n.direction.empty()) b["direction"] = n.direction;
  if (n.select_policy) b["selectPolicy"] = SelectPolicyName(*n.select_policy);
  if (!n.policies.empty()) {
    Json policies = Json::array();
    for (const PolicyLimit& l : n.policies) policies.push_back(PolicyLimitToJson(l));
    b["policies"] = policies;
  }
  if (n.selected_limit) b["selectedLimit"] = *n.selected_limit;
  if (n.rate_limit) b["rateLimit"] = *n.rate_limit;
  if (!n.limit_reason.empty()) {
    b["limitReason"] = n.limit_reason;
    b["limitMessage"] = n.limit_message;
  }
  b["desired"] = n.desired;
  out["behavior"] = b;

  Json conditions = Json::array();
  for (const Condition& c : d.conditions) {
    conditions.push_back(
        {{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}});
  }
  out["conditions"] = conditions;
  Json current = Json::array();
  for (const MetricStatus& s : d.current_metrics) current.push_back(MetricStatusToJson(s));
  out["currentMetrics"] = current;
  out["state"] = HpaStateToJson(d.state);
  return out;
}

std::string DecisionSummary(const HpaDecision& d) {
  std::string out;
  for (const MetricProposal& p : d.metrics) {
    out += "metric " + std::to_string(p.index) + " (" + p.description + "): ";
    if (!p.ok) {
      out += "failed: " + p.error + "\n";
      continue;
    }
    out += CurrentText(p) + " vs target " + TargetText(p.spec) + ", ratio " +
           FormatFixed(p.calc.usage_ratio, 3);
    if (p.calc.rebalanced_ratio) {
      out += " (" + FormatFixed(*p.calc.rebalanced_ratio, 3) + " counting missing/unready pods)";
    }
    const PodGroups& g = p.calc.groups;
    if (!g.unready.empty() || !g.missing.empty() || !g.ignored.empty()) {
      out += " [" + std::to_string(g.ready_count) + " ready";
      if (!g.unready.empty()) out += ", " + std::to_string(g.unready.size()) + " unready";
      if (!g.missing.empty()) out += ", " + std::to_string(g.missing.size()) + " missing";
      if (!g.ignored.empty()) out += ", " + std::to_string(g.ignored.size()) + " ignored";
      out += "]";
    }
    out += " -> " + std::to_string(p.replicas) + " replicas\n";
  }
  const NormalizationTrace& n = d.normalization;
  if (n.mode == "behavior" || n.mode == "legacy") {
    out += "behavior (" + n.mode + "): proposal " + std::to_string(n.recommendation);
    if (n.stabilized != n.recommendation) {
      out +=
          ", stabilized to " + std::to_string(n.stabilized) + " (" + n.stabilization_reason + ")";
    } else {
      out += ", not changed by stabilization";
    }
    if (n.mode == "behavior" && n.direction != "none" && n.select_policy) {
      out += "; " + std::string(n.direction == "up" ? "scale-up" : "scale-down") + " policies (" +
             std::string(SelectPolicyName(*n.select_policy)) + "):";
      for (const PolicyLimit& l : n.policies) {
        out += " " + std::string(ScalingPolicyTypeName(l.policy.type)) + " " +
               std::to_string(l.policy.value) + "/" + std::to_string(l.policy.period_seconds) +
               "s from " + std::to_string(l.period_start) + " -> " + std::to_string(l.limit);
      }
      if (n.rate_limit) out += ", limit " + std::to_string(*n.rate_limit);
    } else if (n.mode == "legacy" && n.rate_limit) {
      out += "; per-sync scale-up cap " + std::to_string(*n.rate_limit);
    }
    out += "; " + n.limit_reason + "\n";
  } else if (n.mode == "metricsFailed") {
    out += "no usable metric proposal: " + d.error + "\n";
  }
  out += "result: " + std::to_string(d.current_replicas) + " -> " +
         std::to_string(d.desired_replicas) + " replicas";
  if (d.rescale) {
    out += " (" + d.rescale_reason + ")";
  } else {
    for (const Condition& c : d.conditions) {
      if (c.type == "ScalingActive" && c.status == "False")
        out += " (" + c.reason + ": " + c.message + ")";
    }
    if (d.desired_replicas == d.current_replicas && d.normalization.mode != "disabled" &&
        d.normalization.mode != "metricsFailed") {
      out += " (no change)";
    }
  }
  out += "\n";
  return out;
}

}  // namespace trimtab::core::hpa
