// EndpointsController: kube-controller-manager's endpoints and endpointslice controllers in one.
// For every Service with a selector it keeps
//   - an Endpoints object of the same name: subsets grouping the pods by their resolved ports,
//     ready pods under `addresses`, the others under `notReadyAddresses` (all under addresses
//     with publishNotReadyAddresses); pods without an IP, finished or being deleted are left
//     out; a named targetPort resolves to the pod's containerPort of that name (pods without it
//     are left out of that port);
//   - EndpointSlices (generateName "<service>-", labels kubernetes.io/service-name and
//     endpointslice.kubernetes.io/managed-by, owned by the Service): one per distinct port set,
//     endpoints with ready/serving/terminating conditions (terminating pods included).
// Services without a selector are left alone (their Endpoints are the user's); the objects of a
// deleted Service are removed.
//
// The informer cache lags the API server: a slice just created under a generated name is not
// in it yet, and a sync that ran on that cache would create a second one. As upstream's
// EndpointSliceTracker does, the controller remembers the slices it created and does not sync a
// Service again until the cache has them (or a minute has passed); slice adds and updates wake
// the Service, so a duplicate made anyway is removed on the next pass.
//
// Threading: a Controller with `workers` threads keyed by Service; handlers only enqueue.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "cluster/runtime/controller.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

inline constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr std::string_view kManagedByLabel = "endpointslice.kubernetes.io/managed-by";
inline constexpr std::string_view kSliceControllerName = "endpointslice-controller.k8s.io";

class EndpointsController {
 public:
  EndpointsController(const kube::KubeClient* client, InformerSet* informers, Clock* clock,
                      int workers = 2);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);
  Status SyncEndpoints(const Json& svc, const Json& subsets);
  Status SyncSlices(const Json& svc, const Json& desired_slices);
  Status DeleteAll(const std::string& ns, const std::string& name);
  void EnqueueServicesOf(const Json& pod);
  // Names of slices this controller created for the Service that the cache has not shown yet
  // (those older than a minute are forgotten: deleted by someone before we saw them).
  std::vector<std::string> UnseenSlices(const std::string& ns, const std::string& service);
  void RememberCreated(const std::string& ns, const std::string& service, const std::string& slice);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  Clock* clock_;
  std::mutex created_mu_;
  // "<ns>/<service>" -> slice name -> when it was created.
  std::map<std::string, std::map<std::string, TimePoint>> created_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
