// Small helpers the runtime's controllers share for reading Kubernetes objects (JSON as the API
// server returns them): field access with defaults, owner references, conditions, pod states
// (active, ready, available) and a POST to subresources such as pods/binding.
//
// Thread-safety: pure functions, except PostSubresource which is as thread-safe as the client.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "common/json.h"

namespace trimtab::cluster::runtime {

// obj[k1][k2]... or a null Json when any step is missing.
const Json& At(const Json& object, std::initializer_list<std::string_view> path);
std::string Str(const Json& object, std::initializer_list<std::string_view> path,
                std::string fallback = "");
int64_t Int(const Json& object, std::initializer_list<std::string_view> path,
            int64_t fallback = 0);
bool Bool(const Json& object, std::initializer_list<std::string_view> path, bool fallback = false);

// RFC 3339 of `clock`'s now.
std::string NowString(Clock* clock);
// Parses a metav1.Time; nullopt when absent or invalid.
std::optional<TimePoint> ParseTime(const Json& value);

// The ownerReference with controller=true, if any.
std::optional<Json> ControllerRef(const Json& object);
// An ownerReference to `owner` with controller=true and blockOwnerDeletion=true.
Json ControllerRefTo(const Json& owner);
bool IsControlledBy(const Json& object, const Json& owner);
// JSON patches (RFC 6902) that adopt `object` for `owner` (adds the controller reference) or
// release it from the owner with uid `owner_uid`; both test the object's uid first, so they
// never apply to a re-created object of the same name and need no resourceVersion.
std::string AdoptPatch(const Json& object, const Json& owner);
std::string ReleasePatch(const Json& object, const std::string& owner_uid);

// The condition of `type` in status.conditions, or nullptr.
const Json* FindCondition(const Json& object, std::string_view type);
// Sets a condition in `conditions` (an array); lastTransitionTime changes only with the status.
// Returns true when anything changed.
bool SetCondition(Json* conditions, const Json& condition, const std::string& now);

bool IsDeleting(const Json& object);
// Pod phases Succeeded/Failed.
bool IsPodTerminal(const Json& pod);
// Not terminal and not being deleted (controller.FilterActivePods).
bool IsPodActive(const Json& pod);
bool IsPodReady(const Json& pod);
// When the Ready condition last became True (nullopt when not ready).
std::optional<TimePoint> PodReadySince(const Json& pod);
// Ready for at least `min_ready_seconds` at `now` (podutil.IsPodAvailable).
bool IsPodAvailable(const Json& pod, int64_t min_ready_seconds, TimePoint now);

// POST `body` to <item>/<subresource> (pods/binding, pods/eviction).
Status PostSubresource(const kube::KubeClient& client, const kube::GroupVersionResource& gvr,
                       std::string_view ns, std::string_view name, std::string_view subresource,
                       const Json& body);

// Kubernetes-style random name suffix ("bcdfghjklmnpqrstvwxz2456789" alphabet).
std::string RandomSuffix(int n = 5);

}  // namespace trimtab::cluster::runtime
