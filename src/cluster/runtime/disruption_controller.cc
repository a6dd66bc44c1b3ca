#include "cluster/runtime/disruption_controller.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"
#include "common/label_selector.h"

namespace trimtab::cluster::runtime {
namespace {

// A count, or ceil(percentage of `total`); nullopt when absent or malformed.
std::optional<int64_t> Scaled(const Json& v, int64_t total) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  if (s.empty() || s.back() != '%') return std::nullopt;
  s.pop_back();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 6) {
    return std::nullopt;
  }
  int64_t pct = std::stoll(s);
  return (pct * total + 99) / 100;
}

}  // namespace

int64_t DesiredHealthy(const Json& budget, int64_t expected) {
  if (auto min = Scaled(At(budget, {"spec", "minAvailable"}), expected)) return *min;
  if (auto max = Scaled(At(budget, {"spec", "maxUnavailable"}), expected)) {
    return std::max<int64_t>(0, expected - *max);
  }
  return 0;
}

DisruptionController::DisruptionController(const kube::KubeClient* client,
                                           InformerSet* informers, Clock* clock)
    : client_(client),
      informers_(informers),
      clock_(clock),
      controller_("disruption-controller", clock, 1,
                  [this](const std::string& key) { return Sync(key); }) {
  EnqueueObjects(informers_, PodDisruptionBudgetsGvr(), &controller_);
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = [this](const Json& p) { EnqueueNamespace(p); },
       .on_update =
           [this](const Json& o, const Json& p) {
             if (IsPodReady(o) != IsPodReady(p) || IsDeleting(o) != IsDeleting(p) ||
                 kube::ObjectLabels(o) != kube::ObjectLabels(p) ||
                 IsPodTerminal(o) != IsPodTerminal(p)) {
               EnqueueNamespace(p);
             }
           },
       .on_delete = [this](const Json& p) { EnqueueNamespace(p); }});
}

void DisruptionController::EnqueueNamespace(const Json& pod) {
  auto budgets = informers_->Store(PodDisruptionBudgetsGvr())
                     .List(PodDisruptionBudgetsGvr(), Str(pod, {"metadata", "namespace"}), {});
  if (!budgets.ok()) return;
  for (const Json& b : *budgets) controller_.Enqueue(kube::ObjectKey(b));
}

Result DisruptionController::Sync(const std::string& key) {
  auto budget = informers_->Store(PodDisruptionBudgetsGvr()).GetByKey(key);
  if (!budget) return Result::Done();
  const std::string ns = Str(*budget, {"metadata", "namespace"});
  const TimePoint now = clock_->Now();
  auto selector = LabelSelector::FromJson(At(*budget, {"spec", "selector"}));
  int64_t expected = 0, healthy = 0;
  std::set<std::string> live;
  if (selector.ok() && !selector->Empty()) {
    auto pods = informers_->Store(PodsGvr()).List(PodsGvr(), ns, {});
    if (!pods.ok()) return Result::Retry(pods.status().ToString());
    for (const Json& p : *pods) {
      if (!selector->Matches(kube::ObjectLabels(p))) continue;
      live.insert(Str(p, {"metadata", "name"}));
      if (!IsPodActive(p)) continue;
      ++expected;
      if (IsPodReady(p)) ++healthy;
    }
  }
  // Evictions counted by the API server, until the pod is gone (or 2 minutes passed).
  Json disrupted = Json::object();
  Result next = Result::Done();
  const Json& old_disrupted = At(*budget, {"status", "disruptedPods"});
  if (old_disrupted.is_object()) {
    for (auto& [pod, at] : old_disrupted.items()) {
      auto t = ParseTime(at);
      if (!live.count(pod) || !t || now >= *t + std::chrono::minutes(2)) continue;
      disrupted[pod] = at;
      next = Result::Earliest(next, Result::After(*t + std::chrono::minutes(2) - now));
    }
  }
  const int64_t desired = DesiredHealthy(*budget, expected);
  const int64_t allowed =
      std::max<int64_t>(0, healthy - desired - static_cast<int64_t>(disrupted.size()));
  const std::string now_s = FormatRfc3339(now);
  Json conditions = At(*budget, {"status", "conditions"});
  if (!conditions.is_array()) conditions = Json::array();
  Json condition = {{"type", "DisruptionAllowed"},
                    {"status", allowed > 0 ? "True" : "False"},
                    {"reason", allowed > 0 ? "SufficientPods" : "InsufficientPods"},
                    {"message", ""},
                    {"observedGeneration", Int(*budget, {"metadata", "generation"})}};
  SetCondition(&conditions, condition, now_s);
  Json status = {{"observedGeneration", Int(*budget, {"metadata", "generation"})},
                 {"disruptionsAllowed", allowed},
                 {"currentHealthy", healthy},
                 {"desiredHealthy", desired},
                 {"expectedPods", expected},
                 {"conditions", conditions}};
  Json patch = status;
  patch["disruptedPods"] = disrupted.empty() ? Json(nullptr) : disrupted;
  Json old = At(*budget, {"status"});
  bool changed = false;
  for (auto& [k, v] : status.items()) {
    if (!old.is_object() || !old.contains(k) || old[k] != v) changed = true;
  }
  if (old_disrupted != (disrupted.empty() ? Json() : disrupted)) changed = true;
  if (changed) {
    auto r = client_->Patch(PodDisruptionBudgetsGvr(), ns, Str(*budget, {"metadata", "name"}),
                            kube::PatchType::kMerge, Json{{"status", patch}}.dump(),
                            {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry(r.status().ToString());
    }
  }
  return next;
}

}  // namespace trimtab::cluster::runtime
