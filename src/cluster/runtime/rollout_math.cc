#include "cluster/runtime/rollout_math.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>

#include <nlohmann/json.hpp>

namespace trimtab::cluster::runtime {
namespace {

bool OlderFirst(const ReplicaSetSizes& a, const ReplicaSetSizes& b) {
  if (a.created != b.created) return a.created < b.created;
  return a.name < b.name;
}

// Drops members that hold a Go zero value recursively: null, {} and [] are the same value as an
// absent field for the apiserver's semantic equality (apimachinery's Semantic.DeepEqual treats nil
// and empty maps and slices alike). Clients such as `kubectl rollout undo` send
// "creationTimestamp": null and "resources": {} in templates the stored ReplicaSets lack.
void DropZeroValues(Json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      DropZeroValues(*it);
      const bool empty = it->is_null() || ((it->is_object() || it->is_array()) && it->empty());
      it = empty ? v.erase(it) : std::next(it);
    }
  } else if (v.is_array()) {
    for (Json& item : v) DropZeroValues(item);
  }
}

Json WithoutHash(Json tmpl) {
  DropZeroValues(tmpl);
  if (tmpl.is_object() && tmpl.contains("metadata") && tmpl["metadata"].is_object() &&
      tmpl["metadata"].contains("labels") && tmpl["metadata"]["labels"].is_object()) {
    tmpl["metadata"]["labels"].erase(std::string(kPodTemplateHashLabel));
    if (tmpl["metadata"]["labels"].empty()) tmpl["metadata"].erase("labels");
  }
  return tmpl;
}

}  // namespace

StatusOr<int64_t> ScaledValue(const Json& v, int64_t total, bool round_up) {
  if (v.is_null()) return int64_t{0};
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return InvalidArgumentError("invalid value for IntOrString: " + v.dump());
  std::string s = v.get<std::string>();
  bool percent = !s.empty() && s.back() == '%';
  std::string digits = percent ? s.substr(0, s.size() - 1) : s;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit) || digits.size() > 9) {
    return InvalidArgumentError("invalid value for IntOrString: invalid type: string is not a "
                                "percentage: \"" + s + "\"");
  }
  int64_t n = std::stoll(digits);
  if (!percent) return n;
  if (round_up) return (n * total + 99) / 100;
  return n * total / 100;
}

StatusOr<Fenceposts> ResolveFenceposts(const Json& max_surge, const Json& max_unavailable,
                                       int64_t desired) {
  Fenceposts f;
  TRIMTAB_ASSIGN_OR_RETURN(f.max_surge, ScaledValue(max_surge, desired, true));
  TRIMTAB_ASSIGN_OR_RETURN(f.max_unavailable, ScaledValue(max_unavailable, desired, false));
  if (f.max_surge == 0 && f.max_unavailable == 0) f.max_unavailable = 1;
  return f;
}

namespace {

bool IsRollingUpdate(const Json& d) {
  const Json& strategy = d.contains("spec") && d["spec"].contains("strategy") ? d["spec"]["strategy"]
                                                                              : Json();
  return !strategy.is_object() || strategy.value("type", "RollingUpdate") == "RollingUpdate";
}

int64_t Replicas(const Json& d) {
  const Json& spec = d.contains("spec") ? d["spec"] : Json();
  return spec.is_object() && spec.contains("replicas") && spec["replicas"].is_number_integer()
             ? spec["replicas"].get<int64_t>()
             : 1;
}

Fenceposts FencepostsOf(const Json& d) {
  Json rolling;
  if (d.contains("spec") && d["spec"].contains("strategy") &&
      d["spec"]["strategy"].contains("rollingUpdate")) {
    rolling = d["spec"]["strategy"]["rollingUpdate"];
  }
  Json surge = rolling.is_object() && rolling.contains("maxSurge") ? rolling["maxSurge"] : Json("25%");
  Json unavailable = rolling.is_object() && rolling.contains("maxUnavailable")
                         ? rolling["maxUnavailable"]
                         : Json("25%");
  auto f = ResolveFenceposts(surge, unavailable, Replicas(d));
  return f.ok() ? *f : Fenceposts{0, 1};
}

}  // namespace

int64_t DeploymentMaxSurge(const Json& d) {
  if (!IsRollingUpdate(d)) return 0;
  return FencepostsOf(d).max_surge;
}

int64_t DeploymentMaxUnavailable(const Json& d) {
  int64_t replicas = Replicas(d);
  if (!IsRollingUpdate(d) || replicas == 0) return 0;
  return std::min(FencepostsOf(d).max_unavailable, replicas);
}

int64_t NewRSNewReplicas(int64_t desired, int64_t max_surge, int64_t all_replicas,
                         int64_t new_rs_replicas) {
  int64_t max_total = desired + max_surge;
  if (all_replicas >= max_total) return new_rs_replicas;
  int64_t up = std::min(max_total - all_replicas, desired - new_rs_replicas);
  return new_rs_replicas + up;
}

std::vector<int64_t> ScaleDownOldReplicaSets(int64_t desired, int64_t max_unavailable,
                                             const ReplicaSetSizes& new_set,
                                             const std::vector<ReplicaSetSizes>& old_sets) {
  std::vector<int64_t> out;
  int64_t old_total = 0, all_total = new_set.replicas;
  for (const auto& s : old_sets) {
    out.push_back(s.replicas);
    old_total += s.replicas;
    all_total += s.replicas;
  }
  if (old_total == 0) return out;
  const int64_t min_available = desired - max_unavailable;
  const int64_t new_unavailable = new_set.replicas - new_set.available;
  const int64_t max_scaled_down = all_total - min_available - new_unavailable;
  if (max_scaled_down <= 0) return out;

  std::vector<size_t> order(old_sets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return OlderFirst(old_sets[a], old_sets[b]); });
  // 1. Unhealthy replicas of old sets go first (cleanupUnhealthyReplicas).
  int64_t cleaned = 0;
  for (size_t i : order) {
    if (cleaned >= max_scaled_down) break;
    const ReplicaSetSizes& s = old_sets[i];
    if (out[i] == 0 || out[i] == s.available) continue;
    int64_t n = std::min(max_scaled_down - cleaned, out[i] - s.available);
    out[i] -= n;
    cleaned += n;
  }
  // 2. Then scale down while enough stay available (scaleDownOldReplicaSetsForRollingUpdate).
  int64_t available = new_set.available;
  for (const auto& s : old_sets) available += s.available;
  if (available <= min_available) return out;
  const int64_t to_scale = available - min_available;
  int64_t scaled = 0;
  for (size_t i : order) {
    if (scaled >= to_scale) break;
    if (out[i] == 0) continue;
    int64_t n = std::min(out[i], to_scale - scaled);
    out[i] -= n;
    scaled += n;
  }
  return out;
}

std::map<std::string, int64_t> ProportionalSizes(int64_t desired, int64_t max_surge,
                                                 int64_t status_replicas,
                                                 std::vector<ReplicaSetSizes> sets) {
  std::map<std::string, int64_t> out;
  int64_t total = 0;
  for (const auto& s : sets) total += s.replicas;
  const int64_t allowed = desired > 0 ? desired + max_surge : 0;
  const int64_t to_add = allowed - total;
  // Larger first; equal sizes: newer first when growing, older first when shrinking.
  std::stable_sort(sets.begin(), sets.end(), [&](const ReplicaSetSizes& a, const ReplicaSetSizes& b) {
    if (a.replicas != b.replicas) return a.replicas > b.replicas;
    return to_add > 0 ? OlderFirst(b, a) : OlderFirst(a, b);
  });
  int64_t added = 0;
  for (const auto& s : sets) {
    int64_t proportion = 0;
    if (to_add != 0 && s.replicas != 0 && to_add != added) {
      int64_t fraction;
      if (desired == 0) {
        fraction = -s.replicas;
      } else {
        int64_t max_before = s.annotated_max > 0 ? s.annotated_max : status_replicas;
        double scaled = max_before > 0 ? static_cast<double>(s.replicas * (desired + max_surge)) /
                                             static_cast<double>(max_before)
                                       : static_cast<double>(s.replicas);
        fraction = static_cast<int64_t>(std::llround(scaled)) - s.replicas;
      }
      int64_t remaining = to_add - added;
      proportion = to_add > 0 ? std::min(fraction, remaining) : std::max(fraction, remaining);
    }
    out[s.name] = s.replicas + proportion;
    added += proportion;
  }
  if (!sets.empty() && to_add != 0) {
    int64_t& first = out[sets.front().name];
    first = std::max<int64_t>(0, first + to_add - added);
  }
  return out;
}

std::string PodTemplateHash(const Json& pod_template, int64_t collision_count) {
  const std::string text = WithoutHash(pod_template).dump();
  uint32_t h = 2166136261u;  // FNV-32a
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 16777619u;
  };
  for (unsigned char c : text) mix(c);
  if (collision_count > 0) {
    uint32_t cc = static_cast<uint32_t>(collision_count);
    for (int i = 0; i < 4; ++i) mix(static_cast<unsigned char>((cc >> (8 * i)) & 0xff));
  }
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string digits = std::to_string(h);
  std::string out;
  for (char d : digits) out.push_back(kAlphabet[static_cast<unsigned char>(d) % 27]);
  return out;
}

bool EqualIgnoreHash(const Json& a, const Json& b) { return WithoutHash(a) == WithoutHash(b); }

}  // namespace trimtab::cluster::runtime
