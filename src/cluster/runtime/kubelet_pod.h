// Internal to the Kubelet (kubelet.cc, kubelet_containers.cc): what it remembers about each pod
// it runs and each of its containers. Not part of the runtime's interface.
//
// Thread-safety: a PodState is used by the one worker syncing its pod; `terminated` is also set
// by the termination thread.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/runtime/kubelet.h"

namespace trimtab::cluster::runtime {

struct Kubelet::Tracked {
  std::string name;
  std::string image;
  std::string image_id;
  Duration readiness_delay{0};  // readinessProbe.initialDelaySeconds

  // The current run.
  std::string container_id;  // "" until it first ran
  bool run_observed = false;  // seen running/terminated; Created/Started recorded
  TimePoint run_started;
  std::optional<TerminationInfo> termination;  // the current run ended
  ContainerRunStatus last;                     // the runner's last report

  std::optional<TerminationInfo> last_termination;  // lastState
  int kubelet_restarts = 0;
  int runner_restarts = 0;

  bool pulling = false;  // a Pulling event is waiting for its Pulled
  TimePoint pull_started;

  // CrashLoopBackOff (the kubelet's per-container flowcontrol.Backoff entry).
  bool has_backoff = false;
  Duration backoff{0};
  TimePoint backoff_updated;
  std::optional<TimePoint> restart_at;  // a restart is due then
  bool backoff_event_sent = false;
};

struct Kubelet::PodState {
  std::string key;  // "ns/name"
  std::string uid;
  std::string node;
  std::string host_ip;
  std::string pod_ip;
  bool ip_held = false;  // pod_ip is held in the node's pool
  TimePoint start_time;

  std::shared_ptr<PodProcess> process;
  std::string runner;
  int start_failures = 0;
  TimePoint next_start;
  std::string start_error;  // the last failed start ("" after a successful one)

  bool terminating = false;
  std::atomic<bool> terminated{false};
  bool terminal = false;  // Succeeded/Failed reported; nothing runs any more

  std::vector<Tracked> containers;  // spec.containers order
  Json last_status;                 // the status last written (or read at adoption)
};

}  // namespace trimtab::cluster::runtime
