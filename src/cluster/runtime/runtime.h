// Runtime: the part of `trimtab local` where things run. Against a Kubernetes API server (the
// local one, reached over HTTP like any client) it starts
//
//   NodeAgent                 Node objects + heartbeats (node_agent.h)
//   SchedulingLoop            the registered Schedulers, then the default scheduler
//   Kubelet                   pods on the nodes through the registered PodRunners, then the
//                             default runner (kubelet.h, default_pod_runner.h)
//   ReplicaSetController, DeploymentController, EndpointsController,
//   ServiceAccountController, PodGarbageCollector, HpaController
//   SimulatedConsumers        topics of consumer Deployments (simulated_consumers.h)
//   ServiceProxy              clusterIP:port -> ready endpoints (service_proxy.h)
//
// all on one Clock (`trimtab local --speed N` passes a ScaledClock; the API server should use
// the same one), sharing one InformerSet and one EventRecorder. docs/local-cluster.md describes
// the behaviour.
//
// Usage:
//   auto runtime = Runtime::Create({.server_url = server->url(), .clock = clock,
//                                   .pod_runners = {MakeFlinkRunner}});
//   ApiServerOptions.pod_logs -> [&](const Json& pod, const std::string& c, bool previous) {
//                                  return runtime->PodLogs(pod, c, previous); }
//   ...
//   runtime->Stop();   // before the API server stops
//
// Thread-safety: Create/Stop from the owner; PodLogs from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "cluster/runtime/hpa_controller.h"
#include "cluster/runtime/kubelet.h"
#include "cluster/runtime/node_agent.h"
#include "cluster/runtime/node_config.h"
#include "cluster/runtime/pod_runner.h"
#include "cluster/runtime/scheduler.h"
#include "cluster/runtime/scheduling_loop.h"
#include "common/clock.h"

namespace trimtab::cluster::metrics {
class StreamingMetricsSource;
}  // namespace trimtab::cluster::metrics

namespace trimtab::kube {
class EventRecorder;
}  // namespace trimtab::kube

namespace trimtab::cluster::runtime {

using EventRecorder = kube::EventRecorder;

// What factories of extra PodRunners and Schedulers get to build them.
struct RuntimeContext {
  const kube::KubeClient* client = nullptr;  // the runtime's API client
  Clock* clock = nullptr;                    // the runtime clock
  EventRecorder* events = nullptr;
  const std::vector<LocalNode>* nodes = nullptr;
};

using PodRunnerFactory =
    std::function<StatusOr<std::shared_ptr<PodRunner>>(const RuntimeContext& context)>;
using SchedulerFactory =
    std::function<StatusOr<std::shared_ptr<Scheduler>>(const RuntimeContext& context)>;

struct RuntimeOptions {
  // The API server, e.g. "http://127.0.0.1:6443".
  std::string server_url;
  // When rest_config.server is set, the runtime's client uses it (URL, CA, credentials: the
  // administrator's of `trimtab local`) instead of server_url.
  kube::RestConfig rest_config;
  // Every delay and timestamp of the runtime; null = the real clock.
  Clock* clock = nullptr;
  std::vector<NodeConfig> nodes = DefaultNodes();
  // Pod IPs: node i gets the i-th /node_pod_prefix of this range as its podCIDR.
  std::string pod_cidr = "127.20.0.0/16";
  int node_pod_prefix = 24;
  // Node InternalIPs (the pods' hostIP): node i gets the (i+1)-th address.
  std::string node_ip_range = "127.30.0.0/16";
  // The API server's Service range; only checked not to overlap the two ranges above.
  std::string service_cidr = "127.10.0.0/16";
  // Tried in order before the default runner (the first whose Handles() is true runs the pod).
  std::vector<PodRunnerFactory> pod_runners;
  // Tried in order before the default scheduler (the first that Serves() a schedulerName).
  std::vector<SchedulerFactory> schedulers;
  KubeletOptions kubelet;
  // False: no kubelet, bound pods stay as the scheduler left them (no IP, phase Pending, no
  // status writes); for benchmarks of scheduling alone.
  bool kubelet_enabled = true;
  NodeAgentOptions node_agent;
  SchedulingLoopOptions scheduling;
  bool service_proxy = true;
  // The HorizontalPodAutoscaler controller (hpa_controller.h).
  HpaControllerOptions hpa;
  // How long Create waits for the first LIST of every informer.
  std::chrono::milliseconds sync_timeout{30000};
};

class Runtime {
 public:
  // Validates the options, registers the nodes and starts every component.
  static StatusOr<std::unique_ptr<Runtime>> Create(RuntimeOptions options);
  ~Runtime();  // Stop()s
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Stops every component (pod processes end at once; the API objects stay). Idempotent.
  void Stop();

  // `kubectl logs` text of a container (ApiServerOptions::pod_logs); `previous`: its previous
  // run's (nullopt when it has not restarted).
  std::optional<std::string> PodLogs(const Json& pod, const std::string& container,
                                     bool previous) const;

  const std::vector<LocalNode>& nodes() const;
  const kube::KubeClient* client() const;
  // The simulated topics of consumer Deployments (simulated_consumers.h), for the metrics APIs.
  std::shared_ptr<metrics::StreamingMetricsSource> simulated_consumers() const;

  struct Parts;

 private:
  Runtime() = default;
  std::unique_ptr<Parts> parts_;
};

}  // namespace trimtab::cluster::runtime
