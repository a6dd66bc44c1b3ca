// Private to flink_pod_runner.cc: the process of a simulated JobManager pod (its cluster, REST
// server and the sync thread that keeps TaskManager pods and HA ConfigMaps in step), and the
// trivial TaskManager process.
//
// Thread-safety: all PodProcess methods are safe for concurrent use.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "cluster/runtime/pod_runner.h"
#include "cluster/flink/configmap_ha_store.h"
#include "cluster/flink/flink_cluster.h"
#include "cluster/flink/flink_pod_runner.h"
#include "cluster/flink/flink_pods.h"
#include "cluster/flink/rest_server.h"

namespace trimtab::sim::flink {

class FlinkPodRunner::JobManagerProcess final : public cluster::PodProcess {
 public:
  struct Init {
    std::shared_ptr<const kube::KubeClient> kube;
    std::shared_ptr<FlinkCluster> cluster;
    std::unique_ptr<FlinkRestServer> rest;
    std::shared_ptr<ConfigMapHaStore> ha;  // null without HA
    Json pod;
    std::string namespace_name;
    std::string cluster_id;
    TaskManagerPodSpec tm_template;  // name filled per pod
    TaskManagerSettings tm_shape;
    // Standalone entrypoint (IsStandaloneEntrypoint): the TaskManagers are the Running pods
    // labelled app=<cluster-id>,component=taskmanager, whoever made them; none are created or
    // released.
    bool standalone = false;
    int attempt = 1;
    std::chrono::milliseconds sync_interval{200};
    std::vector<std::string> start_log;
  };

  explicit JobManagerProcess(Init init);
  ~JobManagerProcess() override;

  cluster::PodProcessStatus Status() const override;
  void Terminate(std::chrono::milliseconds grace) override;
  std::string Logs(std::string_view container) const override;

  // Runs one sync (the thread calls it every sync_interval); exposed for tests.
  void SyncOnce();

 private:
  void Loop();
  void SyncTaskManagers();
  void HandleShutdownRequest();
  void LogJobChanges();
  void Log(const std::string& line);

  Init init_;
  mutable std::mutex log_mu_;
  std::deque<std::string> log_;  // guarded by log_mu_
  std::mutex sync_mu_;           // one sync at a time
  // Per job id: the state last logged and the latest state-entry time seen then.
  struct LoggedJobState {
    std::string state;
    int64_t at_ms = 0;
  };
  std::map<std::string, LoggedJobState> job_states_;  // guarded by sync_mu_
  int next_index_ = 1;                              // guarded by sync_mu_
  bool shutdown_done_ = false;                      // guarded by sync_mu_
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by stop_mu_
  std::atomic<bool> terminated_{false};
  std::thread loop_;
};

class TaskManagerProcess final : public cluster::PodProcess {
 public:
  explicit TaskManagerProcess(const Json& pod);
  cluster::PodProcessStatus Status() const override;
  void Terminate(std::chrono::milliseconds grace) override;
  std::string Logs(std::string_view container) const override;

 private:
  std::vector<std::string> containers_;
  std::string name_;
  std::atomic<bool> terminated_{false};
};

}  // namespace trimtab::sim::flink
