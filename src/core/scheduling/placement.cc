#include "core/scheduling/placement.h"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling {
namespace {

bool ParseInt64(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool RequirementMatches(const NodeSelectorRequirement& r, const std::string* value) {
  using Op = NodeSelectorRequirement::Op;
  switch (r.op) {
    case Op::kIn:
      return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    case Op::kNotIn:
      return !value || std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
    case Op::kExists:
      return value != nullptr;
    case Op::kDoesNotExist:
      return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      if (!value || r.values.size() != 1) return false;
      int64_t have = 0, want = 0;
      if (!ParseInt64(*value, &have) || !ParseInt64(r.values[0], &want)) return false;
      return r.op == Op::kGt ? have > want : have < want;
    }
  }
  return false;
}

Status StringField(const Json& obj, std::string_view field, const std::string& path,
                   std::string* out) {
  auto it = obj.find(std::string(field));
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) {
    return InvalidArgumentError(JoinPath(path, field) + ": expected a string, got " +
                                std::string(JsonTypeName(*it)));
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

StatusOr<std::vector<NodeSelectorRequirement>> RequirementsFromJson(const Json& list,
                                                                   const std::string& path) {
  std::vector<NodeSelectorRequirement> out;
  if (list.is_null()) return out;
  if (!list.is_array()) return InvalidArgumentError(path + ": expected a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = JoinPath(path, i);
    const Json& e = list[i];
    if (!e.is_object()) return InvalidArgumentError(p + ": expected an object");
    NodeSelectorRequirement r;
    TRIMTAB_RETURN_IF_ERROR(StringField(e, "key", p, &r.key));
    std::string op;
    TRIMTAB_RETURN_IF_ERROR(StringField(e, "operator", p, &op));
    using Op = NodeSelectorRequirement::Op;
    if (op == "In") r.op = Op::kIn;
    else if (op == "NotIn") r.op = Op::kNotIn;
    else if (op == "Exists") r.op = Op::kExists;
    else if (op == "DoesNotExist") r.op = Op::kDoesNotExist;
    else if (op == "Gt") r.op = Op::kGt;
    else if (op == "Lt") r.op = Op::kLt;
    else {
      return InvalidArgumentError(JoinPath(p, "operator") + ": unsupported value \"" + op +
                                  "\" (In, NotIn, Exists, DoesNotExist, Gt, Lt)");
    }
    if (auto v = e.find("values"); v != e.end() && !v->is_null()) {
      if (!v->is_array()) return InvalidArgumentError(JoinPath(p, "values") + ": expected a list");
      for (size_t k = 0; k < v->size(); ++k) {
        if (!(*v)[k].is_string()) {
          return InvalidArgumentError(JoinPath(JoinPath(p, "values"), k) + ": expected a string");
        }
        r.values.push_back((*v)[k].get<std::string>());
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

StatusOr<NodeSelectorTerm> TermFromJson(const Json& t, const std::string& path) {
  if (!t.is_object()) return InvalidArgumentError(path + ": expected an object");
  NodeSelectorTerm term;
  if (auto it = t.find("matchExpressions"); it != t.end()) {
    TRIMTAB_ASSIGN_OR_RETURN(term.match_expressions,
                             RequirementsFromJson(*it, JoinPath(path, "matchExpressions")));
  }
  if (auto it = t.find("matchFields"); it != t.end()) {
    TRIMTAB_ASSIGN_OR_RETURN(term.match_fields,
                             RequirementsFromJson(*it, JoinPath(path, "matchFields")));
  }
  return term;
}

Status LabelsFromJson(const Json& obj, const std::string& path, LabelMap* out) {
  if (obj.is_null()) return Status::Ok();
  if (!obj.is_object()) return InvalidArgumentError(path + ": expected a map of strings");
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!it->is_string()) {
      return InvalidArgumentError(JoinPath(path, it.key()) + ": expected a string");
    }
    (*out)[it.key()] = it->get<std::string>();
  }
  return Status::Ok();
}

}  // namespace

bool Toleration::Tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (key.empty()) return op == "Exists";
  if (key != taint.key) return false;
  if (op == "Exists") return true;
  return value == taint.value;  // Equal (and the empty operator)
}

bool TermMatches(const NodeSelectorTerm& term, const NodePlacementFacts& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions) {
    auto it = node.labels.find(r.key);
    if (!RequirementMatches(r, it == node.labels.end() ? nullptr : &it->second)) return false;
  }
  for (const auto& r : term.match_fields) {
    if (r.key != "metadata.name") return false;
    if (!RequirementMatches(r, &node.name)) return false;
  }
  return true;
}

bool PodPlacement::MatchesNodeAffinity(const NodePlacementFacts& node) const {
  for (const auto& [k, v] : node_selector) {
    auto it = node.labels.find(k);
    if (it == node.labels.end() || it->second != v) return false;
  }
  if (!has_required) return true;
  for (const auto& term : required) {
    if (TermMatches(term, node)) return true;
  }
  return false;
}

const Taint* PodPlacement::FirstUntoleratedTaint(const NodePlacementFacts& node) const {
  for (const Taint& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) {
      if (t.Tolerates(taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return &taint;
  }
  return nullptr;
}

bool PodPlacement::ToleratesUnschedulable() const {
  const Taint taint{"node.kubernetes.io/unschedulable", "", "NoSchedule"};
  for (const Toleration& t : tolerations) {
    if (t.Tolerates(taint)) return true;
  }
  return false;
}

int64_t PodPlacement::PreferredScore(const NodePlacementFacts& node) const {
  int64_t score = 0;
  for (const PreferredTerm& p : preferred) {
    if (p.weight == 0) continue;
    if (TermMatches(p.term, node)) score += p.weight;
  }
  return score;
}

int64_t PodPlacement::IntolerablePreferNoSchedule(const NodePlacementFacts& node) const {
  int64_t count = 0;
  for (const Taint& taint : node.taints) {
    if (taint.effect != "PreferNoSchedule") continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) {
      // Only tolerations with an empty or PreferNoSchedule effect count here.
      if (!t.effect.empty() && t.effect != "PreferNoSchedule") continue;
      if (t.Tolerates(taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) ++count;
  }
  return count;
}

StatusOr<PodPlacement> PodPlacementFromJson(const Json& spec, const std::string& path) {
  PodPlacement p;
  if (!spec.is_object()) return p;
  if (auto it = spec.find("nodeSelector"); it != spec.end()) {
    TRIMTAB_RETURN_IF_ERROR(LabelsFromJson(*it, JoinPath(path, "nodeSelector"), &p.node_selector));
  }
  if (auto aff = spec.find("affinity"); aff != spec.end() && aff->is_object()) {
    auto na = aff->find("nodeAffinity");
    if (na != aff->end() && na->is_object()) {
      const std::string na_path = JoinPath(JoinPath(path, "affinity"), "nodeAffinity");
      auto req = na->find("requiredDuringSchedulingIgnoredDuringExecution");
      if (req != na->end() && req->is_object()) {
        const std::string req_path =
            JoinPath(JoinPath(na_path, "requiredDuringSchedulingIgnoredDuringExecution"),
                     "nodeSelectorTerms");
        auto terms = req->find("nodeSelectorTerms");
        p.has_required = true;
        if (terms != req->end() && terms->is_array()) {
          for (size_t i = 0; i < terms->size(); ++i) {
            TRIMTAB_ASSIGN_OR_RETURN(NodeSelectorTerm t,
                                     TermFromJson((*terms)[i], JoinPath(req_path, i)));
            p.required.push_back(std::move(t));
          }
        }
      }
      auto pref = na->find("preferredDuringSchedulingIgnoredDuringExecution");
      if (pref != na->end() && pref->is_array()) {
        const std::string pref_path =
            JoinPath(na_path, "preferredDuringSchedulingIgnoredDuringExecution");
        for (size_t i = 0; i < pref->size(); ++i) {
          const Json& e = (*pref)[i];
          const std::string ep = JoinPath(pref_path, i);
          if (!e.is_object()) return InvalidArgumentError(ep + ": expected an object");
          PreferredTerm pt;
          if (auto w = e.find("weight"); w != e.end()) {
            if (!w->is_number_integer()) {
              return InvalidArgumentError(JoinPath(ep, "weight") + ": expected an integer");
            }
            pt.weight = w->get<int32_t>();
          }
          if (auto t = e.find("preference"); t != e.end()) {
            TRIMTAB_ASSIGN_OR_RETURN(pt.term, TermFromJson(*t, JoinPath(ep, "preference")));
          }
          p.preferred.push_back(std::move(pt));
        }
      }
    }
  }
  if (auto tol = spec.find("tolerations"); tol != spec.end() && !tol->is_null()) {
    const std::string tp = JoinPath(path, "tolerations");
    if (!tol->is_array()) return InvalidArgumentError(tp + ": expected a list");
    for (size_t i = 0; i < tol->size(); ++i) {
      const Json& e = (*tol)[i];
      const std::string ep = JoinPath(tp, i);
      if (!e.is_object()) return InvalidArgumentError(ep + ": expected an object");
      Toleration t;
      t.op.clear();
      TRIMTAB_RETURN_IF_ERROR(StringField(e, "key", ep, &t.key));
      TRIMTAB_RETURN_IF_ERROR(StringField(e, "operator", ep, &t.op));
      TRIMTAB_RETURN_IF_ERROR(StringField(e, "value", ep, &t.value));
      TRIMTAB_RETURN_IF_ERROR(StringField(e, "effect", ep, &t.effect));
      if (t.op.empty()) t.op = "Equal";
      if (t.op != "Equal" && t.op != "Exists") {
        return InvalidArgumentError(JoinPath(ep, "operator") + ": unsupported value \"" + t.op +
                                    "\" (Equal, Exists)");
      }
      p.tolerations.push_back(std::move(t));
    }
  }
  return p;
}

StatusOr<NodePlacementFacts> NodePlacementFromJson(const Json& node, const std::string& path) {
  NodePlacementFacts f;
  const Json& meta = node.contains("metadata") ? node["metadata"] : Json();
  if (meta.is_object()) {
    TRIMTAB_RETURN_IF_ERROR(StringField(meta, "name", JoinPath(path, "metadata"), &f.name));
    if (auto it = meta.find("labels"); it != meta.end()) {
      TRIMTAB_RETURN_IF_ERROR(LabelsFromJson(*it, JoinPath(path, "metadata.labels"), &f.labels));
    }
  }
  auto spec = node.find("spec");
  if (spec != node.end() && spec->is_object()) {
    if (auto u = spec->find("unschedulable"); u != spec->end() && !u->is_null()) {
      if (!u->is_boolean()) {
        return InvalidArgumentError(JoinPath(path, "spec.unschedulable") + ": expected a boolean");
      }
      f.unschedulable = u->get<bool>();
    }
    if (auto taints = spec->find("taints"); taints != spec->end() && !taints->is_null()) {
      const std::string tp = JoinPath(path, "spec.taints");
      if (!taints->is_array()) return InvalidArgumentError(tp + ": expected a list");
      for (size_t i = 0; i < taints->size(); ++i) {
        const Json& e = (*taints)[i];
        const std::string ep = JoinPath(tp, i);
        if (!e.is_object()) return InvalidArgumentError(ep + ": expected an object");
        Taint t;
        TRIMTAB_RETURN_IF_ERROR(StringField(e, "key", ep, &t.key));
        TRIMTAB_RETURN_IF_ERROR(StringField(e, "value", ep, &t.value));
        TRIMTAB_RETURN_IF_ERROR(StringField(e, "effect", ep, &t.effect));
        if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
            t.effect != "NoExecute") {
          return InvalidArgumentError(JoinPath(ep, "effect") + ": unsupported value \"" +
                                      t.effect + "\" (NoSchedule, PreferNoSchedule, NoExecute)");
        }
        f.taints.push_back(std::move(t));
      }
    }
  }
  return f;
}

}  // namespace trimtab::core::scheduling
