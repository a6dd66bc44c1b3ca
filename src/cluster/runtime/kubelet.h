// Kubelet: runs the pods bound to the local cluster's nodes (one Kubelet serves every node).
//
// For each pod bound to one of its nodes it
//  1. gives the pod an IP from the node's podCIDR (the IP it had before, after a restart);
//  2. starts it through the first PodRunner whose Handles() is true, else the default runner,
//     with Pulling/Pulled/Created/Started events (a failed start: containers Waiting with
//     CreateContainerError and a Failed event, retried with back-off);
//  3. polls the pod process every `status_interval` and writes pod.status (pod_status.h) when it
//     changed; a container is ready when the runner says so and its readinessProbe's
//     initialDelaySeconds have passed since it started;
//  4. applies restartPolicy to terminated containers: Always, or OnFailure after a non-zero
//     exit, restarts them; the first restart is immediate, then CrashLoopBackOff waits 10 s,
//     20 s, ... up to 5 min (reset after 10 min without a crash), as the kubelet's back-off;
//     Never leaves them terminated; the phase follows (Running/Succeeded/Failed);
//  5. terminates a pod being deleted: Killing events, PodProcess::Terminate(grace period) on a
//     separate thread, the final status, then DELETE with gracePeriodSeconds=0 (uid
//     precondition), and the IP is free again.
// Pods found already started when the kubelet starts (a `trimtab local` restart) are restarted
// as after a node reboot: containers count one more restart with lastState
// ContainerStatusUnknown (exit 137); with restartPolicy Never they fail instead.
//
// Threading: a Controller with `workers` threads syncs pods (one pod at a time per key);
// terminations run on their own threads; PodLogs may be called from any thread.
#pragma once

#include <condition_variable>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"
#include "cluster/runtime/ip_pool.h"
#include "cluster/runtime/node_config.h"
#include "cluster/runtime/pod_runner.h"
#include "cluster/runtime/pod_status.h"

namespace trimtab::cluster::runtime {

struct KubeletOptions {
  Duration status_interval = std::chrono::milliseconds(250);  // pod process polling
  Duration backoff_initial = std::chrono::seconds(10);        // CrashLoopBackOff
  Duration backoff_max = std::chrono::minutes(5);
  int workers = 4;
};

class Kubelet {
 public:
  // `runners` are tried in order before the default runner.
  Kubelet(const kube::KubeClient* client, InformerSet* informers, EventRecorder* events,
          Clock* clock, std::vector<LocalNode> nodes,
          std::vector<std::shared_ptr<PodRunner>> runners, KubeletOptions options = {});
  ~Kubelet();

  void Start();
  // Stops syncing and ends every pod process (grace 0) without touching the API: the pods stay
  // as they are, to be picked up by the next start.
  void Stop();

  // `kubectl logs` text of a container of a pod this kubelet ran ("" when unknown); `previous`:
  // the log of the container's previous run (nullopt when it has not restarted).
  std::optional<std::string> PodLogs(const Json& pod, const std::string& container,
                                     bool previous) const;
  size_t PodsWithProcessForTest() const;

 private:
  struct Tracked;  // kubelet_pod.h
  struct PodState;

  Result Sync(const std::string& key);
  Result SyncRunning(const Json& pod, PodState& state);
  std::shared_ptr<PodState> NewState(const Json& pod, const LocalNode& node);
  bool StartProcess(const Json& pod, PodState& state);
  void BeginTermination(const Json& pod, const std::shared_ptr<PodState>& state);
  Result FinishDeletion(const Json& pod, const std::string& key, PodState& state);
  void Forget(const std::string& key);
  void WriteStatus(const Json& pod, PodState& state, const Json& status);
  void ObserveContainers(const Json& pod, PodState& state, const PodProcessStatus& observed,
                         TimePoint now);
  Result ApplyRestartPolicy(const Json& pod, PodState& state, TimePoint now);
  std::vector<ContainerView> Views(const Json& pod, const PodState& state, TimePoint now) const;
  void RecordStartEvents(const Json& pod, PodState& state, size_t index, TimePoint now);
  const LocalNode* FindNode(const std::string& name) const;

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  const std::vector<LocalNode> nodes_;
  std::vector<std::shared_ptr<PodRunner>> runners_;  // the default runner last
  const KubeletOptions options_;
  Controller controller_;

  mutable std::mutex mu_;
  std::condition_variable terminations_done_;
  std::map<std::string, std::shared_ptr<PodState>> pods_;  // guarded by mu_; by "ns/name"
  // The log of each container's previous run, by "uid/container"; guarded by mu_.
  std::map<std::string, std::string> previous_logs_;
  std::map<std::string, PodIpPool> ip_pools_;              // by node; pools lock themselves
  std::map<std::string, std::set<std::string>> images_;    // guarded by mu_; node -> pulled
  int terminations_ = 0;                                   // guarded by mu_
  bool stopping_ = false;                                  // guarded by mu_
};

}  // namespace trimtab::cluster::runtime
