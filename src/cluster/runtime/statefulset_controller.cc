#include "cluster/runtime/statefulset_controller.h"

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "statefulset-controller";
constexpr char kRevisionLabel[] = "controller-revision-hash";

// The ordinal of a pod "<set>-<n>" of `set`, or -1.
int64_t OrdinalOf(const std::string& set, const Json& pod) {
  const std::string name = Str(pod, {"metadata", "name"});
  if (name.size() <= set.size() + 1 || name.compare(0, set.size() + 1, set + "-") != 0) return -1;
  const std::string n = name.substr(set.size() + 1);
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::stoll(n);
}

std::string ClaimName(const Json& claim_template, const std::string& set, int64_t ordinal) {
  return Str(claim_template, {"metadata", "name"}) + "-" + set + "-" + std::to_string(ordinal);
}

}  // namespace

std::string TemplateRevision(const std::string& name, const Json& pod_template) {
  // FNV-1a over the template's canonical JSON: stable across processes (std::hash is not).
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : pod_template.dump()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", static_cast<unsigned>(h ^ (h >> 32)));
  return name + "-" + std::string(buf).substr(0, 8);
}

StatefulSetController::StatefulSetController(const kube::KubeClient* client,
                                             InformerSet* informers, EventRecorder* events,
                                             Clock* clock, int workers)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      controller_("statefulset-controller", clock, workers,
                  [this](const std::string& key) { return Sync(key); }) {
  EnqueueObjects(informers_, StatefulSetsGvr(), &controller_);
  EnqueueControllerOfPods(informers_, "StatefulSet", &controller_);
  informers_->Get(PersistentVolumeClaimsGvr());
}

Status StatefulSetController::EnsureClaims(const Json& set, int64_t ordinal) {
  const Json& templates = At(set, {"spec", "volumeClaimTemplates"});
  if (!templates.is_array()) return Status::Ok();
  const std::string ns = Str(set, {"metadata", "namespace"});
  const std::string name = Str(set, {"metadata", "name"});
  for (const Json& t : templates) {
    const std::string claim = ClaimName(t, name, ordinal);
    if (informers_->Store(PersistentVolumeClaimsGvr()).GetByKey(ns + "/" + claim)) continue;
    Json pvc = {{"apiVersion", "v1"},
                {"kind", "PersistentVolumeClaim"},
                {"metadata", {{"name", claim}, {"namespace", ns}}},
                {"spec", At(t, {"spec"})}};
    const Json& match = At(set, {"spec", "selector", "matchLabels"});
    Json labels = At(t, {"metadata", "labels"});
    if (!labels.is_object()) labels = Json::object();
    if (match.is_object()) labels.update(match);
    if (!labels.empty()) pvc["metadata"]["labels"] = labels;
    auto created = client_->Create(PersistentVolumeClaimsGvr(), ns, pvc);
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      events_->Record(set, {.component = kComponent}, "Warning", "FailedCreate",
                      "create Claim " + claim + " for Pod " + name + "-" +
                          std::to_string(ordinal) + " in StatefulSet " + name + " failed error: " +
                          created.status().message());
      return created.status();
    }
    if (created.ok()) {
      events_->Record(set, {.component = kComponent}, "Normal", "SuccessfulCreate",
                      "create Claim " + claim + " Pod " + name + "-" + std::to_string(ordinal) +
                          " in StatefulSet " + name + " success");
    }
  }
  return Status::Ok();
}

Result StatefulSetController::Sync(const std::string& key) {
  auto set = informers_->Store(StatefulSetsGvr()).GetByKey(key);
  if (!set) return Result::Done();
  const std::string ns = Str(*set, {"metadata", "namespace"});
  const std::string name = Str(*set, {"metadata", "name"});
  const int64_t replicas = Int(*set, {"spec", "replicas"}, 1);
  const bool parallel = Str(*set, {"spec", "podManagementPolicy"}) == "Parallel";
  const Json& tmpl = At(*set, {"spec", "template"});
  const std::string update_revision = TemplateRevision(name, tmpl);
  const TimePoint now = clock_->Now();
  const int64_t min_ready = Int(*set, {"spec", "minReadySeconds"});

  std::map<int64_t, Json> pods;  // by ordinal
  for (Json& p : PodsControlledBy(informers_, *set)) {
    int64_t ordinal = OrdinalOf(name, p);
    if (ordinal >= 0) pods[ordinal] = std::move(p);
  }
  Result next = Result::Done();
  bool acted = false;  // OrderedReady: one change per sync, then wait for the informer
  if (!IsDeleting(*set)) {
    // Failed pods are replaced.
    for (auto& [ordinal, p] : pods) {
      if (IsPodTerminal(p) && !IsDeleting(p)) {
        client_->Delete(PodsGvr(), ns, Str(p, {"metadata", "name"})).IgnoreError();
        events_->Record(*set, {.component = kComponent}, "Warning", "RecreatingFailedPod",
                        "StatefulSet " + key + " is recreating failed Pod " +
                            Str(p, {"metadata", "name"}));
        acted = true;
      }
    }
    // Create the missing ordinals below replicas.
    for (int64_t i = 0; i < replicas && (!acted || parallel); ++i) {
      if (pods.count(i)) {
        const Json& p = pods[i];
        if (!parallel && (!IsPodReady(p) || IsDeleting(p))) break;  // wait for this one
        continue;
      }
      Status claims = EnsureClaims(*set, i);
      if (!claims.ok()) return Result::Retry(claims.ToString());
      const std::string pod_name = name + "-" + std::to_string(i);
      Json pod_tmpl = tmpl;
      pod_tmpl["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = pod_name;
      pod_tmpl["metadata"]["labels"]["apps.kubernetes.io/pod-index"] = std::to_string(i);
      pod_tmpl["metadata"]["labels"][kRevisionLabel] = update_revision;
      pod_tmpl["spec"]["hostname"] = pod_name;
      if (std::string svc = Str(*set, {"spec", "serviceName"}); !svc.empty()) {
        pod_tmpl["spec"]["subdomain"] = svc;
      }
      const Json& claims_tmpl = At(*set, {"spec", "volumeClaimTemplates"});
      if (claims_tmpl.is_array()) {
        for (const Json& t : claims_tmpl) {
          const std::string vol = Str(t, {"metadata", "name"});
          Json& volumes = pod_tmpl["spec"]["volumes"];
          if (!volumes.is_array()) volumes = Json::array();
          bool present = false;
          for (const Json& v : volumes) present = present || v.value("name", "") == vol;
          if (!present) {
            volumes.push_back({{"name", vol},
                               {"persistentVolumeClaim", {{"claimName", ClaimName(t, name, i)}}}});
          }
        }
      }
      auto created = client_->Create(PodsGvr(), ns, PodFromTemplate(*set, pod_tmpl, pod_name, false));
      if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
        events_->Record(*set, {.component = kComponent}, "Warning", "FailedCreate",
                        "create Pod " + pod_name + " in StatefulSet " + name +
                            " failed error: " + created.status().message());
        return Result::Retry(created.status().ToString());
      }
      events_->Record(*set, {.component = kComponent}, "Normal", "SuccessfulCreate",
                      "create Pod " + pod_name + " in StatefulSet " + name + " successful");
      acted = true;
      if (!parallel) break;
    }
    // Delete ordinals at or above replicas, highest first.
    for (auto it = pods.rbegin(); it != pods.rend() && (!acted || parallel); ++it) {
      if (it->first < replicas) break;
      if (IsDeleting(it->second)) {
        if (!parallel) break;
        continue;
      }
      const std::string pod_name = Str(it->second, {"metadata", "name"});
      client_->Delete(PodsGvr(), ns, pod_name).IgnoreError();
      events_->Record(*set, {.component = kComponent}, "Normal", "SuccessfulDelete",
                      "delete Pod " + pod_name + " in StatefulSet " + name + " successful");
      acted = true;
      if (!parallel) break;
    }
    // Rolling update: the highest outdated ordinal at or above the partition, when all are Ready.
    const bool rolling = Str(*set, {"spec", "updateStrategy", "type"}, "RollingUpdate") ==
                         "RollingUpdate";
    const int64_t partition = Int(*set, {"spec", "updateStrategy", "rollingUpdate", "partition"});
    if (rolling && !acted) {
      bool all_ready = true;
      for (auto& [ordinal, p] : pods) {
        if (ordinal < replicas && (!IsPodReady(p) || IsDeleting(p))) all_ready = false;
      }
      if (all_ready && static_cast<int64_t>(pods.size()) >= replicas) {
        for (auto it = pods.rbegin(); it != pods.rend(); ++it) {
          if (it->first >= replicas || it->first < partition) continue;
          if (Str(it->second, {"metadata", "labels", kRevisionLabel}) == update_revision) {
            continue;
          }
          const std::string pod_name = Str(it->second, {"metadata", "name"});
          client_->Delete(PodsGvr(), ns, pod_name).IgnoreError();
          events_->Record(*set, {.component = kComponent}, "Normal", "SuccessfulDelete",
                          "delete Pod " + pod_name + " in StatefulSet " + name + " successful");
          break;
        }
      }
    }
  }

  int64_t ready = 0, available = 0, current = 0, updated = 0, count = 0;
  std::string current_revision = Str(*set, {"status", "currentRevision"});
  for (auto& [ordinal, p] : pods) {
    if (IsDeleting(p) && IsPodTerminal(p)) continue;
    ++count;
    if (IsPodReady(p)) ++ready;
    if (IsPodAvailable(p, min_ready, now)) ++available;
    const std::string rev = Str(p, {"metadata", "labels", kRevisionLabel});
    if (rev == update_revision) ++updated;
    if (current_revision.empty()) current_revision = rev;
    if (rev == current_revision) ++current;
  }
  if (updated >= replicas && ready >= replicas) {
    current_revision = update_revision;
    current = updated;
  }
  if (current_revision.empty()) current_revision = update_revision;
  Json status = {{"observedGeneration", Int(*set, {"metadata", "generation"})},
                 {"replicas", count},
                 {"readyReplicas", ready},
                 {"availableReplicas", available},
                 {"currentReplicas", current},
                 {"updatedReplicas", updated},
                 {"currentRevision", current_revision},
                 {"updateRevision", update_revision},
                 {"collisionCount", 0}};
  Json old = At(*set, {"status"});
  bool changed = false;
  for (auto& [k, v] : status.items()) {
    if (!old.is_object() || !old.contains(k) || old[k] != v) changed = true;
  }
  if (changed) {
    auto r = client_->Patch(StatefulSetsGvr(), ns, name, kube::PatchType::kMerge,
                            Json{{"status", status}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry("status of statefulset " + key + ": " + r.status().ToString());
    }
  }
  if (min_ready > 0 && available < ready) next = Result::After(std::chrono::seconds(1));
  return next;
}

}  // namespace trimtab::cluster::runtime
