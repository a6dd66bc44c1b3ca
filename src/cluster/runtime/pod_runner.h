// PodRunner: what "runs" inside a pod of the local cluster. The kubelet simulation binds a pod to
// a node, gives it a pod IP on loopback (127.x.y.z), then asks each registered PodRunner in turn
// whether it handles the pod; the first that does starts it. A pod no runner claims gets the
// default runner (containers that run until stopped, or until the failure/exit annotations of
// docs/local-cluster.md say otherwise).
//
// The simulated Flink JobManager is a PodRunner (src/cluster/flink): it claims JobManager pods
// and serves the Flink REST API on the pod IP.
//
// Usage (kubelet side):
//   for (PodRunner* r : runners) if (r->Handles(pod)) { process = r->Start(ctx); break; }
//   ... every sync: PodProcessStatus s = process->Status();  // -> pod.status
//   ... on deletion: process->Terminate(grace);               // then Status().state == kExited
//
// Thread-safety: Handles/Start are called from the kubelet thread; PodProcess methods may be
// called from any thread and must be safe for concurrent use.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// PodStartContext holds Json by value, so this header needs the complete type.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

// What the kubelet knows when it starts a pod.
struct PodStartContext {
  Json pod;               // the pod as bound (spec.nodeName set)
  std::string pod_ip;     // 127.x.y.z, unique per running pod; servers bind to it
  std::string node_name;
};

// One container's state as the kubelet reports it in pod.status.containerStatuses.
struct ContainerRunStatus {
  std::string name;
  enum class State { kWaiting, kRunning, kTerminated } state = State::kWaiting;
  bool ready = false;
  int exit_code = 0;       // kTerminated only
  std::string reason;      // e.g. "ContainerCreating", "Completed", "Error", "OOMKilled"
  std::string message;
  int restart_count = 0;   // restarts performed by the runner itself (restartPolicy)
};

struct PodProcessStatus {
  std::vector<ContainerRunStatus> containers;  // in spec.containers order
};

// A started pod. Status() is polled by the kubelet; Terminate() is called when the pod is deleted
// (grace = the pod's termination grace period) and must leave every container kTerminated.
class PodProcess {
 public:
  virtual ~PodProcess() = default;
  virtual PodProcessStatus Status() const = 0;
  virtual void Terminate(std::chrono::milliseconds grace) = 0;
  // `kubectl logs` text of one container ("" when it has none).
  virtual std::string Logs(std::string_view container) const = 0;
  // Starts one kTerminated container again when the kubelet applies restartPolicy
  // (Always/OnFailure, after its CrashLoopBackOff delay), leaving the other containers alone.
  // Returns false when the runner cannot restart a single container (the default): the kubelet
  // then restarts the whole pod process (Terminate, then PodRunner::Start again).
  virtual bool RestartContainer(std::string_view container) { return false; }
};

class PodRunner {
 public:
  virtual ~PodRunner() = default;
  virtual std::string_view name() const = 0;
  // True when this runner knows how to run `pod` (e.g. a Flink JobManager image/args).
  virtual bool Handles(const Json& pod) const = 0;
  // Starts the pod. An error makes the pod's containers Waiting with reason
  // "CreateContainerError" and the error text as message; the kubelet retries with back-off.
  virtual StatusOr<std::unique_ptr<PodProcess>> Start(const PodStartContext& context) = 0;
};

}  // namespace trimtab::cluster
