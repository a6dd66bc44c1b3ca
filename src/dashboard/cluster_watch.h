// ClusterWatch: the dashboard's read side. One informer (adapters/kube/informer.h) per watched
// kind and namespace keeps a cache of FlinkDeployments, FlinkSessionJobs, the autoscaler state
// ConfigMaps (label component=autoscaler), Volcano PodGroups and Queues and
// HorizontalPodAutoscalers; Snapshot() copies them into a ClusterView. Every change any informer
// sees bumps a revision and wakes WaitForChange, which the live-update stream waits on.
//
// It only lists and watches: it never writes. A kind the API server does not serve or the
// credentials may not list stays unsynced (its informer backs off and retries) and the view marks
// it unreadable; the other kinds are not held up.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto watch, ClusterWatch::Create({.client = client.get()}));
//   watch->Start();
//   ClusterView view = watch->Snapshot();
//   watch->Stop();
//
// Thread-safety: Start/Stop from the owner; Snapshot, Revision and WaitForChange from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/informer.h"
#include "adapters/kube/kube_client.h"
#include "common/status.h"
#include "dashboard/cluster_view.h"

namespace trimtab::dashboard {

struct ClusterWatchOptions {
  const kube::KubeClient* client = nullptr;  // required; outlives the watch
  // Namespaces to watch; empty = all namespaces. Queues are cluster-scoped and always listed.
  std::vector<std::string> namespaces;
};

class ClusterWatch {
 public:
  static StatusOr<std::unique_ptr<ClusterWatch>> Create(ClusterWatchOptions options);
  ~ClusterWatch();  // Stop()s

  // Starts the informers on threads of their own. Call once.
  void Start();
  // Stops and joins them. Idempotent.
  void Stop();

  ClusterView Snapshot() const;
  // Bumped by every add, update and delete the informers see.
  uint64_t Revision() const { return revision_.load(); }
  // Waits until Revision() != `seen`, Stop() or `timeout`; returns the current revision.
  uint64_t WaitForChange(uint64_t seen, std::chrono::milliseconds timeout) const;

 private:
  struct Watched {
    std::string kind;  // ClusterView::readable key, e.g. "podgroups"
    std::vector<Json> ClusterView::*list;
    std::unique_ptr<kube::Informer> informer;
  };
  explicit ClusterWatch(ClusterWatchOptions options) : options_(std::move(options)) {}
  Status Add(const kube::GroupVersionResource& gvr, const std::string& kind,
             std::vector<Json> ClusterView::*list, const std::string& label_selector);
  void Bump();

  ClusterWatchOptions options_;
  std::vector<Watched> watched_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> revision_{1};
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  bool stopped_ = false;  // guarded by mu_
};

}  // namespace trimtab::dashboard
