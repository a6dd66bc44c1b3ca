#include "cluster/volcano/volcano_crds.h"

#include <nlohmann/json.hpp>

namespace trimtab::cluster::volcano {

kube::GroupVersionResource PodGroupsGvr() {
  return {"scheduling.volcano.sh", "v1beta1", "podgroups", /*namespaced=*/true};
}
kube::GroupVersionResource QueuesGvr() {
  return {"scheduling.volcano.sh", "v1beta1", "queues", /*namespaced=*/false};
}
kube::GroupVersionResource PriorityClassesGvr() {
  return {"scheduling.k8s.io", "v1", "priorityclasses", /*namespaced=*/false};
}

StatusOr<std::vector<std::string>> InstallVolcanoCrds(const kube::KubeClient& client,
                                                      std::chrono::milliseconds timeout) {
  return op::InstallCrds(client, VolcanoCrds(), timeout);
}

Status EnsureVolcanoQueues(const kube::KubeClient& client, const std::string& default_queue) {
  const std::pair<std::string, bool> queues[] = {{kRootQueue, false}, {default_queue, true}};
  for (const auto& [name, reclaimable] : queues) {
    StatusOr<Json> existing = client.Get(QueuesGvr(), "", name);
    if (existing.ok()) continue;
    if (existing.status().code() != StatusCode::kNotFound) {
      return Status(existing.status().code(),
                    "reading queue " + name + ": " + existing.status().message());
    }
    Json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                  {"kind", "Queue"},
                  {"metadata", {{"name", name}}},
                  {"spec", {{"weight", 1}, {"reclaimable", reclaimable}}}};
    StatusOr<Json> made = client.Create(QueuesGvr(), "", queue);
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return Status(made.status().code(), "creating queue " + name + ": " + made.status().message());
    }
  }
  return Status::Ok();
}

}  // namespace trimtab::cluster::volcano
