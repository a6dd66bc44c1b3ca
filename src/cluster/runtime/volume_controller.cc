#include "cluster/runtime/volume_controller.h"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "common/label_selector.h"
#include "common/quantity.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "persistentvolume-controller";
constexpr char kDefaultClassAnnotation[] = "storageclass.kubernetes.io/is-default-class";
constexpr char kClaimPrefix[] = "pvc:";  // work-queue keys: "pvc:ns/name" or "pv:name"
constexpr char kVolumePrefix[] = "pv:";

std::optional<Quantity> StorageOf(const Json& list) {
  const Json& v = At(list, {"storage"});
  if (!v.is_string() && !v.is_number()) return std::nullopt;
  auto q = Quantity::Parse(v.is_string() ? v.get<std::string>() : v.dump());
  if (!q.ok()) return std::nullopt;
  return *q;
}

bool HasModes(const Json& volume_modes, const Json& wanted) {
  if (!wanted.is_array()) return true;
  for (const Json& w : wanted) {
    bool found = false;
    if (volume_modes.is_array()) {
      for (const Json& m : volume_modes) found = found || m == w;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

VolumeController::VolumeController(const kube::KubeClient* client, InformerSet* informers,
                                   EventRecorder* events, Clock* clock)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      controller_("persistentvolume-controller", clock, 1,
                  [this](const std::string& key) { return Sync(key); }) {
  auto claim = [this](const Json& o) {
    controller_.Enqueue(std::string(kClaimPrefix) + kube::ObjectKey(o));
  };
  auto volume = [this](const Json& o) {
    controller_.Enqueue(std::string(kVolumePrefix) + Str(o, {"metadata", "name"}));
    const Json& ref = At(o, {"spec", "claimRef"});
    if (ref.is_object()) {
      controller_.Enqueue(std::string(kClaimPrefix) + ref.value("namespace", "") + "/" +
                          ref.value("name", ""));
    }
  };
  auto all_claims = [this](const Json&) {
    auto claims = informers_->Store(PersistentVolumeClaimsGvr())
                      .List(PersistentVolumeClaimsGvr(), "", {});
    if (!claims.ok()) return;
    for (const Json& c : *claims) {
      if (Str(c, {"status", "phase"}) != "Bound") {
        controller_.Enqueue(std::string(kClaimPrefix) + kube::ObjectKey(c));
      }
    }
  };
  informers_->Get(PersistentVolumeClaimsGvr())
      ->AddEventHandler({.on_add = claim,
                         .on_update = [claim](const Json&, const Json& o) { claim(o); },
                         .on_delete = [this](const Json& o) {
                           auto pvs = informers_->Store(PersistentVolumesGvr())
                                          .List(PersistentVolumesGvr(), "", {});
                           if (!pvs.ok()) return;
                           for (const Json& pv : *pvs) {
                             if (Str(pv, {"spec", "claimRef", "uid"}) ==
                                 Str(o, {"metadata", "uid"})) {
                               controller_.Enqueue(std::string(kVolumePrefix) +
                                                   Str(pv, {"metadata", "name"}));
                             }
                           }
                         }});
  informers_->Get(PersistentVolumesGvr())
      ->AddEventHandler({.on_add = volume,
                         .on_update = [volume](const Json&, const Json& o) { volume(o); },
                         .on_delete = all_claims});
  informers_->Get(StorageClassesGvr())
      ->AddEventHandler({.on_add = all_claims,
                         .on_update = [all_claims](const Json&, const Json& o) { all_claims(o); },
                         .on_delete = all_claims});
  // WaitForFirstConsumer: a pod using a claim lets it provision.
  informers_->Get(PodsGvr())->AddEventHandler({.on_add = [this](const Json& pod) {
    const Json& volumes = At(pod, {"spec", "volumes"});
    if (!volumes.is_array()) return;
    for (const Json& v : volumes) {
      std::string claim_name = Str(v, {"persistentVolumeClaim", "claimName"});
      if (!claim_name.empty()) {
        controller_.Enqueue(std::string(kClaimPrefix) + Str(pod, {"metadata", "namespace"}) +
                            "/" + claim_name);
      }
    }
  }});
}

void VolumeController::Start() {
  auto existing = client_->Get(StorageClassesGvr(), "", "standard");
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) {
    Json sc = {{"apiVersion", "storage.k8s.io/v1"},
               {"kind", "StorageClass"},
               {"metadata",
                {{"name", "standard"}, {"annotations", {{kDefaultClassAnnotation, "true"}}}}},
               {"provisioner", kLocalProvisioner},
               {"reclaimPolicy", "Delete"},
               {"volumeBindingMode", "Immediate"}};
    auto r = client_->Create(StorageClassesGvr(), "", sc);
    if (!r.ok() && r.status().code() != StatusCode::kAlreadyExists) {
      events_->Record(sc, {.component = kComponent}, "Warning", "FailedCreate",
                      "default StorageClass: " + r.status().message());
    }
  }
  controller_.Start();
}

Result VolumeController::Sync(const std::string& key) {
  if (key.rfind(kClaimPrefix, 0) == 0) {
    auto claim =
        informers_->Store(PersistentVolumeClaimsGvr()).GetByKey(key.substr(strlen(kClaimPrefix)));
    return claim ? SyncClaim(*claim) : Result::Done();
  }
  auto volume = informers_->Store(PersistentVolumesGvr()).GetByKey(key.substr(strlen(kVolumePrefix)));
  return volume ? SyncVolume(*volume) : Result::Done();
}

Status VolumeController::Bind(const Json& claim, const Json& volume) {
  const std::string ns = Str(claim, {"metadata", "namespace"});
  const std::string name = Str(claim, {"metadata", "name"});
  const std::string pv = Str(volume, {"metadata", "name"});
  if (Str(volume, {"spec", "claimRef", "uid"}) != Str(claim, {"metadata", "uid"})) {
    Json ref = {{"kind", "PersistentVolumeClaim"},
                {"namespace", ns},
                {"name", name},
                {"uid", Str(claim, {"metadata", "uid"})},
                {"apiVersion", "v1"},
                {"resourceVersion", Str(claim, {"metadata", "resourceVersion"})}};
    auto r = client_->Patch(PersistentVolumesGvr(), "", pv, kube::PatchType::kMerge,
                            Json{{"spec", {{"claimRef", ref}}}}.dump());
    if (!r.ok()) return r.status();
  }
  if (Str(volume, {"status", "phase"}) != "Bound") {
    auto r = client_->Patch(PersistentVolumesGvr(), "", pv, kube::PatchType::kMerge,
                            Json{{"status", {{"phase", "Bound"}}}}.dump(),
                            {.subresource = "status"});
    if (!r.ok()) return r.status();
  }
  Json meta_patch = {{"metadata",
                      {{"annotations",
                        {{"pv.kubernetes.io/bind-completed", "yes"},
                         {"pv.kubernetes.io/bound-by-controller", "yes"}}}}},
                     {"spec", {{"volumeName", pv}}}};
  auto r = client_->Patch(PersistentVolumeClaimsGvr(), ns, name, kube::PatchType::kMerge,
                          meta_patch.dump());
  if (!r.ok()) return r.status();
  Json status = {{"phase", "Bound"},
                 {"accessModes", At(volume, {"spec", "accessModes"})},
                 {"capacity", At(volume, {"spec", "capacity"})}};
  r = client_->Patch(PersistentVolumeClaimsGvr(), ns, name, kube::PatchType::kMerge,
                     Json{{"status", status}}.dump(), {.subresource = "status"});
  return r.status();
}

Result VolumeController::SyncClaim(const Json& claim) {
  if (IsDeleting(claim)) return Result::Done();
  const std::string ns = Str(claim, {"metadata", "namespace"});
  const std::string name = Str(claim, {"metadata", "name"});
  const std::string uid = Str(claim, {"metadata", "uid"});
  auto classes = informers_->Store(StorageClassesGvr()).List(StorageClassesGvr(), "", {});
  if (!classes.ok()) return Result::Retry(classes.status().ToString());
  const Json& class_field = At(claim, {"spec", "storageClassName"});
  if (class_field.is_null()) {
    for (const Json& sc : *classes) {
      if (Str(sc, {"metadata", "annotations", kDefaultClassAnnotation}) == "true") {
        auto r = client_->Patch(
            PersistentVolumeClaimsGvr(), ns, name, kube::PatchType::kMerge,
            Json{{"spec", {{"storageClassName", Str(sc, {"metadata", "name"})}}}}.dump());
        return r.ok() ? Result::Done() : Result::Retry(r.status().ToString());
      }
    }
  }
  const std::string class_name = class_field.is_string() ? class_field.get<std::string>() : "";
  auto volumes = informers_->Store(PersistentVolumesGvr()).List(PersistentVolumesGvr(), "", {});
  if (!volumes.ok()) return Result::Retry(volumes.status().ToString());

  // Already bound (or pre-bound by the volume's claimRef): finish the binding.
  const std::string volume_name = Str(claim, {"spec", "volumeName"});
  for (const Json& pv : *volumes) {
    const bool named = !volume_name.empty() && Str(pv, {"metadata", "name"}) == volume_name;
    const bool claimed = Str(pv, {"spec", "claimRef", "uid"}) == uid ||
                         (Str(pv, {"spec", "claimRef", "uid"}).empty() &&
                          Str(pv, {"spec", "claimRef", "namespace"}) == ns &&
                          Str(pv, {"spec", "claimRef", "name"}) == name);
    if (named || claimed) {
      if (Str(claim, {"status", "phase"}) == "Bound" && Str(pv, {"status", "phase"}) == "Bound" &&
          Str(pv, {"spec", "claimRef", "uid"}) == uid && volume_name == Str(pv, {"metadata", "name"})) {
        return Result::Done();
      }
      Status s = Bind(claim, pv);
      return s.ok() ? Result::Done() : Result::Retry(s.ToString());
    }
  }
  if (!volume_name.empty()) return Result::Done();  // waits for that volume to appear

  // The smallest matching Available volume.
  auto want = StorageOf(At(claim, {"spec", "resources", "requests"}));
  auto selector = LabelSelector::FromJson(At(claim, {"spec", "selector"}));
  const Json* best = nullptr;
  std::optional<Quantity> best_size;
  for (const Json& pv : *volumes) {
    if (At(pv, {"spec", "claimRef"}).is_object() || IsDeleting(pv)) continue;
    if (Str(pv, {"spec", "storageClassName"}) != class_name) continue;
    if (!HasModes(At(pv, {"spec", "accessModes"}), At(claim, {"spec", "accessModes"}))) continue;
    if (selector.ok() && !selector->Empty() && !selector->Matches(kube::ObjectLabels(pv))) {
      continue;
    }
    auto size = StorageOf(At(pv, {"spec", "capacity"}));
    if (want && (!size || *size < *want)) continue;
    if (!best || (size && best_size && *size < *best_size)) {
      best = &pv;
      best_size = size;
    }
  }
  if (best) {
    Status s = Bind(claim, *best);
    return s.ok() ? Result::Done() : Result::Retry(s.ToString());
  }

  // Dynamic provisioning.
  if (class_name.empty()) return Result::Done();
  const Json* sc = nullptr;
  for (const Json& c : *classes) {
    if (Str(c, {"metadata", "name"}) == class_name) sc = &c;
  }
  if (sc == nullptr) {
    events_->Record(claim, {.component = kComponent}, "Warning", "ProvisioningFailed",
                    "storageclass.storage.k8s.io \"" + class_name + "\" not found");
    return Result::Done();
  }
  if (Str(*sc, {"provisioner"}) != kLocalProvisioner) {
    events_->Record(claim, {.component = kComponent}, "Normal", "ExternalProvisioning",
                    "Waiting for a volume to be created either by the external provisioner '" +
                        Str(*sc, {"provisioner"}) +
                        "' or manually by the system administrator. If volume creation is "
                        "delayed, please verify that the provisioner is running and correctly "
                        "registered.");
    return Result::Done();
  }
  if (Str(*sc, {"volumeBindingMode"}) == "WaitForFirstConsumer") {
    bool used = false;
    auto pods = informers_->Store(PodsGvr()).List(PodsGvr(), ns, {});
    if (pods.ok()) {
      for (const Json& pod : *pods) {
        const Json& vols = At(pod, {"spec", "volumes"});
        if (!vols.is_array()) continue;
        for (const Json& v : vols) used = used || Str(v, {"persistentVolumeClaim", "claimName"}) == name;
      }
    }
    if (!used) {
      events_->Record(claim, {.component = kComponent}, "Normal", "WaitForFirstConsumer",
                      "waiting for first consumer to be created before binding");
      return Result::Done();
    }
  }
  const std::string pv_name = "pvc-" + uid;
  Json capacity = {{"storage", want ? want->String() : std::string("1Gi")}};
  Json access = At(claim, {"spec", "accessModes"});
  if (!access.is_array() || access.empty()) access = Json::array({"ReadWriteOnce"});
  Json pv = {{"apiVersion", "v1"},
             {"kind", "PersistentVolume"},
             {"metadata",
              {{"name", pv_name},
               {"annotations", {{"pv.kubernetes.io/provisioned-by", kLocalProvisioner}}}}},
             {"spec",
              {{"capacity", capacity},
               {"accessModes", access},
               {"persistentVolumeReclaimPolicy", Str(*sc, {"reclaimPolicy"}, "Delete")},
               {"storageClassName", class_name},
               {"volumeMode", Str(claim, {"spec", "volumeMode"}, "Filesystem")},
               {"hostPath",
                {{"path", "/tmp/trimtab-local-path/" + pv_name}, {"type", "DirectoryOrCreate"}}},
               {"claimRef",
                {{"kind", "PersistentVolumeClaim"},
                 {"namespace", ns},
                 {"name", name},
                 {"uid", uid},
                 {"apiVersion", "v1"}}}}}};
  auto created = client_->Create(PersistentVolumesGvr(), "", pv);
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
    events_->Record(claim, {.component = kComponent}, "Warning", "ProvisioningFailed",
                    created.status().message());
    return Result::Retry(created.status().ToString());
  }
  events_->Record(claim, {.component = kComponent}, "Normal", "ProvisioningSucceeded",
                  "Successfully provisioned volume " + pv_name + " using " + kLocalProvisioner);
  return Result::Done();  // the new volume's event binds it
}

Result VolumeController::SyncVolume(const Json& volume) {
  if (IsDeleting(volume)) return Result::Done();
  const std::string name = Str(volume, {"metadata", "name"});
  const Json& ref = At(volume, {"spec", "claimRef"});
  std::string phase = Str(volume, {"status", "phase"});
  std::string want = phase;
  if (!ref.is_object()) {
    want = "Available";
  } else {
    auto claim = informers_->Store(PersistentVolumeClaimsGvr())
                     .GetByKey(ref.value("namespace", "") + "/" + ref.value("name", ""));
    const bool gone = !claim || (!ref.value("uid", "").empty() &&
                                 Str(*claim, {"metadata", "uid"}) != ref.value("uid", ""));
    if (gone && phase == "Bound") {
      if (Str(volume, {"spec", "persistentVolumeReclaimPolicy"}) == "Delete") {
        client_->Delete(PersistentVolumesGvr(), "", name).IgnoreError();
        return Result::Done();
      }
      want = "Released";
    } else if (!gone && phase != "Bound") {
      controller_.Enqueue(std::string(kClaimPrefix) + kube::ObjectKey(*claim));
    }
  }
  if (want != phase) {
    auto r = client_->Patch(PersistentVolumesGvr(), "", name, kube::PatchType::kMerge,
                            Json{{"status", {{"phase", want}}}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry(r.status().ToString());
    }
  }
  return Result::Done();
}

}  // namespace trimtab::cluster::runtime
