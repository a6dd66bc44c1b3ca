#include "cluster/runtime/owned_pods.h"

#include <map>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {

std::vector<Json> PodsControlledBy(InformerSet* informers, const Json& owner) {
  std::vector<Json> out;
  const std::string uid = Str(owner, {"metadata", "uid"});
  if (uid.empty()) return out;
  const std::string ns = Str(owner, {"metadata", "namespace"});
  for (const kube::ObjectPtr& pod : informers->Store(PodsGvr()).ListOwnedBy(uid)) {
    if (Str(*pod, {"metadata", "namespace"}) != ns) continue;
    auto ref = ControllerRef(*pod);
    if (ref && ref->value("uid", "") == uid) out.push_back(*pod);
  }
  return out;
}

std::vector<kube::ObjectPtr> ClaimCandidates(const kube::ObjectStore& store, std::string_view ns,
                                             std::string_view owner_uid,
                                             const LabelSelector& selector) {
  std::map<std::string, kube::ObjectPtr> by_key;
  if (!owner_uid.empty()) {
    for (kube::ObjectPtr& o : store.ListOwnedBy(owner_uid)) {
      if (Str(*o, {"metadata", "namespace"}) == ns) by_key.emplace(kube::ObjectKey(*o), std::move(o));
    }
  }
  if (!selector.Empty() && !selector.IsNothing()) {
    for (kube::ObjectPtr& o : store.ListShared(ns, {.labels = selector})) {
      by_key.emplace(kube::ObjectKey(*o), std::move(o));
    }
  }
  std::vector<kube::ObjectPtr> out;
  out.reserve(by_key.size());
  for (auto& [key, o] : by_key) out.push_back(std::move(o));
  return out;
}

std::optional<std::string> ControllerKeyOfKind(const Json& object, std::string_view kind) {
  auto ref = ControllerRef(object);
  if (!ref || ref->value("kind", "") != kind) return std::nullopt;
  return Str(object, {"metadata", "namespace"}) + "/" + ref->value("name", "");
}

Json PodFromTemplate(const Json& owner, const Json& tmpl, const std::string& name,
                     bool generate) {
  Json meta = {{generate ? "generateName" : "name", name},
               {"namespace", Str(owner, {"metadata", "namespace"})},
               {"ownerReferences", Json::array({ControllerRefTo(owner)})}};
  for (const char* f : {"labels", "annotations", "finalizers"}) {
    const Json& v = At(tmpl, {"metadata", f});
    if (v.is_object() || v.is_array()) meta[f] = v;
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", At(tmpl, {"spec"})}};
}

void EnqueueControllerOfPods(InformerSet* informers, std::string_view kind,
                             Controller* controller) {
  std::string k(kind);
  auto enqueue = [k, controller](const Json& pod) {
    if (auto key = ControllerKeyOfKind(pod, k)) controller->Enqueue(*key);
  };
  informers->Get(PodsGvr())->AddEventHandler(
      {.on_add = enqueue,
       .on_update = [enqueue](const Json& old_pod, const Json& pod) {
         enqueue(old_pod);
         enqueue(pod);
       },
       .on_delete = enqueue});
}

void EnqueueObjects(InformerSet* informers, const kube::GroupVersionResource& gvr,
                    Controller* controller) {
  auto enqueue = [controller](const Json& o) { controller->Enqueue(kube::ObjectKey(o)); };
  informers->Get(gvr)->AddEventHandler(
      {.on_add = enqueue,
       .on_update = [enqueue](const Json&, const Json& o) { enqueue(o); },
       .on_delete = enqueue});
}

}  // namespace trimtab::cluster::runtime
