// The pod status the kubelet reports, computed from what it knows about each container, as the
// kubelet's status manager does it (generateAPIPodStatus, getPhase, the condition generators):
//
//   phase       Pending while a container has not started yet; Running once all have started
//               and one runs (or will be restarted); when all have terminated: Succeeded if
//               all exited 0 and restartPolicy is not Always, Failed if one failed and the
//               policy is Never (OnFailure/Always: Running, they restart)
//   conditions  PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled
//               (kept as the scheduler/binding set it); Ready and ContainersReady are False with
//               "containers with unready status: [a b]" until every container is ready, and
//               PodCompleted / PodFailed once the pod is terminal; lastTransitionTime changes
//               only with a condition's status
//   containerStatuses / initContainerStatuses (init containers count as completed at once),
//   hostIP(s), podIP(s), startTime, qosClass (kept)
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/json.h"

namespace trimtab::cluster::runtime {

struct TerminationInfo {
  int exit_code = 0;
  std::string reason;   // Completed, Error, OOMKilled, ContainerStatusUnknown
  std::string message;
  TimePoint started_at;
  TimePoint finished_at;
  std::string container_id;
};

// One container as the kubelet sees it.
struct ContainerView {
  std::string name;
  std::string image;
  std::string image_id;
  std::string container_id;  // "" until it first started
  enum class State { kWaiting, kRunning, kTerminated } state = State::kWaiting;
  std::string waiting_reason;   // ContainerCreating, CrashLoopBackOff, CreateContainerError
  std::string waiting_message;
  TimePoint started_at;                   // kRunning
  std::optional<TerminationInfo> terminated;  // kTerminated
  std::optional<TerminationInfo> last_termination;  // lastState
  bool ready = false;
  bool started = false;
  int restart_count = 0;
};

struct PodStatusInput {
  std::vector<ContainerView> containers;  // spec.containers order
  std::string host_ip;
  std::string pod_ip;
  TimePoint start_time;
  TimePoint now;
  // The pod was deleted and its containers stopped: the phase is terminal whatever the
  // restartPolicy (Succeeded when every container exited 0, else Failed).
  bool deleted = false;
};

// The pod's phase from its containers (kubelet getPhase). `restart_policy` Always/OnFailure/Never.
std::string PodPhase(const std::string& restart_policy, const std::vector<ContainerView>& containers);

// The full status object for `pod` (its current status supplies conditions' transition times,
// PodScheduled and qosClass).
Json BuildPodStatus(const Json& pod, const PodStatusInput& input);

// A container state object: {"waiting":{...}}, {"running":{...}} or {"terminated":{...}}.
Json ContainerStateJson(const ContainerView& c);

}  // namespace trimtab::cluster::runtime
