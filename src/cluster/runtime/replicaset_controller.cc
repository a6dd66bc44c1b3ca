#include "cluster/runtime/replicaset_controller.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"
#include "common/label_selector.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "replicaset-controller";

std::optional<std::string> OwnerKey(const Json& pod) {
  auto ref = ControllerRef(pod);
  if (!ref || ref->value("kind", "") != "ReplicaSet") return std::nullopt;
  return Str(pod, {"metadata", "namespace"}) + "/" + ref->value("name", "");
}

int PhaseRank(const Json& pod) {
  std::string phase = Str(pod, {"status", "phase"});
  if (phase == "Pending") return 0;
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 3;
}

int64_t DeletionCost(const Json& pod) {
  std::string v = Str(pod, {"metadata", "annotations", "controller.kubernetes.io/pod-deletion-cost"});
  try {
    return v.empty() ? 0 : std::stoll(v);
  } catch (...) {
    return 0;
  }
}

int64_t Restarts(const Json& pod) {
  int64_t n = 0;
  const Json& statuses = At(pod, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const Json& s : statuses) n += Int(s, {"restartCount"});
  }
  return n;
}

// True when `a` should be deleted before `b`.
bool DeleteFirst(const Json& a, const Json& b) {
  bool a_bound = !Str(a, {"spec", "nodeName"}).empty();
  bool b_bound = !Str(b, {"spec", "nodeName"}).empty();
  if (a_bound != b_bound) return !a_bound;
  if (PhaseRank(a) != PhaseRank(b)) return PhaseRank(a) < PhaseRank(b);
  bool a_ready = IsPodReady(a), b_ready = IsPodReady(b);
  if (a_ready != b_ready) return !a_ready;
  if (DeletionCost(a) != DeletionCost(b)) return DeletionCost(a) < DeletionCost(b);
  if (a_ready && b_ready) {
    auto ta = PodReadySince(a), tb = PodReadySince(b);
    if (ta && tb && *ta != *tb) return *ta > *tb;
  }
  if (Restarts(a) != Restarts(b)) return Restarts(a) > Restarts(b);
  std::string ca = Str(a, {"metadata", "creationTimestamp"});
  std::string cb = Str(b, {"metadata", "creationTimestamp"});
  if (ca != cb) return ca > cb;
  return Str(a, {"metadata", "name"}) > Str(b, {"metadata", "name"});
}

bool FullyLabeled(const Json& pod, const Json& template_labels) {
  if (!template_labels.is_object()) return true;
  const Json& labels = At(pod, {"metadata", "labels"});
  for (auto& [k, v] : template_labels.items()) {
    if (!labels.is_object() || !labels.contains(k) || labels[k] != v) return false;
  }
  return true;
}

}  // namespace

void SortPodsForDeletion(std::vector<Json>* pods) {
  std::stable_sort(pods->begin(), pods->end(), DeleteFirst);
}

ReplicaSetController::ReplicaSetController(const kube::KubeClient* client, InformerSet* informers,
                                           EventRecorder* events, Clock* clock,
                                           ReplicaSetControllerOptions options)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      options_(options),
      expectations_(clock),
      controller_("replicaset-controller", clock, options.workers,
                  [this](const std::string& key) { return Sync(key); }) {
  auto enqueue = [this](const Json& rs) { controller_.Enqueue(kube::ObjectKey(rs)); };
  informers_->Get(ReplicaSetsGvr())->AddEventHandler(
      {.on_add = enqueue,
       .on_update = [enqueue](const Json&, const Json& rs) { enqueue(rs); },
       .on_delete = [this](const Json& rs) {
         expectations_.Forget(kube::ObjectKey(rs));
         controller_.Enqueue(kube::ObjectKey(rs));
       }});
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = [this](const Json& p) { OnPod(nullptr, &p); },
       .on_update = [this](const Json& o, const Json& n) { OnPod(&o, &n); },
       .on_delete = [this](const Json& p) { OnPod(&p, nullptr); }});
}

void ReplicaSetController::EnqueueMatching(const Json& pod) {
  const std::string ns = Str(pod, {"metadata", "namespace"});
  const LabelMap labels = kube::ObjectLabels(pod);
  for (const kube::ObjectPtr& rs : informers_->Store(ReplicaSetsGvr()).ListShared(ns)) {
    auto selector = LabelSelector::FromJson(At(*rs, {"spec", "selector"}));
    if (selector.ok() && !selector->Empty() && selector->Matches(labels)) {
      controller_.Enqueue(kube::ObjectKey(*rs));
    }
  }
}

void ReplicaSetController::OnPod(const Json* old_pod, const Json* new_pod) {
  const std::string pod_key = kube::ObjectKey(new_pod ? *new_pod : *old_pod);
  if (!new_pod) {
    if (auto owner = OwnerKey(*old_pod)) {
      expectations_.ObservedDeletion(*owner, pod_key);
      controller_.Enqueue(*owner);
    }
    return;
  }
  auto owner = OwnerKey(*new_pod);
  if (!old_pod) {
    if (owner) {
      expectations_.ObservedCreation(*owner);
      controller_.Enqueue(*owner);
    } else {
      EnqueueMatching(*new_pod);
    }
    return;
  }
  if (owner && IsDeleting(*new_pod) && !IsDeleting(*old_pod)) {
    expectations_.ObservedDeletion(*owner, pod_key);
  }
  auto old_owner = OwnerKey(*old_pod);
  if (old_owner && old_owner != owner) controller_.Enqueue(*old_owner);
  if (owner) {
    controller_.Enqueue(*owner);
  } else if (kube::ObjectLabels(*old_pod) != kube::ObjectLabels(*new_pod) || old_owner) {
    EnqueueMatching(*new_pod);
  }
}

std::vector<Json> ReplicaSetController::ClaimPods(const Json& rs) {
  std::vector<Json> owned;
  auto selector = LabelSelector::FromJson(At(rs, {"spec", "selector"}));
  if (!selector.ok()) return owned;
  const std::string ns = Str(rs, {"metadata", "namespace"});
  const std::string uid = Str(rs, {"metadata", "uid"});
  const bool may_adopt = !IsDeleting(rs) && !selector->Empty();
  for (const kube::ObjectPtr& candidate :
       ClaimCandidates(informers_->Store(PodsGvr()), ns, uid, *selector)) {
    const Json& pod = *candidate;
    auto ref = ControllerRef(pod);
    bool matches = !selector->Empty() && selector->Matches(kube::ObjectLabels(pod));
    if (ref && ref->value("uid", "") == uid) {
      if (matches || IsDeleting(pod)) {
        owned.push_back(pod);
        continue;
      }
      // Release: the pod's labels no longer match.
      client_->Patch(PodsGvr(), ns, Str(pod, {"metadata", "name"}), kube::PatchType::kJson,
                     ReleasePatch(pod, uid)).status().IgnoreError();
      continue;
    }
    if (ref || !matches || !may_adopt || !IsPodActive(pod)) continue;
    auto adopted = client_->Patch(PodsGvr(), ns, Str(pod, {"metadata", "name"}),
                                  kube::PatchType::kJson, AdoptPatch(pod, rs));
    if (adopted.ok()) owned.push_back(std::move(*adopted));
  }
  return owned;
}

Result ReplicaSetController::Sync(const std::string& key) {
  auto rs = informers_->Store(ReplicaSetsGvr()).GetByKey(key);
  if (!rs) {
    expectations_.Forget(key);
    return Result::Done();
  }
  std::vector<Json> claimed = ClaimPods(*rs);
  std::vector<Json> active;
  for (Json& p : claimed) {
    if (IsPodActive(p)) active.push_back(std::move(p));
  }
  Status manage_error;
  if (expectations_.Satisfied(key) && !IsDeleting(*rs)) manage_error = ManageReplicas(*rs, active);
  return UpdateStatus(*rs, active, manage_error);
}

Status ReplicaSetController::ManageReplicas(const Json& rs, const std::vector<Json>& pods) {
  const std::string key = kube::ObjectKey(rs);
  const std::string ns = Str(rs, {"metadata", "namespace"});
  const int64_t want = Int(rs, {"spec", "replicas"}, 1);
  const int64_t diff = static_cast<int64_t>(pods.size()) - want;
  if (diff < 0) {
    int64_t n = std::min<int64_t>(-diff, options_.burst);
    expectations_.Expect(key, static_cast<int>(n), {});
    const Json& tmpl = At(rs, {"spec", "template"});
    Json meta = {{"generateName", Str(rs, {"metadata", "name"}) + "-"},
                 {"namespace", ns},
                 {"ownerReferences", Json::array({ControllerRefTo(rs)})}};
    for (const char* f : {"labels", "annotations", "finalizers"}) {
      if (At(tmpl, {"metadata", f}).is_object() || At(tmpl, {"metadata", f}).is_array()) {
        meta[f] = At(tmpl, {"metadata", f});
      }
    }
    Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", At(tmpl, {"spec"})}};
    for (int64_t i = 0; i < n; ++i) {
      auto created = client_->Create(PodsGvr(), ns, pod);
      if (!created.ok()) {
        // The remaining creations will not happen either.
        for (int64_t j = i; j < n; ++j) expectations_.CreationFailed(key);
        events_->Record(rs, {.component = kComponent}, "Warning", "FailedCreate",
                        "Error creating: " + created.status().message());
        return created.status();
      }
      events_->Record(rs, {.component = kComponent}, "Normal", "SuccessfulCreate",
                      "Created pod: " + Str(*created, {"metadata", "name"}));
    }
    return Status::Ok();
  }
  if (diff > 0) {
    std::vector<Json> victims = pods;
    SortPodsForDeletion(&victims);
    victims.resize(static_cast<size_t>(std::min<int64_t>(diff, options_.burst)));
    std::set<std::string> keys;
    for (const Json& v : victims) keys.insert(kube::ObjectKey(v));
    expectations_.Expect(key, 0, keys);
    for (const Json& v : victims) {
      const std::string name = Str(v, {"metadata", "name"});
      Status s = client_->Delete(PodsGvr(), ns, name);
      if (!s.ok() && s.code() != StatusCode::kNotFound) {
        expectations_.ObservedDeletion(key, kube::ObjectKey(v));
        events_->Record(rs, {.component = kComponent}, "Warning", "FailedDelete",
                        "Error deleting: " + s.message());
        return s;
      }
      events_->Record(rs, {.component = kComponent}, "Normal", "SuccessfulDelete",
                      "Deleted pod: " + name);
    }
  }
  return Status::Ok();
}

Result ReplicaSetController::UpdateStatus(const Json& rs, const std::vector<Json>& pods,
                                          const Status& manage_error) {
  const TimePoint now = clock_->Now();
  const int64_t min_ready = Int(rs, {"spec", "minReadySeconds"});
  const Json& template_labels = At(rs, {"spec", "template", "metadata", "labels"});
  int64_t fully_labeled = 0, ready = 0, available = 0;
  std::optional<TimePoint> next_available;
  for (const Json& p : pods) {
    if (FullyLabeled(p, template_labels)) ++fully_labeled;
    if (!IsPodReady(p)) continue;
    ++ready;
    if (IsPodAvailable(p, min_ready, now)) {
      ++available;
    } else if (auto since = PodReadySince(p)) {
      TimePoint at = *since + std::chrono::seconds(min_ready);
      if (!next_available || at < *next_available) next_available = at;
    }
  }
  Json conditions = At(rs, {"status", "conditions"});
  if (!conditions.is_array()) conditions = Json::array();
  Json kept = Json::array();
  for (const Json& c : conditions) {
    if (c.value("type", "") != "ReplicaFailure") kept.push_back(c);
  }
  if (!manage_error.ok()) {
    Json failure = {{"type", "ReplicaFailure"},
                    {"status", "True"},
                    {"reason", "FailedCreate"},
                    {"message", manage_error.message()}};
    SetCondition(&conditions, failure, FormatRfc3339(now));
    kept = conditions;
  }
  Json status = {{"replicas", static_cast<int64_t>(pods.size())},
                 {"fullyLabeledReplicas", fully_labeled},
                 {"readyReplicas", ready},
                 {"availableReplicas", available},
                 {"observedGeneration", Int(rs, {"metadata", "generation"})},
                 {"conditions", kept.empty() ? Json(nullptr) : kept}};
  Json current = At(rs, {"status"});
  bool changed = false;
  for (auto& [k, v] : status.items()) {
    const Json& cur = current.is_object() && current.contains(k) ? current[k] : Json();
    if (v.is_null() ? !cur.is_null() : cur != v) changed = true;
  }
  if (changed) {
    auto r = client_->Patch(ReplicaSetsGvr(), Str(rs, {"metadata", "namespace"}),
                            Str(rs, {"metadata", "name"}), kube::PatchType::kMerge,
                            Json{{"status", status}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry("status of " + kube::ObjectKey(rs) + ": " + r.status().ToString());
    }
  }
  if (!manage_error.ok()) return Result::Retry(manage_error.ToString());
  if (next_available) return Result::After(*next_available - now + std::chrono::milliseconds(10));
  return Result::Done();
}

}  // namespace trimtab::cluster::runtime
