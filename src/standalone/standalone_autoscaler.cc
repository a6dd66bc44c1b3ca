#include "standalone/standalone_autoscaler.h"

#include <spdlog/spdlog.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/flink/rest_client.h"
#include "adapters/state/in_memory_state_store.h"
#include "adapters/state/postgres_state_store.h"
#include "adapters/state/sqlite_state_store.h"
#include "operator/autoscaler/operator_autoscaler.h"
#include "standalone/job_list_fetcher.h"
#include "standalone/logging_event_handler.h"
#include "standalone/rescale_api_realizer.h"

namespace trimtab::standalone {

StatusOr<std::unique_ptr<core::AutoscalerStateStore>> OpenStateStore(const StateStoreConfig& c,
                                                                     const Clock* clock) {
  switch (c.type) {
    case StateStoreConfig::Type::kMemory:
      return std::unique_ptr<core::AutoscalerStateStore>(
          std::make_unique<adapters::InMemoryStateStore>());
    case StateStoreConfig::Type::kSqlite: {
      TRIMTAB_ASSIGN_OR_RETURN(auto store,
                               adapters::SqliteStateStore::Create({.path = c.path, .clock = clock}));
      return std::unique_ptr<core::AutoscalerStateStore>(std::move(store));
    }
    case StateStoreConfig::Type::kPostgresql: {
      TRIMTAB_ASSIGN_OR_RETURN(auto store, adapters::PostgresStateStore::Create(
                                               {.connection = c.connection, .clock = clock}));
      return std::unique_ptr<core::AutoscalerStateStore>(std::move(store));
    }
  }
  return InvalidArgumentError("state store: unknown type");
}

StandaloneAutoscaler::StandaloneAutoscaler(StandaloneAutoscalerOptions o)
    : options_(std::move(o)) {}

StandaloneAutoscaler::~StandaloneAutoscaler() = default;

StatusOr<std::unique_ptr<StandaloneAutoscaler>> StandaloneAutoscaler::Create(
    StandaloneAutoscalerOptions o) {
  if (o.state_store == nullptr) return InvalidArgumentError("autoscale: no state store");
  if (o.clusters.empty()) return InvalidArgumentError("autoscale: no Flink cluster");
  if (o.clock == nullptr) o.clock = RealClock::Default();
  if (o.http == nullptr) {
    StatusOr<std::unique_ptr<http::HttpClient>> http =
        http::HttpClient::Create({.user_agent = "trimtab-autoscale"});
    if (!http.ok()) return http.status().WithContext("autoscale: Flink REST client");
    o.http = std::shared_ptr<const http::HttpClient>(std::move(http).value());
  }
  std::unique_ptr<StandaloneAutoscaler> a(new StandaloneAutoscaler(std::move(o)));
  StandaloneAutoscalerOptions& opt = a->options_;
  a->events_ = opt.event_handler;
  if (a->events_ == nullptr) {
    a->owned_events_ = std::make_unique<LoggingEventHandler>(opt.clock);
    a->events_ = a->owned_events_.get();
  }
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<op::OperatorAutoscaler> autoscaler,
                           op::OperatorAutoscaler::Create({.state_store = opt.state_store,
                                                           .event_handler = a->events_,
                                                           .clock = opt.clock,
                                                           .executor_chain = opt.executor_chain,
                                                           .flink_http = opt.http.get(),
                                                           .default_rest_timeout = opt.rest_timeout,
                                                           .prometheus_url = opt.prometheus_url}));
  spdlog::info("autoscale: executor chain {} (jobs with job.autoscaler.defaults: trimtab: {})",
               autoscaler->DescribeChain(), autoscaler->DescribeTrimtabChain());
  a->autoscaler_ = std::move(autoscaler);
  a->realizer_ = std::make_unique<RescaleApiScalingRealizer>(a->events_);
  return a;
}

JobPassResult StandaloneAutoscaler::HandleJob(
    const StandaloneCluster& cluster, const std::shared_ptr<const flink::FlinkRestClient>& rest,
    const StandaloneJob& job) {
  JobPassResult r{.job_key = cluster.name + "/" + job.job_id, .status = job.status};
  if (!job.error.empty()) {
    r.error = job.error;
    return r;
  }
  if (IsGloballyTerminalJobStatus(job.status)) {
    if (cleaned_.insert(r.job_key).second) {
      Status s = autoscaler_->Cleanup(cluster.name, job.job_id);
      if (!s.ok()) {
        cleaned_.erase(r.job_key);
        r.error = "removing the state of the " + job.status + " job: " + std::string(s.message());
        return r;
      }
      realizer_->Unbind(r.job_key);
      r.cleaned = true;
    }
    r.skipped_reason = "job is " + job.status;
    return r;
  }
  cleaned_.erase(r.job_key);
  op::AutoscalerJobContext context{.namespace_name = cluster.name,
                                   .resource_name = job.job_id,
                                   .resource_kind = "FlinkJob",
                                   .job_id = job.job_id,
                                   .job_status = job.status,
                                   .rest_url = cluster.rest_url,
                                   .flink_configuration = job.configuration};
  StatusOr<op::AutoscalerOutcome> outcome = autoscaler_->Scale(context);
  if (!outcome.ok()) {
    r.error = std::string(outcome.status().message());
    return r;
  }
  r.scaled = outcome->scaled;
  r.skipped_reason = outcome->skipped_reason;
  r.parallelism_overrides = outcome->parallelism_overrides;
  realizer_->Bind(r.job_key, {.rest = rest,
                              .job_id = job.job_id,
                              .job_status = job.status,
                              .configuration = job.configuration});
  Status realized = Status::Ok();
  if (!outcome->parallelism_overrides.empty()) {
    core::ParallelismOverrides overrides(outcome->parallelism_overrides.begin(),
                                         outcome->parallelism_overrides.end());
    realized = realizer_->RealizeParallelismOverrides(r.job_key, overrides);
    realizer_->RealizeConfigOverrides(r.job_key, outcome->config_overrides,
                                      outcome->config_removals)
        .IgnoreError();
  }
  if (realized.ok()) {
    r.realized = realizer_->LastAction(r.job_key);
    if (r.realized.empty()) r.realized = "no overrides";
  } else {
    r.realized = "failed: " + std::string(realized.message());
    spdlog::warn("autoscale {}: {}", r.job_key, realized.message());
  }
  if (options_.decision_log) {
    Json log = outcome->decision_log.is_null() ? Json::object() : outcome->decision_log;
    log["cluster"] = cluster.name;
    log["restUrl"] = cluster.rest_url;
    log["realize"] = r.realized;
    options_.decision_log(log);
  }
  return r;
}

PassReport StandaloneAutoscaler::RunOnce() {
  std::lock_guard<std::mutex> lock(mu_);
  PassReport report;
  for (const StandaloneCluster& cluster : options_.clusters) {
    auto rest = std::make_shared<const flink::FlinkRestClient>(options_.http, cluster.rest_url,
                                                               options_.rest_timeout);
    std::map<std::string, std::string> base = options_.configuration;
    StatusOr<std::vector<StandaloneJob>> jobs = FetchJobs(*rest, cluster, base);
    if (!jobs.ok()) {
      spdlog::warn("autoscale: {}", jobs.status().message());
      report.cluster_errors.push_back(std::string(jobs.status().message()));
      continue;
    }
    for (const StandaloneJob& job : *jobs) {
      JobPassResult r = HandleJob(cluster, rest, job);
      if (!r.error.empty()) spdlog::warn("autoscale {}: {}", r.job_key, r.error);
      if (r.scaled) {
        spdlog::info("autoscale {}: scaled, {}", r.job_key, r.realized);
      }
      report.jobs.push_back(std::move(r));
    }
  }
  return report;
}

void StandaloneAutoscaler::Run(const std::atomic<bool>& stop, std::chrono::milliseconds interval) {
  using namespace std::chrono_literals;
  while (!stop.load()) {
    const auto started = std::chrono::steady_clock::now();
    RunOnce();
    for (auto left = interval - (std::chrono::steady_clock::now() - started);
         !stop.load() && left > 0ms; left = interval - (std::chrono::steady_clock::now() - started)) {
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(100ms, left));
    }
  }
}

}  // namespace trimtab::standalone
