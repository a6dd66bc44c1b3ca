// Helpers the workload controllers (Job, StatefulSet, DaemonSet) share: the pods an owner
// controls, pods made from an owner's pod template, and informer handlers that requeue the
// controlling owner of a changed pod.
//
// Thread-safety: pure functions over the informer caches (safe after InformerSet::Start).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/runtime/controller.h"
#include "cluster/runtime/informer_set.h"
#include "common/json.h"
#include "common/label_selector.h"

namespace trimtab::cluster::runtime {

// The pods in `owner`'s namespace whose controller reference carries its uid (from the pod
// cache's owner index).
std::vector<Json> PodsControlledBy(InformerSet* informers, const Json& owner);

// What a controller's claim (ClaimPods, ClaimReplicaSets) has to look at in `ns`: the objects
// with an ownerReference to `owner_uid` (to keep or release) and the ones `selector` matches (to
// adopt), each once, sorted by key; no selector match when `selector` is empty or Nothing. From
// the cache's owner and label indexes, shared (no copies), instead of every object of the
// namespace: the same result as filtering the namespace, since any other object is neither the
// owner's nor matched.
std::vector<kube::ObjectPtr> ClaimCandidates(const kube::ObjectStore& store, std::string_view ns,
                                             std::string_view owner_uid,
                                             const LabelSelector& selector);

// "ns/name" of the controller of `object` when that controller is of `kind`.
std::optional<std::string> ControllerKeyOfKind(const Json& object, std::string_view kind);

// A pod from `tmpl` (a PodTemplateSpec) controlled by `owner`: the template's labels,
// annotations and finalizers, its spec, and a controller reference with blockOwnerDeletion.
// `name` is the pod's name, or with `generate` the generateName prefix.
Json PodFromTemplate(const Json& owner, const Json& tmpl, const std::string& name, bool generate);

// Adds pod handlers that enqueue into `controller` the key of the `kind` controller of every
// pod added, changed or deleted.
void EnqueueControllerOfPods(InformerSet* informers, std::string_view kind,
                             Controller* controller);

// Adds handlers on `gvr` that enqueue the key of every object added, changed or deleted.
void EnqueueObjects(InformerSet* informers, const kube::GroupVersionResource& gvr,
                    Controller* controller);

}  // namespace trimtab::cluster::runtime
