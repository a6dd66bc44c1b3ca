#include "operator/cluster_client.h"

#include <nlohmann/json.hpp>

#include "operator/kube_resources.h"

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
                       {.labels = Selector("app=" + name + ",type=" + kNativeType)});
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

Status ClusterClient::Create(ClusterObjects objects) const {
  const std::string ns = objects.deployment["metadata"].value("namespace", "");
  const std::string name = kube::ObjectName(objects.deployment);
  // The ConfigMap first so the JobManager pod finds its configuration when it starts.
  Json config_map;
  TRIMTAB_RETURN_IF_ERROR(CreateOrReplace(kube::ConfigMapsResource(), ns, objects.config_map,
                                          &config_map));
  Json deployment;
  TRIMTAB_RETURN_IF_ERROR(CreateOrReplace(DeploymentsResource(), ns, objects.deployment, &deployment));
  WithDeploymentOwner(&objects, name, kube::ObjectUid(deployment));
  config_map["metadata"]["ownerReferences"] = objects.config_map["metadata"]["ownerReferences"];
  StatusOr<Json> owned = client_->Update(kube::ConfigMapsResource(), config_map);
  if (!owned.ok()) return owned.status().WithContext("set the owner of ConfigMap " + ns + "/" + ConfigMapName(name));
  TRIMTAB_RETURN_IF_ERROR(CreateOrReplace(ServicesResource(), ns, objects.internal_service, nullptr));
  return CreateOrReplace(ServicesResource(), ns, objects.rest_service, nullptr);
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
