// FlinkPodRunner: the cluster::PodRunner that turns the JobManager pods of
// docs/design/flink-pods.md into simulated Flink clusters, and runs their TaskManager pods.
//
// JobManager pod (IsJobManagerPod): Start() reads the Flink configuration (the ConfigMap
// mounted at /opt/flink/conf, then -D tokens of the args, then FLINK_PROPERTIES), the Flink
// version (image tag) and the job graph and workload (annotations trimtab.dev/job,
// trimtab.dev/workload, trimtab.dev/job-configmap, trimtab.dev/workload-configmap on the pod or
// any owner up its owner chain; the trimtab.job / trimtab.workload keys; the `workloads` map;
// jar-name defaults), starts a FlinkCluster and its REST API on the pod IP (rest.port), and a
// sync thread that every `sync_interval` of wall time:
//   - advances the cluster to the clock's now;
//   - creates TaskManager pods `<cluster-id>-taskmanager-<attempt>-<index>` (owned by the
//     JobManager Deployment) until the jobs' slots are covered, registers each TaskManager once
//     its pod is Running, deletes TaskManagers idle past resourcemanager.taskmanager-timeout,
//     and fails the jobs whose TaskManager pods disappear; a JobManager on a standalone
//     entrypoint (IsStandaloneEntrypoint) creates and deletes none: it registers the Running
//     pods labelled app=<cluster-id>,component=taskmanager (a standalone TaskManager
//     Deployment's) and loses the ones that go;
//   - writes the HA ConfigMaps (high-availability.type: kubernetes);
//   - on DELETE /cluster (or a finished application with execution.shutdown-on-application-
//     finish) deletes the JobManager Deployment and the HA ConfigMaps, as Flink's native
//     resource manager does.
// The main container is Running and ready once the REST endpoint serves. Terminate() suspends
// the jobs (HA metadata and topics survive) and stops everything.
//
// TaskManager pod (IsTaskManagerPod): a process that runs until terminated.
//
// Metrics (cluster::metrics::StreamingMetricsSource, read-only): Topics() are the sources of
// every job of the running JobManagers of a namespace, from the job models (end, committed
// offset and reading TaskManager per partition; produce rate; consumer group and `cluster`
// label: the cluster id; `job` label: the job name; owner: the FlinkDeployment of that name);
// PodCpu() is every TaskManager's Status.JVM.CPU.Load times its cpu, which follows the busy time
// of its subtasks.
//
// Usage (`trimtab local`):
//   auto runner = std::make_unique<FlinkPodRunner>(FlinkPodRunnerOptions{
//       .kube = kube_client, .clock = &clock, .data_dir = data_dir,
//       .workloads = *LoadWorkloadFile(path)});
//   kubelet.AddRunner(runner.get());
//   ...  runner->topics()->CheckLedger("<ns>/<cluster-id>/<source vertex id>")
//
// Thread-safety: Handles/Start from the kubelet thread; everything else is safe for concurrent
// use. The runner must outlive the processes it started.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "cluster/metrics/streaming_source.h"
#include "cluster/runtime/pod_runner.h"
#include "common/clock.h"
#include "cluster/flink/flink_cluster.h"

namespace trimtab::sim::flink {

// One entry of `trimtab local --workload FILE`: a job (as in the trimtab.dev/job annotation)
// and/or a workload (as in trimtab.dev/workload), parsed documents.
struct WorkloadEntry {
  std::optional<Json> job;
  std::optional<Json> workload;
};

// The --workload file: a YAML/JSON map from "<namespace>/<cluster-id>" (or
// "<namespace>/<cluster-id>/<job name>" for one job of a session cluster) to {job, workload}.
StatusOr<std::map<std::string, WorkloadEntry>> ParseWorkloadFile(std::string_view text, std::string_view what);
StatusOr<std::map<std::string, WorkloadEntry>> LoadWorkloadFile(const std::string& path);

struct FlinkPodRunnerOptions {
  // The API server the pods live in (required).
  std::shared_ptr<const kube::KubeClient> kube;
  // The clock every simulated cluster runs on (null: the real clock).
  Clock* clock = nullptr;
  // Savepoints and checkpoints go to <data_dir>/flink-fs (empty: a temporary directory).
  std::string data_dir;
  // Topics shared by every cluster of the process (null: the runner makes one).
  std::shared_ptr<TopicRegistry> topics;
  // `trimtab local --workload` entries.
  std::map<std::string, WorkloadEntry> workloads;
  // Wall time between two syncs of a JobManager with its pods and HA ConfigMaps.
  std::chrono::milliseconds sync_interval{200};
  // Longest model step when a cluster catches up with the clock.
  double max_step_seconds = 1.0;
  uint64_t seed = 1;
};

class FlinkPodRunner final : public cluster::PodRunner, public cluster::metrics::StreamingMetricsSource {
 public:
  explicit FlinkPodRunner(FlinkPodRunnerOptions options);
  ~FlinkPodRunner() override;

  std::string_view name() const override { return "flink"; }
  bool Handles(const Json& pod) const override;
  // Errors (the kubelet reports CreateContainerError and retries): unreadable configuration,
  // invalid job or workload text, the REST port cannot be bound.
  StatusOr<std::unique_ptr<cluster::PodProcess>> Start(const cluster::PodStartContext& context) override;

  std::shared_ptr<TopicRegistry> topics() const { return topics_; }
  const SimFileSystem& filesystem() const { return *fs_; }
  // The cluster of the running JobManager pod namespace/name (null when none).
  std::shared_ptr<FlinkCluster> ClusterOf(const std::string& namespace_name, const std::string& pod_name) const;

  // cluster::metrics::StreamingMetricsSource.
  std::vector<cluster::metrics::TopicSample> Topics(const std::string& ns, TimePoint now) override;
  std::map<std::string, double> PodCpu(const std::string& ns, TimePoint now) override;

  class JobManagerProcess;

 private:
  StatusOr<std::unique_ptr<cluster::PodProcess>> StartJobManager(const cluster::PodStartContext& context);
  // The running clusters of the JobManager pods of `ns`.
  std::vector<std::shared_ptr<FlinkCluster>> ClustersIn(const std::string& ns) const;

  FlinkPodRunnerOptions options_;
  std::shared_ptr<TopicRegistry> topics_;
  std::shared_ptr<SimFileSystem> fs_;
  mutable std::mutex mu_;
  std::map<std::string, std::weak_ptr<FlinkCluster>> clusters_;  // "ns/pod" -> cluster; guarded by mu_
  uint64_t started_ = 0;                                           // guarded by mu_
};

}  // namespace trimtab::sim::flink
