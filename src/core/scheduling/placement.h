// Placement constraints of a pod and the node facts they are checked against: node selector,
// node affinity (required and preferred NodeSelectorTerms), tolerations against taints. The
// rules are kube-scheduler's (component-helpers nodeaffinity and v1 toleration helpers), which
// Volcano's predicates and nodeorder plugins call.
//
//   * nodeSelector: every key/value must be a node label;
//   * required node affinity: the terms are ORed, a term's matchExpressions and matchFields are
//     ANDed; an empty term matches nothing; operators In, NotIn, Exists, DoesNotExist, Gt, Lt;
//     matchFields only knows metadata.name;
//   * a toleration tolerates a taint when the effects match (empty effect = all), the keys match
//     (empty key with Exists = every key) and, for Equal (the default), the values match.
//
// Thread-safety: immutable values after parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/label_selector.h"
#include "common/status.h"

namespace trimtab::core::scheduling {

struct NodeSelectorRequirement {
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Op op = Op::kIn;
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // key metadata.name only
};

struct PreferredTerm {
  int32_t weight = 0;
  NodeSelectorTerm term;
};

struct Taint {
  std::string key, value, effect;  // effect: NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key, op = "Equal", value, effect;  // op: Equal | Exists
  bool Tolerates(const Taint& taint) const;
};

// What a node offers to placement checks.
struct NodePlacementFacts {
  std::string name;
  LabelMap labels;
  std::vector<Taint> taints;
  bool unschedulable = false;  // spec.unschedulable
};

// What a pod asks for. Empty for most pods, so the checks are cheap in the hot loop.
struct PodPlacement {
  LabelMap node_selector;
  std::vector<NodeSelectorTerm> required;  // requiredDuringSchedulingIgnoredDuringExecution
  bool has_required = false;
  std::vector<PreferredTerm> preferred;     // preferredDuringSchedulingIgnoredDuringExecution
  std::vector<Toleration> tolerations;

  bool Empty() const {
    return node_selector.empty() && !has_required && preferred.empty() && tolerations.empty();
  }
  // nodeSelector and required affinity (NodeAffinity filter).
  bool MatchesNodeAffinity(const NodePlacementFacts& node) const;
  // The first NoSchedule/NoExecute taint the pod does not tolerate, or nullptr (TaintToleration).
  const Taint* FirstUntoleratedTaint(const NodePlacementFacts& node) const;
  // Whether the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule taint
  // (NodeUnschedulable lets such pods onto cordoned nodes).
  bool ToleratesUnschedulable() const;
  // Sum of the weights of the preferred terms the node matches (NodeAffinity score).
  int64_t PreferredScore(const NodePlacementFacts& node) const;
  // Number of PreferNoSchedule taints the pod does not tolerate (TaintToleration score).
  int64_t IntolerablePreferNoSchedule(const NodePlacementFacts& node) const;
};

bool TermMatches(const NodeSelectorTerm& term, const NodePlacementFacts& node);

// Decoders from the pod / node JSON; `path` names the field in errors.
StatusOr<PodPlacement> PodPlacementFromJson(const Json& pod_spec, const std::string& path);
StatusOr<NodePlacementFacts> NodePlacementFromJson(const Json& node, const std::string& path);

}  // namespace trimtab::core::scheduling
