#include "operator/controller_shared/cluster_client.h"

#include <nlohmann/json.hpp>

#include "operator/controller_shared/kube_resources.h"
#include "operator/decisions/pod_decoration.h"

namespace trimtab::op {
namespace {

LabelSelector Selector(const std::string& text) {
  StatusOr<LabelSelector> s = LabelSelector::Parse(text);
  return s.ok() ? *s : LabelSelector();
}

bool IsUsableHaConfigMap(const std::string& name) {
  return (name.ends_with("-config-map") && !name.ends_with("-cluster-config-map")) ||
         name.ends_with("-jobmanager-leader");
}

kube::PropagationPolicy Propagation(const std::string& p) {
  if (p == "Background") return kube::PropagationPolicy::kBackground;
  if (p == "Orphan") return kube::PropagationPolicy::kOrphan;
  return kube::PropagationPolicy::kForeground;
}

Status IgnoreNotFound(const Status& s) {
  return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
}

kube::GroupVersionResource ResourceOf(const std::string& api_version, const std::string& plural,
                                      bool namespaced) {
  const size_t slash = api_version.find('/');
  if (slash == std::string::npos) return {"", api_version, plural, namespaced};
  return {api_version.substr(0, slash), api_version.substr(slash + 1), plural, namespaced};
}

kube::GroupVersionResource ResourceOf(const decorators::KubeObject& o) {
  return ResourceOf(o.object.value("apiVersion", ""), o.resource, o.namespaced);
}

// "PodGroup prod/podgroup-wc".
std::string Describe(const decorators::KubeObject& o) {
  const std::string ns = o.object["metadata"].value("namespace", "");
  return o.object.value("kind", o.resource) + " " + (ns.empty() ? "" : ns + "/") +
         kube::ObjectName(o.object);
}

bool CreatedByOperator(const Json& object) {
  return object.value("metadata", Json::object())
             .value("labels", Json::object())
             .value(kManagedByLabel, "") == kManagedByOperator;
}

bool Finished(const Json& pod) {
  const std::string phase = pod.value("status", Json::object()).value("phase", "");
  return phase == "Succeeded" || phase == "Failed" ||
         pod.value("metadata", Json::object()).contains("deletionTimestamp");
}

}  // namespace

StatusOr<std::optional<Json>> ClusterClient::JobManagerDeployment(const std::string& ns,
                                                                  const std::string& name) const {
  StatusOr<Json> dep = client_->Get(DeploymentsResource(), ns, name);
  if (dep.ok()) return std::optional<Json>(*dep);
  if (dep.status().code() == StatusCode::kNotFound) return std::optional<Json>();
  return dep.status();
}

StatusOr<std::vector<Json>> ClusterClient::ClusterPods(const std::string& ns,
                                                       const std::string& name) const {
  return client_->List(kube::PodsResource(), ns,
                       {.labels = Selector("app=" + name + ",type in (" + kNativeType + "," +
                                           kStandaloneType + ")")});
}

StatusOr<std::vector<Json>> ClusterClient::JobManagerPods(const std::string& ns,
                                                          const std::string& name) const {
  return client_->List(kube::PodsResource(), ns,
                       {.labels = Selector("app=" + name + ",component=jobmanager")});
}

Status ClusterClient::CreateOrReplace(const kube::GroupVersionResource& gvr,
                                      const std::string& ns, const Json& object,
                                      Json* created) const {
  StatusOr<Json> out = client_->Create(gvr, ns, object);
  if (out.status().code() == StatusCode::kAlreadyExists) {
    // A leftover of an earlier cluster (its owner is gone or going): replace it.
    TRIMTAB_RETURN_IF_ERROR(
        IgnoreNotFound(client_->Delete(gvr, ns, kube::ObjectName(object),
                                       {.propagation = kube::PropagationPolicy::kBackground})));
    out = client_->Create(gvr, ns, object);
  }
  if (!out.ok()) {
    return out.status().WithContext("create " + gvr.String() + " " + ns + "/" +
                                    kube::ObjectName(object));
  }
  if (created) *created = *out;
  return Status::Ok();
}

Status ClusterClient::CreateDecorated(const decorators::KubeObject& object, Json* created) const {
  const kube::GroupVersionResource gvr = ResourceOf(object);
  const std::string ns = object.namespaced ? object.object["metadata"].value("namespace", "") : "";
  const std::string what = "create " + Describe(object);
  StatusOr<Json> out = client_->Create(gvr, ns, object.object);
  if (out.status().code() == StatusCode::kAlreadyExists) {
    StatusOr<Json> existing = client_->Get(gvr, ns, kube::ObjectName(object.object));
    if (!existing.ok()) return existing.status().WithContext(what);
    if (!CreatedByOperator(*existing)) {
      return FailedPreconditionError(
          what + ": an object of that name exists and was not created by the operator (no label " +
          kManagedByLabel + "=" + kManagedByOperator + "); the operator does not replace it");
    }
    if ((*existing)["metadata"].contains("deletionTimestamp")) {
      return UnavailableError(what + ": the previous one is still being deleted");
    }
    // Ours, from an earlier cluster of this name: take it over with the new spec.
    Json updated = *existing;
    for (const char* field : {"labels", "annotations"}) {
      if (object.object["metadata"].contains(field)) {
        updated["metadata"][field] = object.object["metadata"][field];
      } else {
        updated["metadata"].erase(field);
      }
    }
    updated["metadata"].erase("ownerReferences");
    updated["spec"] = object.object.value("spec", Json::object());
    out = client_->Update(gvr, updated);
  }
  if (!out.ok()) return out.status().WithContext(what);
  if (created) *created = *out;
  return Status::Ok();
}

Status ClusterClient::SetOwner(const decorators::KubeObject& object, const Json& owner) const {
  const std::string ns = object.namespaced ? object.object["metadata"].value("namespace", "") : "";
  const Json patch = {{"metadata", {{"ownerReferences", Json::array({owner})}}}};
  return client_
      ->Patch(ResourceOf(object), ns, kube::ObjectName(object.object), kube::PatchType::kMerge,
              patch.dump())
      .status()
      .WithContext("set the owner of " + Describe(object));
}

Status ClusterClient::Create(ClusterObjects objects) const {
  const std::string ns = objects.deployment["metadata"].value("namespace", "");
  const std::string name = kube::ObjectName(objects.deployment);
  // Nothing half-created: until the Deployment exists, a failure removes what this call created
  // before it.
  std::vector<const decorators::KubeObject*> created;
  auto undo = [&](Status cause) {
    for (const decorators::KubeObject* o : created) {
      const std::string o_ns = o->namespaced ? o->object["metadata"].value("namespace", "") : "";
      Status s = IgnoreNotFound(client_->Delete(ResourceOf(*o), o_ns, kube::ObjectName(o->object),
                                                {.propagation = kube::PropagationPolicy::kBackground}));
      if (!s.ok()) cause = cause.WithContext("(and removing " + Describe(*o) + " failed: " + s.message() + ")");
    }
    return cause;
  };
  // Pre-created objects first: a PodGroup must exist before its first pod.
  for (const decorators::KubeObject& o : objects.pre_creation) {
    if (Status s = CreateDecorated(o, nullptr); !s.ok()) return undo(s);
    created.push_back(&o);
  }
  // The ConfigMap next so the JobManager pod finds its configuration when it starts.
  Json config_map;
  if (Status s = CreateOrReplace(kube::ConfigMapsResource(), ns, objects.config_map, &config_map);
      !s.ok()) {
    return undo(s);
  }
  Json deployment;
  if (Status s = CreateOrReplace(DeploymentsResource(), ns, objects.deployment, &deployment);
      !s.ok()) {
    return undo(s);
  }
  WithDeploymentOwner(&objects, name, kube::ObjectUid(deployment));
  const Json owner = OwnerReference("apps/v1", "Deployment", name, kube::ObjectUid(deployment),
                                    /*controller=*/true, /*block_owner_deletion=*/true);
  for (const decorators::KubeObject& o : objects.pre_creation) {
    TRIMTAB_RETURN_IF_ERROR(SetOwner(o, owner));
  }
  config_map["metadata"]["ownerReferences"] = objects.config_map["metadata"]["ownerReferences"];
  StatusOr<Json> owned = client_->Update(kube::ConfigMapsResource(), config_map);
  if (!owned.ok()) return owned.status().WithContext("set the owner of ConfigMap " + ns + "/" + ConfigMapName(name));
  TRIMTAB_RETURN_IF_ERROR(CreateOrReplace(ServicesResource(), ns, objects.internal_service, nullptr));
  TRIMTAB_RETURN_IF_ERROR(CreateOrReplace(ServicesResource(), ns, objects.rest_service, nullptr));
  if (!objects.task_manager_deployment.is_null()) {
    TRIMTAB_RETURN_IF_ERROR(
        CreateOrReplace(DeploymentsResource(), ns, objects.task_manager_deployment, nullptr));
  }
  for (decorators::KubeObject& o : objects.accompanying) {
    o.object["metadata"]["ownerReferences"] = Json::array({owner});
    TRIMTAB_RETURN_IF_ERROR(CreateDecorated(o, nullptr));
    TRIMTAB_RETURN_IF_ERROR(SetOwner(o, owner));  // a taken-over object lost its owner
  }
  return Status::Ok();
}

StatusOr<std::vector<std::string>> ClusterClient::CreateMissingServices(
    const ClusterObjects& objects) const {
  std::vector<std::string> created;
  for (const Json* service : {&objects.internal_service, &objects.rest_service}) {
    const std::string ns = (*service)["metadata"].value("namespace", "");
    const std::string name = kube::ObjectName(*service);
    StatusOr<Json> existing = client_->Get(ServicesResource(), ns, name);
    if (existing.ok()) continue;
    if (existing.status().code() != StatusCode::kNotFound) {
      return existing.status().WithContext("read Service " + ns + "/" + name);
    }
    StatusOr<Json> out = client_->Create(ServicesResource(), ns, *service);
    if (!out.ok() && out.status().code() != StatusCode::kAlreadyExists) {
      return out.status().WithContext("create Service " + ns + "/" + name);
    }
    created.push_back(name);
  }
  return created;
}

StatusOr<std::vector<std::string>> ClusterClient::SyncPreCreated(
    const std::vector<decorators::KubeObject>& objects, const std::string& deployment_name,
    const std::string& deployment_uid) const {
  const Json owner = OwnerReference("apps/v1", "Deployment", deployment_name, deployment_uid,
                                    /*controller=*/true, /*block_owner_deletion=*/true);
  std::vector<std::string> changes;
  for (const decorators::KubeObject& o : objects) {
    const kube::GroupVersionResource gvr = ResourceOf(o);
    const std::string ns = o.namespaced ? o.object["metadata"].value("namespace", "") : "";
    StatusOr<Json> existing = client_->Get(gvr, ns, kube::ObjectName(o.object));
    if (existing.status().code() == StatusCode::kNotFound) {
      Json object = o.object;
      object["metadata"]["ownerReferences"] = Json::array({owner});
      StatusOr<Json> out = client_->Create(gvr, ns, object);
      if (!out.ok()) return out.status().WithContext("create " + Describe(o));
      changes.push_back("created " + Describe(o));
      continue;
    }
    if (!existing.ok()) return existing.status().WithContext("read " + Describe(o));
    if (!CreatedByOperator(*existing) || (*existing)["metadata"].contains("deletionTimestamp")) {
      continue;
    }
    const Json want_spec = o.object.value("spec", Json::object());
    const Json owners = (*existing)["metadata"].value("ownerReferences", Json::array());
    bool owned = false;
    for (const Json& ref : owners) owned = owned || ref.value("uid", "") == deployment_uid;
    if (existing->value("spec", Json::object()) == want_spec && owned) continue;
    Json updated = *existing;
    updated["spec"] = want_spec;
    updated["metadata"]["ownerReferences"] = Json::array({owner});
    StatusOr<Json> out = client_->Update(gvr, updated);
    if (!out.ok()) return out.status().WithContext("update " + Describe(o));
    changes.push_back("updated " + Describe(o) + ": spec " + want_spec.dump());
  }
  return changes;
}

StatusOr<ClusterClient::TaskManagerPods> ClusterClient::CountTaskManagerPods(
    const std::string& ns, const std::string& name) const {
  TRIMTAB_ASSIGN_OR_RETURN(
      std::vector<Json> pods,
      client_->List(kube::PodsResource(), ns,
                    {.labels = Selector("app=" + name + ",component=taskmanager")}));
  TaskManagerPods n;
  for (const Json& pod : pods) {
    if (Finished(pod)) continue;
    n.existing++;
    if (!pod.value("spec", Json::object()).value("nodeName", "").empty()) n.placed++;
  }
  return n;
}

StatusOr<int> ClusterClient::CountUnscheduledPods(const std::string& ns,
                                                  const std::string& name) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> pods,
                           client_->List(kube::PodsResource(), ns, {.labels = Selector("app=" + name)}));
  int n = 0;
  for (const Json& pod : pods) {
    const bool bound = !pod.value("spec", Json::object()).value("nodeName", "").empty();
    n += bound || Finished(pod) ? 0 : 1;
  }
  return n;
}

std::vector<std::string> ClusterClient::MissingReferences(
    const std::vector<decorators::ObjectReference>& references) const {
  std::vector<std::string> missing;
  for (const decorators::ObjectReference& r : references) {
    StatusOr<Json> got =
        client_->Get(ResourceOf(r.api_version, r.resource, r.namespaced), "", r.name);
    if (got.status().code() == StatusCode::kNotFound) {
      missing.push_back(r.kind + " \"" + r.name + "\" named by " + r.field + " does not exist");
    }
  }
  return missing;
}

StatusOr<bool> ClusterClient::Delete(const std::string& ns, const std::string& name,
                                     const std::string& propagation, bool delete_ha) const {
  const std::string what = "delete Flink cluster " + ns + "/" + name;
  TRIMTAB_RETURN_IF_ERROR(IgnoreNotFound(client_->Delete(ServicesResource(), ns, RestServiceName(name)))
                              .WithContext(what));
  TRIMTAB_RETURN_IF_ERROR(
      IgnoreNotFound(client_->Delete(ServicesResource(), ns, name)).WithContext(what));
  TRIMTAB_RETURN_IF_ERROR(IgnoreNotFound(client_->Delete(kube::ConfigMapsResource(), ns,
                                                         ConfigMapName(name)))
                              .WithContext(what));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<Json> dep, JobManagerDeployment(ns, name));
  if (dep && !(*dep)["metadata"].contains("deletionTimestamp")) {
    TRIMTAB_RETURN_IF_ERROR(IgnoreNotFound(client_->Delete(DeploymentsResource(), ns, name,
                                                           {.propagation = Propagation(propagation)}))
                                .WithContext(what));
  }
  if (delete_ha) TRIMTAB_RETURN_IF_ERROR(DeleteHaMetadata(ns, name).WithContext(what));
  TRIMTAB_ASSIGN_OR_RETURN(dep, JobManagerDeployment(ns, name));
  if (dep) return false;
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> pods, ClusterPods(ns, name));
  return pods.empty();
}

StatusOr<std::vector<Json>> ClusterClient::HaConfigMaps(const std::string& ns,
                                                        const std::string& name) const {
  TRIMTAB_ASSIGN_OR_RETURN(
      std::vector<Json> cms,
      client_->List(kube::ConfigMapsResource(), ns,
                    {.labels = Selector("app=" + name + ",type=" + kNativeType +
                                        ",component!=autoscaler")}));
  std::vector<Json> out;
  for (Json& cm : cms) {
    if (kube::ObjectName(cm) != ConfigMapName(name)) out.push_back(std::move(cm));
  }
  return out;
}

StatusOr<HaMetadata> ClusterClient::ReadHaMetadata(const std::string& ns,
                                                   const std::string& name) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> cms, HaConfigMaps(ns, name));
  HaMetadata out;
  for (const Json& cm : cms) {
    const std::string cm_name = kube::ObjectName(cm);
    out.config_maps.push_back(cm_name);
    if (!IsUsableHaConfigMap(cm_name)) continue;
    out.available = true;
    const Json data = cm.value("data", Json::object());
    for (auto it = data.begin(); it != data.end(); ++it) {
      if (it.key().starts_with("checkpointID-")) out.has_checkpoint = true;
    }
  }
  return out;
}

Status ClusterClient::DeleteHaMetadata(const std::string& ns, const std::string& name) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> cms, HaConfigMaps(ns, name));
  for (const Json& cm : cms) {
    TRIMTAB_RETURN_IF_ERROR(
        IgnoreNotFound(client_->Delete(kube::ConfigMapsResource(), ns, kube::ObjectName(cm))));
  }
  return Status::Ok();
}

Status ClusterClient::RemoveJobGraphs(const std::string& ns, const std::string& name) const {
  StatusOr<Json> cm = client_->Get(kube::ConfigMapsResource(), ns, name + "-cluster-config-map");
  if (cm.status().code() == StatusCode::kNotFound) return Status::Ok();
  if (!cm.ok()) return cm.status();
  Json updated = *cm;
  Json data = updated.value("data", Json::object());
  bool changed = false;
  for (auto it = data.begin(); it != data.end();) {
    if (it.key().starts_with("jobGraph-")) {
      it = data.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  if (!changed) return Status::Ok();
  updated["data"] = data;
  return client_->Update(kube::ConfigMapsResource(), updated).status();
}

}  // namespace trimtab::op
