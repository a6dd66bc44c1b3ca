#include "cluster/runtime/deployment_controller.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"
#include "cluster/runtime/rollout_math.h"
#include "common/label_selector.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "deployment-controller";
constexpr int64_t kNoDeadline = 2147483647;
const std::vector<std::string> kAnnotationsNotCopied = {
    "kubectl.kubernetes.io/last-applied-configuration", std::string(kRevisionAnnotation),
    "deployment.kubernetes.io/revision-history", std::string(kDesiredReplicasAnnotation),
    std::string(kMaxReplicasAnnotation), "deprecated.deployment.rollback.to"};

int64_t Replicas(const Json& o) { return Int(o, {"spec", "replicas"}, 1); }

int64_t Revision(const Json& o) {
  std::string v = Str(o, {"metadata", "annotations", std::string(kRevisionAnnotation)});
  try {
    return v.empty() ? 0 : std::stoll(v);
  } catch (...) {
    return 0;
  }
}

bool OlderFirst(const Json& a, const Json& b) {
  std::string ca = Str(a, {"metadata", "creationTimestamp"});
  std::string cb = Str(b, {"metadata", "creationTimestamp"});
  if (ca != cb) return ca < cb;
  return Str(a, {"metadata", "name"}) < Str(b, {"metadata", "name"});
}

int64_t SumSpec(const std::vector<Json>& sets) {
  int64_t n = 0;
  for (const Json& s : sets) n += Replicas(s);
  return n;
}

int64_t SumStatus(const std::vector<Json>& sets, const char* field) {
  int64_t n = 0;
  for (const Json& s : sets) n += Int(s, {"status", field});
  return n;
}

bool HasProgressDeadline(const Json& d) {
  const Json& v = At(d, {"spec", "progressDeadlineSeconds"});
  return v.is_number_integer() && v.get<int64_t>() != kNoDeadline;
}

const Json* Condition(const Json& status, const std::string& type) {
  const Json& conditions = At(status, {"conditions"});
  if (!conditions.is_array()) return nullptr;
  for (const Json& c : conditions) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

void RemoveCondition(Json& status, const std::string& type) {
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) return;
  Json kept = Json::array();
  for (const Json& c : conditions) {
    if (c.value("type", "") != type) kept.push_back(c);
  }
  conditions = std::move(kept);
}

Json NewCondition(const std::string& type, const std::string& status, const std::string& reason,
                  const std::string& message, const std::string& now) {
  return {{"type", type},
          {"status", status},
          {"lastUpdateTime", now},
          {"lastTransitionTime", now},
          {"reason", reason},
          {"message", message}};
}

// deploymentutil.SetDeploymentCondition: same status and reason -> unchanged; same status ->
// keep lastTransitionTime; the condition moves to the end.
void SetDeploymentCondition(Json& status, Json condition) {
  const Json* current = Condition(status, condition["type"]);
  if (current && (*current)["status"] == condition["status"] &&
      (*current)["reason"] == condition["reason"]) {
    return;
  }
  if (current && (*current)["status"] == condition["status"]) {
    condition["lastTransitionTime"] = (*current)["lastTransitionTime"];
  }
  RemoveCondition(status, condition["type"]);
  if (!status["conditions"].is_array()) status["conditions"] = Json::array();
  status["conditions"].push_back(std::move(condition));
}

bool DeploymentComplete(const Json& d, const Json& status) {
  int64_t want = Replicas(d);
  return Int(status, {"updatedReplicas"}) == want && Int(status, {"replicas"}) == want &&
         Int(status, {"availableReplicas"}) == want &&
         Int(status, {"observedGeneration"}) >= Int(d, {"metadata", "generation"});
}

bool DeploymentProgressing(const Json& d, const Json& next) {
  const Json& old = At(d, {"status"});
  int64_t old_old = Int(old, {"replicas"}) - Int(old, {"updatedReplicas"});
  int64_t new_old = Int(next, {"replicas"}) - Int(next, {"updatedReplicas"});
  return Int(next, {"updatedReplicas"}) > Int(old, {"updatedReplicas"}) || new_old < old_old ||
         Int(next, {"readyReplicas"}) > Int(old, {"readyReplicas"}) ||
         Int(next, {"availableReplicas"}) > Int(old, {"availableReplicas"});
}

bool DeploymentTimedOut(const Json& d, const Json& next, TimePoint now) {
  if (!HasProgressDeadline(d)) return false;
  const Json* c = Condition(next, "Progressing");
  if (!c) return false;
  std::string reason = c->value("reason", "");
  if (reason == "NewReplicaSetAvailable") return false;
  if (reason == "ProgressDeadlineExceeded") return true;
  auto from = ParseTime(c->contains("lastUpdateTime") ? (*c)["lastUpdateTime"] : Json());
  if (!from) return false;
  return *from + std::chrono::seconds(Int(d, {"spec", "progressDeadlineSeconds"})) < now;
}

Json CalculateStatus(const Json& d, const std::vector<Json>& all, const std::optional<Json>& new_rs,
                     const std::string& now) {
  int64_t available = SumStatus(all, "availableReplicas");
  int64_t unavailable = std::max<int64_t>(0, SumSpec(all) - available);
  Json status = {{"observedGeneration", Int(d, {"metadata", "generation"})},
                 {"replicas", SumStatus(all, "replicas")},
                 {"updatedReplicas", new_rs ? Int(*new_rs, {"status", "replicas"}) : 0},
                 {"readyReplicas", SumStatus(all, "readyReplicas")},
                 {"availableReplicas", available},
                 {"unavailableReplicas", unavailable},
                 {"conditions", At(d, {"status", "conditions"}).is_array()
                                    ? At(d, {"status", "conditions"})
                                    : Json::array()}};
  if (At(d, {"status", "collisionCount"}).is_number_integer()) {
    status["collisionCount"] = At(d, {"status", "collisionCount"});
  }
  if (available >= Replicas(d) - DeploymentMaxUnavailable(d)) {
    SetDeploymentCondition(status, NewCondition("Available", "True", "MinimumReplicasAvailable",
                                                "Deployment has minimum availability.", now));
  } else {
    SetDeploymentCondition(status, NewCondition("Available", "False", "MinimumReplicasUnavailable",
                                                "Deployment does not have minimum availability.",
                                                now));
  }
  return status;
}

ReplicaSetSizes SizesOf(const Json& rs) {
  std::string max = Str(rs, {"metadata", "annotations", std::string(kMaxReplicasAnnotation)});
  int64_t annotated = 0;
  try {
    annotated = max.empty() ? 0 : std::stoll(max);
  } catch (...) {
  }
  return {Str(rs, {"metadata", "name"}), Replicas(rs), Int(rs, {"status", "availableReplicas"}),
          Str(rs, {"metadata", "creationTimestamp"}), annotated};
}

// Copies the Deployment's annotations (but not the skipped ones) to the ReplicaSet's.
bool CopyAnnotations(const Json& d, Json& annotations) {
  bool changed = false;
  const Json& from = At(d, {"metadata", "annotations"});
  if (!from.is_object()) return false;
  for (auto& [k, v] : from.items()) {
    if (std::find(kAnnotationsNotCopied.begin(), kAnnotationsNotCopied.end(), k) !=
        kAnnotationsNotCopied.end()) {
      continue;
    }
    if (!annotations.contains(k) || annotations[k] != v) {
      annotations[k] = v;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

DeploymentController::DeploymentController(const kube::KubeClient* client, InformerSet* informers,
                                           EventRecorder* events, Clock* clock, int workers)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      controller_("deployment-controller", clock, workers,
                  [this](const std::string& key) { return Sync(key); }) {
  auto enqueue = [this](const Json& d) { controller_.Enqueue(kube::ObjectKey(d)); };
  informers_->Get(DeploymentsGvr())->AddEventHandler(
      {.on_add = enqueue,
       .on_update = [enqueue](const Json&, const Json& d) { enqueue(d); },
       .on_delete = enqueue});
  informers_->Get(ReplicaSetsGvr())->AddEventHandler(
      {.on_add = [this](const Json& rs) { EnqueueOwnerOf(rs); },
       .on_update = [this](const Json& o, const Json& n) {
         EnqueueOwnerOf(n);
         if (ControllerRef(o) != ControllerRef(n)) EnqueueOwnerOf(o);
       },
       .on_delete = [this](const Json& rs) { EnqueueOwnerOf(rs); }});
  // Recreate waits for old pods to disappear.
  informers_->Get(PodsGvr())->AddEventHandler({.on_delete = [this](const Json& pod) {
    auto ref = ControllerRef(pod);
    if (!ref || ref->value("kind", "") != "ReplicaSet") return;
    auto rs = informers_->Store(ReplicaSetsGvr())
                  .GetShared(Str(pod, {"metadata", "namespace"}) + "/" + ref->value("name", ""));
    if (rs) EnqueueOwnerOf(*rs);
  }});
}

void DeploymentController::EnqueueOwnerOf(const Json& rs) {
  const std::string ns = Str(rs, {"metadata", "namespace"});
  auto ref = ControllerRef(rs);
  if (ref) {
    if (ref->value("kind", "") == "Deployment") controller_.Enqueue(ns + "/" + ref->value("name", ""));
    return;
  }
  // An orphan: any Deployment selecting it may adopt it.
  const LabelMap labels = kube::ObjectLabels(rs);
  for (const kube::ObjectPtr& d : informers_->Store(DeploymentsGvr()).ListShared(ns)) {
    auto selector = LabelSelector::FromJson(At(*d, {"spec", "selector"}));
    if (selector.ok() && !selector->Empty() && selector->Matches(labels)) {
      controller_.Enqueue(kube::ObjectKey(*d));
    }
  }
}

std::vector<Json> DeploymentController::ClaimReplicaSets(const Json& d) {
  std::vector<Json> owned;
  auto selector = LabelSelector::FromJson(At(d, {"spec", "selector"}));
  if (!selector.ok()) return owned;
  const std::string ns = Str(d, {"metadata", "namespace"});
  const std::string uid = Str(d, {"metadata", "uid"});
  for (const kube::ObjectPtr& candidate :
       ClaimCandidates(informers_->Store(ReplicaSetsGvr()), ns, uid, *selector)) {
    const Json& rs = *candidate;
    auto ref = ControllerRef(rs);
    bool matches = selector->Matches(kube::ObjectLabels(rs));
    if (ref && ref->value("uid", "") == uid) {
      if (matches) {
        owned.push_back(rs);
        continue;
      }
      client_->Patch(ReplicaSetsGvr(), ns, Str(rs, {"metadata", "name"}), kube::PatchType::kJson,
                     ReleasePatch(rs, uid)).status().IgnoreError();
      continue;
    }
    if (ref || !matches || IsDeleting(d) || IsDeleting(rs)) continue;
    auto adopted = client_->Patch(ReplicaSetsGvr(), ns, Str(rs, {"metadata", "name"}),
                                  kube::PatchType::kJson, AdoptPatch(rs, d));
    if (adopted.ok()) owned.push_back(std::move(*adopted));
  }
  return owned;
}

DeploymentController::Sets DeploymentController::Split(const Json& d,
                                                       const std::vector<Json>& sets) const {
  Sets out;
  std::vector<Json> sorted = sets;
  std::sort(sorted.begin(), sorted.end(), OlderFirst);
  const Json& tmpl = At(d, {"spec", "template"});
  for (Json& rs : sorted) {
    if (!out.new_rs && EqualIgnoreHash(At(rs, {"spec", "template"}), tmpl)) {
      out.new_rs = std::move(rs);
    } else {
      out.old.push_back(std::move(rs));
    }
  }
  return out;
}

StatusOr<bool> DeploymentController::Scale(const Json& d, Json& rs, int64_t replicas) {
  const int64_t desired = Replicas(d);
  const std::string desired_s = std::to_string(desired);
  const std::string max_s = std::to_string(desired + DeploymentMaxSurge(d));
  const int64_t before = Replicas(rs);
  bool size = before != replicas;
  bool annotations =
      Str(rs, {"metadata", "annotations", std::string(kDesiredReplicasAnnotation)}) != desired_s ||
      Str(rs, {"metadata", "annotations", std::string(kMaxReplicasAnnotation)}) != max_s;
  if (!size && !annotations) return false;
  Json patch = {{"metadata",
                 {{"resourceVersion", Str(rs, {"metadata", "resourceVersion"})},
                  {"annotations",
                   {{std::string(kDesiredReplicasAnnotation), desired_s},
                    {std::string(kMaxReplicasAnnotation), max_s}}}}},
                {"spec", {{"replicas", replicas}}}};
  TRIMTAB_ASSIGN_OR_RETURN(rs, client_->Patch(ReplicaSetsGvr(), Str(rs, {"metadata", "namespace"}),
                                              Str(rs, {"metadata", "name"}),
                                              kube::PatchType::kMerge, patch.dump()));
  if (size) {
    events_->Record(d, {.component = kComponent}, "Normal", "ScalingReplicaSet",
                    "Scaled " + std::string(replicas > before ? "up" : "down") + " replica set " +
                        Str(rs, {"metadata", "name"}) + " from " + std::to_string(before) +
                        " to " + std::to_string(replicas));
  }
  return size;
}

StatusOr<std::optional<Json>> DeploymentController::NewReplicaSet(Json& d, Sets& sets,
                                                                  bool create) {
  const std::string now = NowString(clock_);
  int64_t max_old = 0;
  for (const Json& rs : sets.old) max_old = std::max(max_old, Revision(rs));
  const int64_t new_revision = max_old + 1;
  Json& d_annotations = d["metadata"]["annotations"];
  if (!d_annotations.is_object()) d_annotations = Json::object();

  if (sets.new_rs) {
    Json& rs = *sets.new_rs;
    Json annotations = At(rs, {"metadata", "annotations"});
    if (!annotations.is_object()) annotations = Json::object();
    bool changed = CopyAnnotations(d, annotations);
    std::string old_revision = annotations.value(std::string(kRevisionAnnotation), "");
    int64_t old_rev = Revision(rs);
    if (old_rev < new_revision) {
      annotations[std::string(kRevisionAnnotation)] = std::to_string(new_revision);
      if (!old_revision.empty()) {
        std::string history = annotations.value("deployment.kubernetes.io/revision-history", "");
        annotations["deployment.kubernetes.io/revision-history"] =
            history.empty() ? old_revision : history + "," + old_revision;
      }
      changed = true;
    }
    int64_t min_ready = Int(d, {"spec", "minReadySeconds"});
    if (changed || Int(rs, {"spec", "minReadySeconds"}) != min_ready) {
      Json patch = {{"metadata", {{"resourceVersion", Str(rs, {"metadata", "resourceVersion"})},
                                  {"annotations", annotations}}},
                    {"spec", {{"minReadySeconds", min_ready}}}};
      TRIMTAB_ASSIGN_OR_RETURN(rs, client_->Patch(ReplicaSetsGvr(), Str(rs, {"metadata", "namespace"}),
                                                  Str(rs, {"metadata", "name"}),
                                                  kube::PatchType::kMerge, patch.dump()));
    }
    d_annotations[std::string(kRevisionAnnotation)] =
        Str(rs, {"metadata", "annotations", std::string(kRevisionAnnotation)});
    if (HasProgressDeadline(d) && !Condition(d["status"], "Progressing")) {
      SetDeploymentCondition(d["status"], NewCondition("Progressing", "True", "FoundNewReplicaSet",
                                                       "Found new replica set \"" +
                                                           Str(rs, {"metadata", "name"}) + "\"",
                                                       now));
    }
    return sets.new_rs;
  }
  if (!create) return std::optional<Json>();

  const int64_t collisions = Int(d, {"status", "collisionCount"});
  const std::string hash = PodTemplateHash(At(d, {"spec", "template"}), collisions);
  Json tmpl = At(d, {"spec", "template"});
  tmpl["metadata"]["labels"][std::string(kPodTemplateHashLabel)] = hash;
  Json selector = At(d, {"spec", "selector"});
  selector["matchLabels"][std::string(kPodTemplateHashLabel)] = hash;
  const std::string name = Str(d, {"metadata", "name"}) + "-" + hash;
  const std::string ns = Str(d, {"metadata", "namespace"});
  const int64_t desired = Replicas(d);
  const bool recreate = Str(d, {"spec", "strategy", "type"}, "RollingUpdate") == "Recreate";
  const int64_t replicas = recreate ? desired
                                    : NewRSNewReplicas(desired, DeploymentMaxSurge(d),
                                                       SumSpec(sets.old), 0);
  Json annotations = Json::object();
  CopyAnnotations(d, annotations);
  annotations[std::string(kRevisionAnnotation)] = std::to_string(new_revision);
  annotations[std::string(kDesiredReplicasAnnotation)] = std::to_string(desired);
  annotations[std::string(kMaxReplicasAnnotation)] = std::to_string(desired + DeploymentMaxSurge(d));
  Json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", {{"name", name},
                           {"namespace", ns},
                           {"labels", tmpl["metadata"]["labels"]},
                           {"annotations", annotations},
                           {"ownerReferences", Json::array({ControllerRefTo(d)})}}},
             {"spec", {{"replicas", replicas},
                       {"minReadySeconds", Int(d, {"spec", "minReadySeconds"})},
                       {"selector", selector},
                       {"template", tmpl}}}};
  auto created = client_->Create(ReplicaSetsGvr(), ns, rs);
  bool already_existed = false;
  if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists) {
    auto live = client_->Get(ReplicaSetsGvr(), ns, name);
    if (!live.ok()) return live.status();
    if (IsControlledBy(*live, d) &&
        EqualIgnoreHash(At(*live, {"spec", "template"}), At(d, {"spec", "template"}))) {
      created = std::move(live);
      already_existed = true;
    } else {
      // A hash collision: another template hashed to the same name.
      Json patch = {{"status", {{"collisionCount", collisions + 1}}}};
      client_->Patch(DeploymentsGvr(), ns, Str(d, {"metadata", "name"}), kube::PatchType::kMerge,
                     patch.dump(), {.subresource = "status"}).status().IgnoreError();
      return ConflictError("replica set " + name + " exists with another template (hash collision)");
    }
  }
  if (!created.ok()) {
    std::string msg = "Failed to create new replica set \"" + name + "\": " + created.status().message();
    if (HasProgressDeadline(d) && created.status().code() != StatusCode::kPermissionDenied) {
      SetDeploymentCondition(d["status"],
                             NewCondition("Progressing", "False", "ReplicaSetCreateError", msg, now));
    }
    events_->Record(d, {.component = kComponent}, "Warning", "ReplicaSetCreateError", msg);
    return created.status();
  }
  if (!already_existed && replicas > 0) {
    events_->Record(d, {.component = kComponent}, "Normal", "ScalingReplicaSet",
                    "Scaled up replica set " + name + " from 0 to " + std::to_string(replicas));
  }
  d_annotations[std::string(kRevisionAnnotation)] = std::to_string(new_revision);
  if (!already_existed && HasProgressDeadline(d)) {
    SetDeploymentCondition(d["status"], NewCondition("Progressing", "True", "NewReplicaSetCreated",
                                                     "Created new replica set \"" + name + "\"",
                                                     now));
  }
  sets.new_rs = std::move(*created);
  return sets.new_rs;
}

void DeploymentController::CheckPausedConditions(Json& d) {
  if (!HasProgressDeadline(d)) return;
  const Json* cond = Condition(d["status"], "Progressing");
  if (cond && cond->value("reason", "") == "ProgressDeadlineExceeded") return;
  const bool paused_cond = cond && cond->value("reason", "") == "DeploymentPaused";
  const bool paused = Bool(d, {"spec", "paused"});
  const std::string now = NowString(clock_);
  if (paused && !paused_cond) {
    SetDeploymentCondition(d["status"], NewCondition("Progressing", "Unknown", "DeploymentPaused",
                                                     "Deployment is paused", now));
    return;
  }
  if (!paused && paused_cond) {
    SetDeploymentCondition(d["status"], NewCondition("Progressing", "Unknown", "DeploymentResumed",
                                                     "Deployment is resumed", now));
  }
}

Status DeploymentController::ScaleOnly(const Json& d, Sets& sets) {
  const int64_t desired = Replicas(d);
  std::vector<Json*> all;
  for (Json& rs : sets.old) all.push_back(&rs);
  if (sets.new_rs) all.push_back(&*sets.new_rs);
  std::vector<Json*> active;
  for (Json* rs : all) {
    if (Replicas(*rs) > 0) active.push_back(rs);
  }
  // One active set (or none: the newest) takes the whole count.
  Json* target = nullptr;
  if (active.size() == 1) {
    target = active[0];
  } else if (active.empty() && !all.empty()) {
    target = sets.new_rs ? &*sets.new_rs : &sets.old.back();
  }
  if (target) return Scale(d, *target, desired).status();
  if (active.empty()) return Status::Ok();
  // A saturated new set: the old ones go to zero.
  if (sets.new_rs && Replicas(*sets.new_rs) == desired &&
      Str(*sets.new_rs, {"metadata", "annotations", std::string(kDesiredReplicasAnnotation)}) ==
          std::to_string(desired) &&
      Int(*sets.new_rs, {"status", "availableReplicas"}) == desired) {
    for (Json& rs : sets.old) {
      if (Replicas(rs) > 0) TRIMTAB_RETURN_IF_ERROR(Scale(d, rs, 0).status());
    }
    return Status::Ok();
  }
  if (Str(d, {"spec", "strategy", "type"}, "RollingUpdate") != "RollingUpdate") return Status::Ok();
  std::vector<ReplicaSetSizes> sizes;
  for (Json* rs : active) sizes.push_back(SizesOf(*rs));
  auto targets = ProportionalSizes(desired, DeploymentMaxSurge(d), Int(d, {"status", "replicas"}),
                                   sizes);
  for (Json* rs : active) {
    TRIMTAB_RETURN_IF_ERROR(Scale(d, *rs, targets[Str(*rs, {"metadata", "name"})]).status());
  }
  return Status::Ok();
}

Status DeploymentController::CleanupOld(const Json& d, const std::vector<Json>& old) {
  const Json& limit_v = At(d, {"spec", "revisionHistoryLimit"});
  if (!limit_v.is_number_integer()) return Status::Ok();
  std::vector<const Json*> cleanable;
  for (const Json& rs : old) {
    if (!IsDeleting(rs)) cleanable.push_back(&rs);
  }
  int64_t diff = static_cast<int64_t>(cleanable.size()) - limit_v.get<int64_t>();
  if (diff <= 0) return Status::Ok();
  std::sort(cleanable.begin(), cleanable.end(), [](const Json* a, const Json* b) {
    if (Revision(*a) != Revision(*b)) return Revision(*a) < Revision(*b);
    return OlderFirst(*a, *b);
  });
  for (int64_t i = 0; i < diff; ++i) {
    const Json& rs = *cleanable[static_cast<size_t>(i)];
    if (Int(rs, {"status", "replicas"}) != 0 || Replicas(rs) != 0 ||
        Int(rs, {"metadata", "generation"}) > Int(rs, {"status", "observedGeneration"})) {
      continue;
    }
    Status s = client_->Delete(ReplicaSetsGvr(), Str(rs, {"metadata", "namespace"}),
                               Str(rs, {"metadata", "name"}));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

Result DeploymentController::RolloutRolling(const Json& original, Json& d, Sets sets) {
  auto created = NewReplicaSet(d, sets, true);
  if (!created.ok()) {
    SyncRolloutStatus(original, d, sets, false);  // records ReplicaSetCreateError
    return Result::Retry(created.status().ToString());
  }
  Json& new_rs = *sets.new_rs;
  const int64_t desired = Replicas(d);
  std::vector<Json> all = sets.old;
  all.push_back(new_rs);
  // Scale up the new ReplicaSet if we can.
  StatusOr<bool> scaled = false;
  if (Replicas(new_rs) > desired) {
    scaled = Scale(d, new_rs, desired);
  } else if (Replicas(new_rs) < desired) {
    scaled = Scale(d, new_rs,
                   NewRSNewReplicas(desired, DeploymentMaxSurge(d), SumSpec(all), Replicas(new_rs)));
  }
  if (!scaled.ok()) return Result::Retry(scaled.status().ToString());
  if (*scaled) return SyncRolloutStatus(original, d, sets, true);
  // Scale down old ReplicaSets if we can.
  std::vector<Json*> active_old;
  std::vector<ReplicaSetSizes> sizes;
  for (Json& rs : sets.old) {
    if (Replicas(rs) == 0) continue;
    active_old.push_back(&rs);
    sizes.push_back(SizesOf(rs));
  }
  std::vector<int64_t> targets =
      ScaleDownOldReplicaSets(desired, DeploymentMaxUnavailable(d), SizesOf(new_rs), sizes);
  bool scaled_down = false;
  for (size_t i = 0; i < active_old.size(); ++i) {
    if (targets[i] == Replicas(*active_old[i])) continue;
    auto s = Scale(d, *active_old[i], targets[i]);
    if (!s.ok()) return Result::Retry(s.status().ToString());
    scaled_down = scaled_down || *s;
  }
  if (scaled_down) return SyncRolloutStatus(original, d, sets, true);
  if (DeploymentComplete(d, At(d, {"status"}))) {
    Status s = CleanupOld(d, sets.old);
    if (!s.ok()) return Result::Retry(s.ToString());
  }
  return SyncRolloutStatus(original, d, sets, true);
}

Result DeploymentController::RolloutRecreate(const Json& original, Json& d, Sets sets) {
  auto found = NewReplicaSet(d, sets, false);
  if (!found.ok()) return Result::Retry(found.status().ToString());
  bool scaled_down = false;
  for (Json& rs : sets.old) {
    if (Replicas(rs) == 0) continue;
    auto s = Scale(d, rs, 0);
    if (!s.ok()) return Result::Retry(s.status().ToString());
    scaled_down = scaled_down || *s;
  }
  if (scaled_down) return SyncRolloutStatus(original, d, sets, true);
  // Wait until no pod of an old ReplicaSet is left (terminating ones count).
  bool old_running = SumStatus(sets.old, "replicas") > 0;
  if (!old_running) {
    const std::string ns = Str(d, {"metadata", "namespace"});
    for (const Json& rs : sets.old) {
      const std::string uid = Str(rs, {"metadata", "uid"});
      if (uid.empty()) continue;
      for (const kube::ObjectPtr& p : informers_->Store(PodsGvr()).ListOwnedBy(uid)) {
        auto ref = ControllerRef(*p);
        if (ref && ref->value("uid", "") == uid && Str(*p, {"metadata", "namespace"}) == ns &&
            !IsPodTerminal(*p)) {
          old_running = true;
        }
      }
    }
  }
  if (old_running) return SyncRolloutStatus(original, d, sets, true);
  auto created = NewReplicaSet(d, sets, true);
  if (!created.ok()) return Result::Retry(created.status().ToString());
  auto s = Scale(d, *sets.new_rs, Replicas(d));
  if (!s.ok()) return Result::Retry(s.status().ToString());
  if (DeploymentComplete(d, At(d, {"status"}))) {
    Status c = CleanupOld(d, sets.old);
    if (!c.ok()) return Result::Retry(c.ToString());
  }
  return SyncRolloutStatus(original, d, sets, true);
}

Result DeploymentController::SyncRolloutStatus(const Json& original, Json& d, const Sets& sets,
                                                bool check_progress) {
  const TimePoint now_t = clock_->Now();
  const std::string now = FormatRfc3339(now_t);
  std::vector<Json> all = sets.old;
  if (sets.new_rs) all.push_back(*sets.new_rs);
  Json status = CalculateStatus(d, all, sets.new_rs, now);
  const std::string rs_name = sets.new_rs ? Str(*sets.new_rs, {"metadata", "name"}) : "";
  const std::string subject = sets.new_rs ? "ReplicaSet \"" + rs_name + "\""
                                          : "Deployment \"" + Str(d, {"metadata", "name"}) + "\"";
  if (!HasProgressDeadline(d)) RemoveCondition(status, "Progressing");
  const Json* current = Condition(d["status"], "Progressing");
  const bool complete_before = Int(status, {"replicas"}) == Int(status, {"updatedReplicas"}) &&
                               current && current->value("reason", "") == "NewReplicaSetAvailable";
  if (check_progress && HasProgressDeadline(d) && !complete_before) {
    if (DeploymentComplete(d, status)) {
      SetDeploymentCondition(status, NewCondition("Progressing", "True", "NewReplicaSetAvailable",
                                                  subject + " has successfully progressed.", now));
    } else if (DeploymentProgressing(d, status)) {
      Json cond = NewCondition("Progressing", "True", "ReplicaSetUpdated", subject + " is progressing.", now);
      if (current && current->value("status", "") == "True") {
        cond["lastTransitionTime"] = (*current)["lastTransitionTime"];
      }
      RemoveCondition(status, "Progressing");
      SetDeploymentCondition(status, cond);
    } else if (DeploymentTimedOut(d, status, now_t)) {
      SetDeploymentCondition(status, NewCondition("Progressing", "False", "ProgressDeadlineExceeded",
                                                  subject + " has timed out progressing.", now));
    }
  }
  // ReplicaFailure of a ReplicaSet (e.g. pods forbidden) shows on the Deployment.
  std::optional<Json> failure;
  for (const Json& rs : all) {
    const Json* c = FindCondition(rs, "ReplicaFailure");
    if (c && c->value("status", "") == "True") failure = *c;
  }
  if (failure) {
    SetDeploymentCondition(status, NewCondition("ReplicaFailure", "True", failure->value("reason", ""),
                                                failure->value("message", ""), now));
  } else {
    RemoveCondition(status, "ReplicaFailure");
  }

  const std::string ns = Str(d, {"metadata", "namespace"});
  const std::string name = Str(d, {"metadata", "name"});
  const std::string revision = Str(d, {"metadata", "annotations", std::string(kRevisionAnnotation)});
  if (!revision.empty() &&
      revision != Str(original, {"metadata", "annotations", std::string(kRevisionAnnotation)})) {
    Json patch = {{"metadata", {{"annotations", {{std::string(kRevisionAnnotation), revision}}}}}};
    auto r = client_->Patch(DeploymentsGvr(), ns, name, kube::PatchType::kMerge, patch.dump());
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) return Result::Retry(r.status().ToString());
  }
  if (status != At(original, {"status"})) {
    auto r = client_->Patch(DeploymentsGvr(), ns, name, kube::PatchType::kMerge,
                            Json{{"status", status}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) return Result::Retry(r.status().ToString());
  }
  // Look again when the progress deadline would pass (requeueStuckDeployment).
  const Json* progressing = Condition(status, "Progressing");
  if (!HasProgressDeadline(d) || Bool(d, {"spec", "paused"}) || !progressing ||
      progressing->value("status", "") != "True" ||
      progressing->value("reason", "") == "NewReplicaSetAvailable" || DeploymentComplete(d, status)) {
    return Result::Done();
  }
  auto updated = ParseTime((*progressing).contains("lastUpdateTime") ? (*progressing)["lastUpdateTime"] : Json());
  if (!updated) return Result::Done();
  Duration after = *updated + std::chrono::seconds(Int(d, {"spec", "progressDeadlineSeconds"})) - now_t;
  return Result::After(std::max<Duration>(after, std::chrono::seconds(0)) + std::chrono::seconds(1));
}

Result DeploymentController::Sync(const std::string& key) {
  auto cached = informers_->Store(DeploymentsGvr()).GetByKey(key);
  if (!cached) return Result::Done();
  const Json original = *cached;
  Json d = original;
  if (!d["status"].is_object()) d["status"] = Json::object();
  auto selector = LabelSelector::FromJson(At(d, {"spec", "selector"}));
  if (!selector.ok() || selector->Empty()) {
    events_->Record(d, {.component = kComponent}, "Warning", "SelectingAll",
                    "This deployment is selecting all pods. A non-empty selector is required.");
    return Result::Done();
  }
  std::vector<Json> owned = ClaimReplicaSets(d);
  Sets sets = Split(d, owned);
  if (IsDeleting(d)) return SyncRolloutStatus(original, d, sets, false);
  CheckPausedConditions(d);
  bool scaling_event = false;
  if (!Bool(d, {"spec", "paused"})) {
    const std::string desired = std::to_string(Replicas(d));
    std::vector<const Json*> active;
    for (const Json& rs : sets.old) {
      if (Replicas(rs) > 0) active.push_back(&rs);
    }
    if (sets.new_rs && Replicas(*sets.new_rs) > 0) active.push_back(&*sets.new_rs);
    for (const Json* rs : active) {
      std::string annotated =
          Str(*rs, {"metadata", "annotations", std::string(kDesiredReplicasAnnotation)});
      if (!annotated.empty() && annotated != desired) scaling_event = true;
    }
  }
  if (Bool(d, {"spec", "paused"}) || scaling_event) {
    auto found = NewReplicaSet(d, sets, false);
    if (!found.ok()) return Result::Retry(found.status().ToString());
    Status s = ScaleOnly(d, sets);
    if (!s.ok()) return Result::Retry(s.ToString());
    if (Bool(d, {"spec", "paused"})) {
      Status c = CleanupOld(d, sets.old);
      if (!c.ok()) return Result::Retry(c.ToString());
    }
    return SyncRolloutStatus(original, d, sets, false);
  }
  if (Str(d, {"spec", "strategy", "type"}, "RollingUpdate") == "Recreate") {
    return RolloutRecreate(original, d, std::move(sets));
  }
  return RolloutRolling(original, d, std::move(sets));
}

}  // namespace trimtab::cluster::runtime
