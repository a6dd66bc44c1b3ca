// Operator: the trimtab Flink Kubernetes operator as one embeddable component. It watches
// FlinkDeployments, FlinkSessionJobs, FlinkStateSnapshots and the JobManager Deployments it
// created (informers) and runs the three controllers on the controller kit's work loop
// (adapters/kube/controller.h: rate-limited work queues, worker threads), optionally behind Lease-based leader election, with /healthz, /readyz and
// /metrics (Prometheus text format; docs/metrics.md) on the health port.
// FlinkStateSnapshots are only watched when the API server serves their CRD (a real cluster may
// not have it installed). It talks to the API server only
// through the public API, so it works against a real cluster and against `trimtab local` alike.
//
// Usage (in-process, as `trimtab local` does):
//   TRIMTAB_ASSIGN_OR_RETURN(auto op, Operator::Create({.rest_config = {.server = url},
//                                                       .clock = &clock,
//                                                       .autoscaler = autoscaler.get()}));
//   TRIMTAB_RETURN_IF_ERROR(op->Start());   // returns once the caches are synced
//   ...
//   op->Stop();                             // stops workers, informers, leader election
//
// Reaching a cluster's REST API: `resolver` when given; otherwise the Service <name>-rest is
// resolved through the API server (resolve_services_via_api, the default outside a cluster) or by
// cluster DNS.
//
// Thread-safety: Start/Stop/Wait from one owner thread; IsLeader/Healthy from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/http/server.h"
#include "adapters/kube/controller.h"
#include "adapters/kube/informer.h"
#include "adapters/kube/kube_client.h"
#include "adapters/kube/leader_election.h"
#include "adapters/kube/workqueue.h"
#include "common/metrics_registry.h"
#include "operator/controller_shared/controller_deps.h"
#include "operator/deployment/flink_deployment_controller.h"
#include "operator/session_job/flink_session_job_controller.h"
#include "operator/snapshot/flink_state_snapshot_controller.h"

namespace trimtab::op {

// What an autoscaler factory gets to build the JobAutoscaler the operator owns.
struct AutoscalerFactoryContext {
  const kube::KubeClient* client = nullptr;
  Clock* clock = nullptr;
  EventRecorder* events = nullptr;
  std::string plugins_dir;  // executor plugins for the autoscaler chain ("" = none)
  MetricsRegistry* metrics = nullptr;  // the operator's registry, for the autoscaler's series
};
using AutoscalerFactory =
    std::function<StatusOr<std::unique_ptr<JobAutoscaler>>(const AutoscalerFactoryContext&)>;

struct OperatorOptions {
  // The API server and credentials.
  kube::RestConfig rest_config;
  // Namespaces to watch; empty = all namespaces.
  std::vector<std::string> namespaces;
  // Time for requeues, timestamps and timeouts (the real clock by default).
  Clock* clock = RealClock::Default();
  // The autoscaler the reconcilers call (not owned; may be null) ...
  JobAutoscaler* autoscaler = nullptr;
  // ... or built by this factory when `autoscaler` is null (owned by the operator; the factory
  // may return null for "no autoscaling").
  AutoscalerFactory autoscaler_factory;
  std::string plugins_dir;
  // Operator default Flink configuration (kubernetes.operator.* and cluster defaults).
  api::FlinkConfiguration default_configuration;
  // How a cluster's REST API is found (not owned; null = the Service resolver below).
  const RestEndpointResolver* resolver = nullptr;
  bool resolve_services_via_api = true;
  // Worker threads per controller (upstream reconcile.parallelism).
  int workers = 4;
  // Lease-based leader election.
  bool leader_election = false;
  std::string lease_name = "trimtab-operator";
  std::string lease_namespace = "default";
  std::string identity;  // "" = hostname + pid
  // Where the operator's metrics go (not owned; null = a registry of its own). Served at /metrics
  // on the health port: reconciles, work queues, Kubernetes client requests, leadership and the
  // autoscaler's per-job series (docs/metrics.md).
  MetricsRegistry* metrics = nullptr;
  // /healthz, /readyz and /metrics on <health_address>:<port> (-1 = no health server, 0 = any
  // free port). Loopback unless configured: the endpoints are unauthenticated.
  int health_port = -1;
  std::string health_address = "127.0.0.1";
  // Backoff of failed passes: base * 2^failures capped at max.
  Duration error_backoff_base = std::chrono::seconds(1);
  Duration error_backoff_max = std::chrono::minutes(5);
  // Informer resync (a safety net; passes requeue themselves).
  Duration resync_period = std::chrono::minutes(5);
  // Test seams (defaults: a real TCP probe and an http(s)/file jar fetcher).
  TcpProbe tcp_probe;
  ArtifactFetcher fetch_artifact;
};

class Operator {
 public:
  static StatusOr<std::unique_ptr<Operator>> Create(OperatorOptions options);
  ~Operator();  // Stop()s

  // Starts leader election (if enabled), informers and workers. Without leader election it
  // returns once the informer caches are synced (kDeadlineExceeded after 60 s).
  Status Start();
  // Stops everything and joins the threads. Idempotent.
  void Stop();
  // Blocks until Stop() (or, with leader election, until leadership is lost).
  void Wait();

  bool IsLeader() const { return leading_.load(); }
  bool Healthy() const;
  int health_port() const { return health_ ? health_->port() : -1; }
  const kube::KubeClient* client() const { return client_.get(); }
  MetricsRegistry* metrics() const { return metrics_; }
  FlinkDeploymentController* deployment_controller() { return deployments_.get(); }
  FlinkSessionJobController* session_job_controller() { return session_jobs_.get(); }
  FlinkStateSnapshotController* snapshot_controller() { return snapshots_.get(); }

 private:
  explicit Operator(OperatorOptions options);
  Status StartControllers();
  void StopControllers();
  // The controller loop of one resource kind: `controller` and `resource_type` name it in logs and
  // metrics, `reconcile` is the controller's pass.
  std::unique_ptr<kube::Controller> NewController(
      const std::string& controller, const std::string& resource_type,
      std::function<StatusOr<ReconcileResult>(const std::string& ns, const std::string& name)>
          reconcile);
  // True when the API server serves flinkstatesnapshots (the CRD is installed).
  bool SnapshotsServed(const std::string& ns) const;
  void MarkStopped();
  void AddInformer(const kube::GroupVersionResource& gvr, const std::string& ns,
                   const std::string& label_selector, kube::EventHandler handler);

  OperatorOptions options_;
  std::unique_ptr<MetricsRegistry> owned_metrics_;
  MetricsRegistry* metrics_ = nullptr;
  int leader_collector_ = 0;
  // Reconcile passes (JOSDK names, docs/metrics.md), by controller and resource kind.
  MetricFamily* reconciles_ = nullptr;
  MetricFamily* reconcile_failures_ = nullptr;
  MetricFamily* reconcile_retries_ = nullptr;
  MetricFamily* reconcile_seconds_ = nullptr;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<RestEndpointResolver> owned_resolver_;
  std::unique_ptr<JobAutoscaler> owned_autoscaler_;
  std::unique_ptr<FlinkDeploymentController> deployments_;
  std::unique_ptr<FlinkSessionJobController> session_jobs_;
  std::unique_ptr<FlinkStateSnapshotController> snapshots_;
  std::unique_ptr<http::HttpServer> health_;
  std::unique_ptr<kube::LeaderElector> elector_;
  std::thread elector_thread_;

  mutable std::mutex mu_;
  // Built anew each time the controllers start (a kube::Controller runs once).
  std::unique_ptr<kube::Controller> deployment_loop_;   // guarded by mu_ (lifecycle)
  std::unique_ptr<kube::Controller> session_job_loop_;  // guarded by mu_ (lifecycle)
  std::unique_ptr<kube::Controller> snapshot_loop_;     // guarded by mu_ (lifecycle); may be null
  std::vector<std::unique_ptr<kube::Informer>> informers_;
  std::vector<std::thread> threads_;
  bool controllers_running_ = false;  // guarded by mu_
  std::atomic<bool> leading_{false};
  std::atomic<bool> stopped_{false};
  std::mutex stop_mu_;  // with stop_cv_: Wait() until stopped_
  std::condition_variable stop_cv_;
};

}  // namespace trimtab::op
