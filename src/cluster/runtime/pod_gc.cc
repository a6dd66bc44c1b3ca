#include "cluster/runtime/pod_gc.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {

PodGarbageCollector::PodGarbageCollector(const kube::KubeClient* client, InformerSet* informers,
                                         Clock* clock)
    : client_(client),
      informers_(informers),
      controller_("pod-gc", clock, 1, [this](const std::string& key) { return Sync(key); }) {
  auto enqueue = [this](const Json& pod) {
    if (!Str(pod, {"spec", "nodeName"}).empty()) controller_.Enqueue(kube::ObjectKey(pod));
  };
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = enqueue, .on_update = [enqueue](const Json&, const Json& p) { enqueue(p); }});
  informers_->Get(NodesGvr())->AddEventHandler({.on_delete = [this](const Json& node) {
    const std::string name = Str(node, {"metadata", "name"});
    for (const kube::ObjectPtr& p : informers_->Store(PodsGvr()).ListShared()) {
      if (Str(*p, {"spec", "nodeName"}) == name) controller_.Enqueue(kube::ObjectKey(*p));
    }
  }});
}

Result PodGarbageCollector::Sync(const std::string& key) {
  const kube::ObjectPtr pod = informers_->Store(PodsGvr()).GetShared(key);
  if (!pod) return Result::Done();
  const std::string node = Str(*pod, {"spec", "nodeName"});
  if (node.empty() || informers_->Store(NodesGvr()).GetShared(node)) return Result::Done();
  // The cache may lag behind a node that was just registered: ask the API server.
  auto live = client_->Get(NodesGvr(), "", node);
  if (live.ok()) return Result::Done();
  if (live.status().code() != StatusCode::kNotFound) return Result::Retry(live.status().ToString());
  auto [ns, name] = kube::SplitObjectKey(key);
  spdlog::info("pod-gc: deleting pod {} bound to the missing node {}", key, node);
  Status s = client_->Delete(PodsGvr(), ns, name,
                             {.grace_period_seconds = 0, .precondition_uid = Str(*pod, {"metadata", "uid"})});
  if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
    return Result::Retry(s.ToString());
  }
  return Result::Done();
}

}  // namespace trimtab::cluster::runtime
