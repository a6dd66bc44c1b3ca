// StandaloneAutoscaler: `trimtab autoscale`, the autoscaler for Flink jobs no operator manages
// (upstream flink-autoscaler-standalone; DESIGN.md section 1). One pass (RunOnce) does, for every
// configured cluster:
//
//   1. list     FetchJobs (job_list_fetcher.h): the named jobs, or every job of a session
//               cluster, each with its configuration (standalone < cluster < the job's own)
//   2. decide   the operator's autoscaler (operator/autoscaler/operator_autoscaler.h) with this
//               process's state store and event handler: the same collector, window, evaluation,
//               decision, behavior rules, executor chain (built-ins, shared libraries from the
//               plugin directory, webhooks) and decision log as `trimtab operator`. The job key
//               is "<cluster name>/<job id>"
//   3. realize  the stored parallelism overrides through RescaleApiScalingRealizer (in place,
//               Flink's resource-requirements API); a job whose requirements already match is
//               left alone, so re-applying after a restart of either side is idempotent
//   4. record   the job's decision log (plus cluster, REST URL and what the realizer did) to
//               the decision-log sink; it is also kept in the state store (decisionLog)
//
// A job that finished, was cancelled or failed has its state removed (once per process). A
// cluster that cannot be reached is reported and skipped; its jobs keep their state. Errors of one
// job never stop the pass.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto store, OpenStateStore(config.state_store));
//   TRIMTAB_ASSIGN_OR_RETURN(auto autoscaler, StandaloneAutoscaler::Create(
//       {.clusters = config.clusters, .configuration = config.configuration,
//        .state_store = store.get()}));
//   autoscaler->Run(stop, config.control_loop_interval);   // or RunOnce() per pass
//
// Thread-safety: RunOnce and Run run one pass at a time (a mutex); Stop-flag reads are atomic.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "adapters/http/client.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"
#include "core/chain/event_handler.h"
#include "core/chain/state_store.h"
#include "standalone/standalone_config.h"

namespace trimtab::flink {
class FlinkRestClient;
}

namespace trimtab::op {
class JobAutoscaler;
}

namespace trimtab::standalone {

class LoggingEventHandler;
class RescaleApiScalingRealizer;
struct StandaloneJob;

struct StandaloneAutoscalerOptions {
  std::vector<StandaloneCluster> clusters;  // names filled (ValidateStandaloneConfig)
  // The lowest layer of every job's configuration (job.autoscaler.* defaults).
  std::map<std::string, std::string> configuration;
  core::AutoscalerStateStore* state_store = nullptr;        // required; not owned
  core::AutoscalerEventHandler* event_handler = nullptr;    // nullptr = log lines
  Json executor_chain;                                      // docs/plugins.md; null = none
  const Clock* clock = nullptr;                             // nullptr = RealClock::Default()
  std::shared_ptr<const http::HttpClient> http;             // nullptr = one of its own
  std::chrono::milliseconds rest_timeout{10'000};
  std::string prometheus_url;  // custom metrics of source prometheus ("" = none)
  // Receives each job's decision log of every pass (nullptr = none).
  std::function<void(const Json&)> decision_log;
};

// What a pass did with one job.
struct JobPassResult {
  std::string job_key;  // "<cluster>/<job id>"
  std::string status;   // Flink JobStatus as listed ("" = not on the cluster)
  bool scaled = false;  // a new scaling was decided in this pass
  std::string skipped_reason;
  std::map<std::string, int> parallelism_overrides;  // stored overrides after the pass
  std::string realized;  // the realizer's action, or why realizing failed
  bool cleaned = false;  // a terminal job's state was removed
  std::string error;     // this job could not be handled ("" = it was)
};

struct PassReport {
  std::vector<JobPassResult> jobs;
  std::vector<std::string> cluster_errors;  // clusters that could not be listed
};

class StandaloneAutoscaler {
 public:
  // Fails when the options lack a state store or a cluster, or the executor chain does not
  // build (naming the plugin).
  static StatusOr<std::unique_ptr<StandaloneAutoscaler>> Create(StandaloneAutoscalerOptions o);
  ~StandaloneAutoscaler();

  PassReport RunOnce();
  // Passes every `interval` of wall time until `stop` is true (checked at least every 100 ms).
  void Run(const std::atomic<bool>& stop, std::chrono::milliseconds interval);

 private:
  explicit StandaloneAutoscaler(StandaloneAutoscalerOptions o);
  JobPassResult HandleJob(const StandaloneCluster& cluster,
                          const std::shared_ptr<const flink::FlinkRestClient>& rest,
                          const StandaloneJob& job);

  StandaloneAutoscalerOptions options_;
  std::unique_ptr<LoggingEventHandler> owned_events_;
  core::AutoscalerEventHandler* events_ = nullptr;
  std::unique_ptr<op::JobAutoscaler> autoscaler_;
  std::unique_ptr<RescaleApiScalingRealizer> realizer_;
  std::mutex mu_;                 // one pass at a time
  std::set<std::string> cleaned_;  // guarded by mu_: terminal jobs whose state is gone
};

// Opens the configured store (SQLite file, PostgreSQL database, or memory). Errors name it.
StatusOr<std::unique_ptr<core::AutoscalerStateStore>> OpenStateStore(const StateStoreConfig& c,
                                                                     const Clock* clock = nullptr);

}  // namespace trimtab::standalone
