// OperatorAutoscaler: the JobAutoscaler (job_autoscaler.h) the operator's reconcilers call, i.e.
// upstream JobAutoScalerImpl with its Kubernetes state store and event handler (notes
// flink-autoscaler-and-operator.md §C.1). One Scale() per reconcile of a deployed job, in four
// stages, one file each (scale_pass.h):
//
//   Prepare (scale_prepare.cc)
//     options      job.autoscaler.* from the effective configuration, parsed once for the call;
//                  invalid -> Warning AutoscalerError, no decision, stored overrides kept
//     disabled     job.autoscaler.enabled false -> state ConfigMap removed, no overrides (the
//                  job returns to the user's parallelism)
//     state        loaded once from the ConfigMap `autoscaler-<name>` and cached per resource
//     job status   not RUNNING (as the reconciler observed it, or as REST reports it) -> the
//                  cached evaluation is dropped, no decision, stored overrides kept
//     collect      FlinkMetricsCollector over the job's REST API (timeout
//                  job.autoscaler.flink.rest-client.timeout, default the operator's client
//                  timeout) plus the custom metrics the executor plugins declared; legacy
//                  sources without busy time join the cycle's excluded vertices
//   Run (scale_run.cc)
//     decide       RunAutoscalerCycleWithChain with the parsed options: window, evaluation,
//                  per-vertex parallelism, behavior shaping, executor plugin chain, commit of
//                  what was approved; restart tracking happens inside
//   Persist (scale_persist.cc)
//     persist      state, plugin state and the decision log written back to the ConfigMap with
//                  optimistic locking; a conflict (409) invalidates the cache and skips the
//                  cycle (no new overrides, no events), never a blind overwrite
//   Report (scale_report.cc)
//     events       the cycle's events as Kubernetes Events (ScalingReport, IneffectiveScaling,
//                  ScalingLimited, MemoryPressure, ResourceQuotaReached, ScalingVetoed),
//                  named as the operator's own Events, one Event per identity
//     metrics      the cycle's evaluated metrics, outcome, vetoes and rescale times as Prometheus
//                  series (autoscaler_metrics.h) when a registry is given; Cleanup drops them
//     outcome      the stored parallelism overrides (every vertex once a scaling happened),
//                  `scaled` when this call decided a new scaling, `skipped_reason` when nothing
//                  was decided, the decision log, and what the options say about realizing
//                  them (excluded vertices, memory tuning)
//
// Faults never scale: a REST timeout or error status, missing metrics, an unreadable or
// conflicting state ConfigMap or a failing cycle give skipped_reason and the overrides already
// stored (as last read or written). Only when the state has never been read and cannot be (the
// API server is unreachable at start-up) does Scale() fail (kUnavailable): the stored overrides
// are unknown then, and an empty map would undo them. Whether a change can be applied in place
// is left to the reconciler.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto autoscaler, OperatorAutoscaler::Create({.kube = kube.get()}));
//   TRIMTAB_ASSIGN_OR_RETURN(AutoscalerOutcome out, autoscaler->Scale(context));
//   KubernetesScalingRealizer(&spec, {.user = user, .excluded = out.excluded_vertices})
//       .RealizeParallelismOverrides(job_key, out.parallelism_overrides);
//
// Thread-safety: Scale/Cleanup are safe for concurrent calls; calls for the same resource wait
// for each other (the controller's work queue already serialises them).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "adapters/flink/metrics_collector.h"
#include "adapters/http/client.h"
#include "adapters/kube/event_recorder.h"
#include "adapters/kube/kube_client.h"
#include "adapters/state/configmap_state_store.h"
#include "common/clock.h"
#include "core/chain/event_handler.h"
#include "core/chain/executor_chain.h"
#include "core/chain/metric_requirements.h"
#include "core/chain/plugin_registry.h"
#include "core/chain/state_store.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/flink/decision_log.h"
#include "operator/autoscaler/autoscaler_metrics.h"
#include "operator/autoscaler/job_autoscaler.h"
#include "operator/autoscaler/kube_event_handler.h"
#include "operator/autoscaler/vertex_labels.h"

namespace trimtab::op {

struct OperatorAutoscalerOptions {
  // Kubernetes access for the default state store (ConfigMaps) and events. Required unless both
  // `state_store` and `event_handler` are given.
  const kube::KubeClient* kube = nullptr;
  // Replacements for the defaults (tests, embedding); not owned, must outlive the autoscaler.
  core::AutoscalerStateStore* state_store = nullptr;
  core::AutoscalerEventHandler* event_handler = nullptr;
  const Clock* clock = nullptr;  // nullptr = RealClock::Default()
  // Executor chain, as docs/plugins.md: {"plugins": [...], "libraries": [...],
  // "pluginDirectory": "..."}; null = no plugins.
  Json executor_chain;
  // Where plugin types come from; nullptr = the built-in types (with webhook).
  core::ExecutorPluginRegistry* plugin_registry = nullptr;
  // Adds a queue-capacity plugin (priority 1000000: last) to a chain that has none, when the
  // registry knows the type. It acts only for jobs in a Volcano queue (the context's `queue`).
  bool default_queue_capacity = true;
  // Adds a scale-guard plugin (priority 999000: after the user's plugins) to a chain that has
  // none: no decision jumps beyond 4x a vertex's running parallelism (or the highest it ran at)
  // or beyond the free room on the nodes (issue 28).
  bool default_scale_guard = true;
  // Jobs whose configuration has `job.autoscaler.defaults: trimtab` (core/flink/trimtab_defaults.h)
  // run trimtab's default executor plugins (plugins/builtin/trimtab_default_chain.h) before the
  // chain above, each unless the chain has a plugin of its type; other jobs run the chain alone.
  bool trimtab_default_plugins = true;
  // HTTP client for the Flink REST API; nullptr = one owned by the autoscaler.
  const http::HttpClient* flink_http = nullptr;
  // job.autoscaler.flink.rest-client.timeout when the configuration does not set it (upstream
  // uses the operator's Flink client timeout).
  Millis default_rest_timeout{10'000};
  // Size cap of the state ConfigMap's metric keys (ConfigMapStateStoreOptions).
  size_t max_state_chars = adapters::kDefaultMaxStateChars;
  // reportingInstance of the Events (the operator pod's name).
  std::string operator_instance;
  // Prometheus HTTP API for custom metrics of source `prometheus` ("http://prometheus:9090");
  // "" = none, and such metrics have no value (the decision log says why).
  std::string prometheus_url;
  // Where the per-job and per-vertex series go (autoscaler_metrics.h; not owned; null = none).
  MetricsRegistry* metrics = nullptr;
};

// Upstream's AutoScaler metric group counters for one resource (notes §C.14).
struct AutoscalerCounters {
  int64_t scalings = 0;  // cycles that decided a scaling
  int64_t balanced = 0;  // cycles that evaluated a full window and changed nothing
  int64_t errors = 0;    // cycles that failed (REST, metrics, state, configuration)
};

class OperatorAutoscaler final : public JobAutoscaler {
 public:
  // Fails when the executor chain does not build (naming the plugin spec), a plugin declares
  // an invalid metric, or neither a KubeClient nor both replacements are given.
  static StatusOr<std::unique_ptr<OperatorAutoscaler>> Create(OperatorAutoscalerOptions options);
  ~OperatorAutoscaler() override;

  StatusOr<AutoscalerOutcome> Scale(const AutoscalerJobContext& context) override;
  Status Cleanup(const std::string& namespace_name, const std::string& resource_name) override;
  StatusOr<AutoscalerOutcome> RevertUnschedulable(const AutoscalerJobContext& context) override;

  // The evaluated metrics of the resource's latest cycle that evaluated (none after the job
  // left RUNNING), for status and metric reporting.
  std::optional<core::EvaluatedMetrics> LastEvaluation(const std::string& namespace_name,
                                                       const std::string& resource_name) const;
  AutoscalerCounters Counters(const std::string& namespace_name,
                              const std::string& resource_name) const;
  // "resource-gate(10) -> webhook(20)", or "(empty)": the chain of jobs with upstream's
  // defaults; DescribeTrimtabChain: of jobs with `job.autoscaler.defaults: trimtab`.
  std::string DescribeChain() const { return chain_.Describe(); }
  std::string DescribeTrimtabChain() const {
    return trimtab_chain_ ? trimtab_chain_->Describe() : chain_.Describe();
  }

 private:
  struct Resource;    // scale_pass.h
  struct ScaleStep;   // scale_pass.h
  struct ScalePass;   // scale_pass.h

  explicit OperatorAutoscaler(OperatorAutoscalerOptions options);
  std::shared_ptr<Resource> ResourceFor(const std::string& job_key, bool create) const;
  Status EnsureLoaded(const std::string& job_key, Resource* r);
  void Bind(const AutoscalerJobContext& context, const std::string& job_key);
  // The stages of Scale() (scale_pass.h).
  StatusOr<ScaleStep> Prepare(ScalePass& pass);
  StatusOr<ScaleStep> Run(ScalePass& pass);
  StatusOr<ScaleStep> Persist(ScalePass& pass);
  AutoscalerOutcome Report(ScalePass& pass);
  void CountError(ScalePass& pass) const;
  void Emit(const std::string& job_key, const core::flink::DecisionLog& log,
            const VertexLabels& labels, Millis interval) const;
  void EmitError(const std::string& job_key, const std::string& message, Millis interval) const;
  TimePoint Now() const;

  OperatorAutoscalerOptions options_;
  // Owned defaults (null when replaced through the options).
  std::unique_ptr<http::HttpClient> owned_http_;
  const http::HttpClient* http_ = nullptr;  // Flink REST and Prometheus
  std::unique_ptr<adapters::ConfigMapStateStore> owned_store_;
  std::unique_ptr<kube::EventRecorder> recorder_;
  std::unique_ptr<KubeAutoscalerEventHandler> owned_events_;
  core::AutoscalerStateStore* store_ = nullptr;
  adapters::ConfigMapStateStore* configmap_store_ = nullptr;  // set when the store is ours
  core::AutoscalerEventHandler* events_ = nullptr;
  KubeAutoscalerEventHandler* kube_events_ = nullptr;  // set when the handler is ours
  std::unique_ptr<adapters::FlinkMetricsCollector> collector_;
  // The chain a job with these options runs (trimtab_chain_ for trimtab's defaults).
  const core::ExecutorChain& ChainFor(const core::flink::AutoscalerOptions& o) const;

  core::ExecutorChain chain_;
  std::optional<core::ExecutorChain> trimtab_chain_;  // chain_ with trimtab's default plugins
  core::MetricRequirementRegistry metrics_;
  std::unique_ptr<AutoscalerMetrics> exported_;  // set with options_.metrics

  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<Resource>> resources_;  // guarded by mu_
};

}  // namespace trimtab::op
