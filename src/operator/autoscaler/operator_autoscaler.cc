#include "operator/autoscaler/operator_autoscaler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <utility>

#include "adapters/metrics/metric_sources.h"
#include "core/flink/autoscaler_json.h"
#include "core/flink/autoscaler_options.h"
#include "common/flink_values.h"
#include "core/flink/custom_metrics.h"
#include "core/flink/cycle_with_chain.h"
#include "operator/autoscaler/decision_history.h"
#include "operator/autoscaler/state_documents.h"
#include "plugins/builtin/builtin_plugins.h"
#include "plugins/builtin/trimtab_default_chain.h"
#include "plugins/loader/chain_builder.h"
#include "plugins/queue_capacity/queue_capacity.h"
#include "plugins/scale_guard/scale_guard.h"

namespace trimtab::op {
namespace {

namespace flink = core::flink;

constexpr const char kFlinkApiVersion[] = "flink.apache.org/v1beta1";
constexpr const char kExcludeIdsKey[] = "job.autoscaler.vertex.exclude.ids";
constexpr const char kRestTimeoutKey[] = "flink.rest-client.timeout";
constexpr const char kTaskSlotsKey[] = "taskmanager.numberOfTaskSlots";
constexpr const char kEnabledReportPrefix[] = "Scaling execution enabled";
constexpr const char kRevertAfterKey[] = "unschedulable.revert-after";

bool HasAutoscalerKey(const std::map<std::string, std::string>& conf, const std::string& key) {
  return conf.count(flink::kAutoscalerPrefix + key) ||
         conf.count(flink::kLegacyAutoscalerPrefix + key);
}

// The last note of a decision-log stage ("" when none).
std::string LastNote(const flink::DecisionLog& log, const std::string& stage) {
  auto it = log.stages.find(stage);
  return it == log.stages.end() || it->second.empty() ? "" : it->second.back();
}

// Why a cycle that ran decided nothing yet, or "" when it reached a decision.
std::string SkippedReason(const flink::DecisionLog& log, size_t samples) {
  switch (log.outcome) {
    case flink::CycleOutcome::kStabilizing:
      return "job is " + LastNote(log, "collect");
    case flink::CycleOutcome::kNotEnoughSamples:
      return LastNote(log, "collect");
    case flink::CycleOutcome::kWindowNotFull:
      return LastNote(log, "evaluate") + " (" + std::to_string(samples) + " samples)";
    case flink::CycleOutcome::kJobNotRunning:
      return LastNote(log, "collect");
    default:
      return "";
  }
}

// The identity upstream deduplicates an event by (its message key), or nullopt = the message.
std::optional<std::string> MessageKey(const flink::AutoscalerEvent& e,
                                      const flink::DecisionLog& log) {
  if (e.message_key) return e.message_key;  // the cycle knew (a veto: plugin and change)
  if (e.reason == core::kReasonScalingReport) {
    // A blocked report repeats with moving numbers: the recommended changes identify it.
    std::string key = "parallelism:";
    for (const auto& [id, d] : log.vertices) {
      if (d.proposed_parallelism) key += id + "=" + std::to_string(*d.proposed_parallelism) + ";";
    }
    return key;
  }
  if (e.reason == core::kReasonIneffectiveScaling) {
    // "... for <v> (expected increase: E, actual increase A) ...": the vertex and E.
    return e.message.substr(0, e.message.find(", actual increase"));
  }
  if (e.reason == core::kReasonScalingLimited) {
    // "Scaling limited detected for <v> (...": one per vertex.
    const size_t start = e.message.find(" for ");
    const size_t end = e.message.find(" (", start == std::string::npos ? 0 : start);
    if (start != std::string::npos && end != std::string::npos) {
      return "ScalingLimited" + e.message.substr(start + 5, end - start - 5);
    }
  }
  return std::nullopt;
}

// Scale() cannot say which overrides are stored: an error, so the caller keeps what it has.
Status UnknownOverrides(const std::string& job_key, const Status& cause) {
  return UnavailableError("autoscaler " + job_key +
                          ": cannot read the stored state, the parallelism overrides are "
                          "unknown: " +
                          cause.message());
}

Json SkippedLog(TimePoint now, const std::string& job_key, const std::string& reason,
                const std::vector<std::string>& notes) {
  Json log = {{"time", flink::FormatTime(now)},
              {"jobKey", job_key},
              {"outcome", "Skipped"},
              {"skippedReason", reason}};
  if (!notes.empty()) log["notes"] = notes;
  return log;
}

}  // namespace

struct OperatorAutoscaler::Resource {
  std::mutex mu;                             // held for a whole Scale / Cleanup of the resource
  bool loaded = false;                       // guarded by mu: `state` is the stored one
  bool ever_loaded = false;                  // guarded by mu: `state` is known (maybe stale)
  flink::AutoscalerState state;              // guarded by mu
  Json plugin_states = Json::object();       // guarded by mu
  Json history;                              // guarded by mu: decision_history.h
  std::vector<std::string> load_notes;       // guarded by mu: for the next decision log
  std::optional<adapters::FlinkJobRef> job;  // guarded by mu: the last job collected from
  std::optional<TimePoint> missing_since;    // guarded by mu: metrics missing since

  mutable std::mutex stats_mu;
  std::optional<core::EvaluatedMetrics> last_evaluation;  // guarded by stats_mu
  AutoscalerCounters counters;                            // guarded by stats_mu
};

OperatorAutoscaler::OperatorAutoscaler(OperatorAutoscalerOptions options)
    : options_(std::move(options)) {}

OperatorAutoscaler::~OperatorAutoscaler() = default;

StatusOr<std::unique_ptr<OperatorAutoscaler>> OperatorAutoscaler::Create(
    OperatorAutoscalerOptions options) {
  if (options.kube == nullptr &&
      (options.state_store == nullptr || options.event_handler == nullptr)) {
    return InvalidArgumentError(
        "operator autoscaler: a Kubernetes client is required unless both a state store and an "
        "event handler are given");
  }
  std::unique_ptr<OperatorAutoscaler> a(new OperatorAutoscaler(std::move(options)));
  OperatorAutoscalerOptions& o = a->options_;
  if (o.clock == nullptr) o.clock = RealClock::Default();

  if (o.state_store != nullptr) {
    a->store_ = o.state_store;
  } else {
    TRIMTAB_ASSIGN_OR_RETURN(a->owned_store_,
                             adapters::ConfigMapStateStore::Create(
                                 {.client = o.kube, .max_state_chars = o.max_state_chars}));
    a->store_ = a->configmap_store_ = a->owned_store_.get();
  }
  if (o.event_handler != nullptr) {
    a->events_ = o.event_handler;
  } else {
    // Named as the operator names its own Events (operator/controller_shared/events.h), so a FlinkDeployment's
    // Events follow one scheme.
    a->recorder_ = std::make_unique<kube::EventRecorder>(
        kube::EventRecorderOptions{.client = o.kube,
                                   .clock = o.clock,
                                   .reporting_instance = o.operator_instance,
                                   .naming = kube::EventNaming::kComponentHash});
    a->owned_events_ = std::make_unique<KubeAutoscalerEventHandler>(a->recorder_.get());
    a->events_ = a->kube_events_ = a->owned_events_.get();
  }

  const http::HttpClient* http = o.flink_http;
  if (http == nullptr) {
    StatusOr<std::unique_ptr<http::HttpClient>> owned =
        http::HttpClient::Create({.user_agent = "trimtab-autoscaler"});
    if (!owned.ok()) return owned.status().WithContext("operator autoscaler: Flink REST client");
    a->owned_http_ = std::move(owned).value();
    http = a->owned_http_.get();
  }
  a->http_ = http;
  TRIMTAB_ASSIGN_OR_RETURN(a->collector_, adapters::FlinkMetricsCollector::Create({.http = http}));

  core::ExecutorPluginRegistry builtin;
  core::ExecutorPluginRegistry* registry = o.plugin_registry;
  if (registry == nullptr) {
    TRIMTAB_RETURN_IF_ERROR(plugins::RegisterBuiltinExecutorPlugins(builtin));
    registry = &builtin;
  }
  Json chain = o.executor_chain;
  // Safeguards on in the default chain, each added unless the chain lists its type: scale-guard
  // (bounds every scale-up by the job's history and the nodes' free room) and queue-capacity
  // (approves everything for jobs outside a Volcano queue).
  auto add_default = [&](bool wanted, const char* type, int priority) {
    if (!wanted || !registry->Contains(type) || !(chain.is_null() || chain.is_object())) return;
    bool present = false;
    const Json listed = chain.is_object() ? chain.value("plugins", Json::array()) : Json::array();
    for (const Json& p : listed) {
      present = present || (p.is_object() && p.value("type", "") == type);
    }
    if (!present && listed.is_array()) {
      if (chain.is_null()) chain = Json::object();
      chain["plugins"] = listed;
      chain["plugins"].push_back({{"type", type}, {"priority", priority}});
    }
  };
  add_default(o.default_scale_guard, plugins::kScaleGuardType, plugins::kScaleGuardDefaultPriority);
  add_default(o.default_queue_capacity, plugins::kQueueCapacityType,
              plugins::kQueueCapacityDefaultPriority);
  if (!chain.is_null()) {
    StatusOr<plugins::BuiltChain> built =
        plugins::BuildExecutorChain(chain, "executorChain", *registry);
    if (!built.ok()) return built.status().WithContext("operator autoscaler: executor chain");
    a->chain_ = std::move(built->chain);
  }
  TRIMTAB_RETURN_IF_ERROR(a->chain_.DeclareMetrics(a->metrics_));
  if (o.trimtab_default_plugins && (chain.is_null() || chain.is_object())) {
    // Jobs with job.autoscaler.defaults: trimtab run trimtab's default plugins first, each unless
    // the configured chain already has a plugin of its type (then the configured one counts).
    Json listed = chain.is_object() ? chain.value("plugins", Json::array()) : Json::array();
    Json plugins_first = Json::array();
    for (const Json& d : plugins::TrimtabDefaultExecutorPlugins()) {
      bool present = false;
      for (const Json& p : listed) {
        present = present || (p.is_object() && p.value("type", "") == d.value("type", ""));
      }
      if (!present && registry->Contains(d.value("type", ""))) plugins_first.push_back(d);
    }
    if (listed.is_array()) {
      for (const Json& p : listed) plugins_first.push_back(p);
      Json with_defaults = chain.is_null() ? Json::object() : chain;
      with_defaults["plugins"] = std::move(plugins_first);
      StatusOr<plugins::BuiltChain> built =
          plugins::BuildExecutorChain(with_defaults, "executorChain", *registry);
      if (!built.ok()) {
        return built.status().WithContext("operator autoscaler: executor chain with trimtab's "
                                          "default plugins");
      }
      a->trimtab_chain_ = std::move(built->chain);
      TRIMTAB_RETURN_IF_ERROR(a->trimtab_chain_->DeclareMetrics(a->metrics_));
    }
  }
  if (o.metrics != nullptr) a->exported_ = std::make_unique<AutoscalerMetrics>(o.metrics);
  return a;
}

TimePoint OperatorAutoscaler::Now() const { return options_.clock->Now(); }

const core::ExecutorChain& OperatorAutoscaler::ChainFor(const flink::AutoscalerOptions& o) const {
  if (o.defaults == flink::AutoscalerDefaults::kTrimtab && trimtab_chain_) return *trimtab_chain_;
  return chain_;
}

std::shared_ptr<OperatorAutoscaler::Resource> OperatorAutoscaler::ResourceFor(
    const std::string& job_key, bool create) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(job_key);
  if (it != resources_.end()) return it->second;
  if (!create) return nullptr;
  return resources_[job_key] = std::make_shared<Resource>();
}

Status OperatorAutoscaler::EnsureLoaded(const std::string& job_key, Resource* r) {
  if (r->loaded) return Status::Ok();
  StatusOr<StoredAutoscalerState> stored = LoadAutoscalerState(*store_, job_key);
  if (!stored.ok()) return stored.status();
  r->state = std::move(stored->state);
  r->plugin_states = std::move(stored->plugin_states);
  r->history = std::move(stored->history);
  r->load_notes = std::move(stored->notes);
  r->ever_loaded = true;
  for (const std::string& note : r->load_notes) spdlog::warn("autoscaler {}: {}", job_key, note);
  r->loaded = true;
  return Status::Ok();
}

void OperatorAutoscaler::Bind(const AutoscalerJobContext& c, const std::string& job_key) {
  if (configmap_store_ != nullptr && !c.resource_uid.empty()) {
    configmap_store_->SetOwner(job_key, {.api_version = kFlinkApiVersion,
                                         .kind = c.resource_kind,
                                         .name = c.resource_name,
                                         .uid = c.resource_uid});
  }
  if (kube_events_ != nullptr) {
    kube_events_->Bind(job_key, {.api_version = kFlinkApiVersion,
                                 .kind = c.resource_kind,
                                 .namespace_name = c.namespace_name,
                                 .name = c.resource_name,
                                 .uid = c.resource_uid});
  }
}

void OperatorAutoscaler::Emit(const std::string& job_key, const flink::DecisionLog& log,
                              const VertexLabels& labels, Millis interval) const {
  for (const flink::AutoscalerEvent& e : log.events) {
    core::AutoscalerEvent event{
        .job_key = job_key,
        .type = e.type == "Warning" ? core::EventType::kWarning : core::EventType::kNormal,
        .reason = e.reason,
        .message = labels.Relabel(e.message),
        .message_key = MessageKey(e, log)};
    // An executed scaling is always reported; everything else at most once per interval.
    const bool executed =
        e.reason == core::kReasonScalingReport && e.message.rfind(kEnabledReportPrefix, 0) == 0;
    if (executed) event.message_key.reset();
    events_->HandleEvent(event, executed ? std::nullopt : std::optional<Duration>(interval));
  }
}

void OperatorAutoscaler::EmitError(const std::string& job_key, const std::string& message,
                                   Millis interval) const {
  events_->HandleEvent({.job_key = job_key,
                        .type = core::EventType::kWarning,
                        .reason = core::kReasonAutoscalerError,
                        .message = message},
                       interval);
}

StatusOr<AutoscalerOutcome> OperatorAutoscaler::Scale(const AutoscalerJobContext& c) {
  if (c.namespace_name.empty() || c.resource_name.empty()) {
    return InvalidArgumentError(
        "autoscaler: the job context needs a namespace and a resource name");
  }
  const std::string job_key = c.namespace_name + "/" + c.resource_name;
  std::shared_ptr<Resource> r = ResourceFor(job_key, true);
  std::lock_guard<std::mutex> lock(r->mu);
  const TimePoint now = Now();
  Bind(c, job_key);
  AutoscalerOutcome out;
  const AutoscalerMetricsJob labels{
      .namespace_name = c.namespace_name, .name = c.resource_name, .kind = c.resource_kind};
  // How this call ended, counted when it returns (autoscaler_metrics.h).
  struct DecisionCount {
    AutoscalerMetrics* metrics;
    const AutoscalerMetricsJob& job;
    std::string outcome = "Skipped";
    ~DecisionCount() {
      if (metrics) metrics->CountDecision(job, outcome);
    }
  } decision{exported_.get(), labels};
  auto count = [&](int64_t AutoscalerCounters::*counter) {
    {
      std::lock_guard<std::mutex> stats(r->stats_mu);
      ++(r->counters.*counter);
    }
    if (exported_ && counter == &AutoscalerCounters::errors) exported_->CountError(labels);
  };
  // Nothing decided: the stored overrides (as last read or written) stay in force.
  auto skip = [&](const std::string& reason, std::vector<std::string> notes = {}) {
    out.parallelism_overrides = r->state.parallelism_overrides;
    out.config_overrides = r->state.config_overrides.overrides;
    out.config_removals = r->state.config_overrides.removals;
    out.scaled = false;
    out.skipped_reason = reason;
    notes.insert(notes.begin(), r->load_notes.begin(), r->load_notes.end());
    out.decision_log = SkippedLog(now, job_key, reason, notes);
    return out;
  };

  // 1. Options.
  StatusOr<flink::AutoscalerOptions> parsed = flink::ParseAutoscalerOptions(c.flink_configuration);
  if (!parsed.ok()) {
    const std::string reason = "invalid autoscaler configuration: " + parsed.status().message();
    count(&AutoscalerCounters::errors);
    EmitError(job_key, reason, flink::AutoscalerOptions{}.scaling_event_interval);
    if (Status loaded = EnsureLoaded(job_key, r.get()); !loaded.ok() && !r->ever_loaded) {
      return UnknownOverrides(job_key, loaded);
    }
    return skip(reason);
  }
  const flink::AutoscalerOptions& o = *parsed;

  // 2. Disabled: forget everything; the job goes back to the user's parallelism.
  if (!o.enabled) {
    Status cleared = store_->ClearAll(job_key);
    if (cleared.ok()) cleared = store_->Flush(job_key);
    r->state = flink::AutoscalerState{};
    r->plugin_states = Json::object();
    r->history = Json();
    r->load_notes.clear();
    r->loaded = cleared.ok();
    {
      std::lock_guard<std::mutex> stats(r->stats_mu);
      r->last_evaluation.reset();
    }
    if (exported_) exported_->ClearVertices(labels);
    decision.outcome = "Disabled";
    std::string reason = "autoscaler disabled (job.autoscaler.enabled is false): state cleared";
    if (!cleared.ok()) {
      if (configmap_store_ != nullptr) configmap_store_->Invalidate(job_key);
      reason += ", but removing it failed: " + cleared.message();
    }
    skip(reason);
    out.parallelism_overrides.clear();
    return out;
  }

  // 3. State.
  if (Status loaded = EnsureLoaded(job_key, r.get()); !loaded.ok()) {
    count(&AutoscalerCounters::errors);
    if (!r->ever_loaded) return UnknownOverrides(job_key, loaded);
    return skip("cannot read the autoscaler state: " + loaded.message());
  }

  // 4. Job status as the reconciler observed it.
  auto not_running = [&](const std::string& status) {
    std::lock_guard<std::mutex> stats(r->stats_mu);
    r->last_evaluation.reset();  // upstream drops the cached evaluation
    if (exported_) exported_->ClearVertices(labels);
    return "job is not RUNNING (status " + status + ")";
  };
  if (c.job_status != "RUNNING") return skip(not_running(c.job_status));
  if (c.job_id.empty() || c.rest_url.empty()) {
    return skip("the job context has no job id or REST address");
  }

  // 5. Collect.
  const Millis timeout = HasAutoscalerKey(c.flink_configuration, kRestTimeoutKey)
                             ? o.rest_client_timeout
                             : options_.default_rest_timeout;
  const adapters::FlinkJobRef ref{.rest_url = c.rest_url, .job_id = c.job_id};
  if (r->job && (r->job->job_id != ref.job_id || r->job->rest_url != ref.rest_url)) {
    collector_->Forget(*r->job);
  }
  r->job = ref;
  StatusOr<adapters::FlinkCollection> collected = collector_->Collect(ref, now, timeout);
  if (!collected.ok()) {
    const Status& s = collected.status();
    const bool missing =
        s.code() == StatusCode::kFailedPrecondition && s.message().rfind("missing metrics", 0) == 0;
    if (missing) {
      // Not ready while the job stabilizes; an error once that should be over.
      if (!r->missing_since) r->missing_since = now;
      if (now - *r->missing_since >= o.stabilization_interval) {
        count(&AutoscalerCounters::errors);
        EmitError(job_key,
                  "Metrics are still missing after the stabilization interval: " + s.message(),
                  o.scaling_event_interval);
      }
      return skip(s.message());
    }
    count(&AutoscalerCounters::errors);
    EmitError(job_key, "Autoscaler cycle skipped: " + s.message(), o.scaling_event_interval);
    return skip(s.message());
  }
  r->missing_since.reset();
  adapters::FlinkCollection& col = *collected;
  if (col.job.state != "RUNNING") return skip(not_running(col.job.state + " on the REST API"));
  std::vector<core::VertexId> vertex_ids;
  for (const core::VertexInfo& v : col.job.topology.vertices) vertex_ids.push_back(v.id);
  // Custom metrics, each from the source its declaration names.
  std::unique_ptr<flink::MetricSource> rest = collector_->MetricSourceFor(ref, timeout);
  std::optional<adapters::PrometheusMetricSource> prometheus;
  if (!options_.prometheus_url.empty()) {
    prometheus.emplace(adapters::PrometheusSourceOptions{
        .http = http_, .url = options_.prometheus_url, .timeout = timeout, .flink_job_id = ref.job_id});
  }
  std::optional<adapters::ExternalMetricSource> external;
  if (options_.kube) external.emplace(options_.kube, ref.job_id, timeout);
  adapters::RoutingMetricSource custom(rest.get(), prometheus ? &*prometheus : nullptr,
                                       external ? &*external : nullptr);
  TRIMTAB_RETURN_IF_ERROR(flink::CollectCustomMetrics(
      metrics_.Metrics(),
      {.job_key = job_key, .namespace_name = c.namespace_name, .vertices = vertex_ids}, custom,
      &col.sample));

  // 6. Decide (window, evaluation, parallelism, behavior, executor chain, commit).
  flink::ChainedCycleInput in;
  in.cycle.topology = col.job.topology;
  in.cycle.configuration = c.flink_configuration;
  if (!col.nan_busy_time_vertices.empty()) {
    // Legacy sources without busy time are excluded for this run, as upstream does.
    std::set<std::string> excluded = o.vertex_exclude_ids;
    excluded.insert(col.nan_busy_time_vertices.begin(), col.nan_busy_time_vertices.end());
    std::string list;
    for (const std::string& id : excluded) list += (list.empty() ? "" : ";") + id;
    in.cycle.configuration.erase(std::string(flink::kLegacyAutoscalerPrefix) +
                                 "vertex.exclude.ids");
    in.cycle.configuration[kExcludeIdsKey] = list;
  }
  in.cycle.samples = {col.sample};
  in.cycle.now = now;
  in.cycle.job_status = "RUNNING";
  in.cycle.job_running_since = col.job.running_since;
  if (c.task_manager_cpu > 0) in.cycle.resources.cpu = c.task_manager_cpu;
  if (c.task_manager_memory_bytes > 0) {
    in.cycle.resources.memory_bytes = static_cast<int64_t>(c.task_manager_memory_bytes);
  }
  if (auto slots = c.flink_configuration.find(kTaskSlotsKey);
      slots != c.flink_configuration.end()) {
    StatusOr<int64_t> n = ParseFlinkInt(kTaskSlotsKey, slots->second);
    if (n.ok() && *n > 0) in.cycle.resources.slots_per_task_manager = static_cast<int>(*n);
  }
  in.cycle.custom_metrics = metrics_.Metrics();
  in.context.job_key = job_key;
  in.context.namespace_name = c.namespace_name;
  in.context.configuration = c.flink_configuration;
  in.context.queue = c.queue;
  in.context.cluster = c.cluster;
  Json plugin_states = r->plugin_states;
  StatusOr<flink::ChainedCycleResult> result =
      flink::RunAutoscalerCycleWithChain(in, r->state, ChainFor(o), &plugin_states);
  if (!result.ok()) {
    count(&AutoscalerCounters::errors);
    const std::string reason = "autoscaler cycle failed: " + result.status().message();
    EmitError(job_key, reason, o.scaling_event_interval);
    return skip(reason, col.notes);
  }
  flink::ChainedCycleResult& cr = *result;
  flink::DecisionLog& log = cr.cycle.log;
  for (const std::string& note : r->load_notes) log.Note("collect", note);
  for (const std::string& note : col.notes) log.Note("collect", note);
  for (const std::string& id : col.nan_busy_time_vertices) {
    log.Note("collect", "vertex " + id + " reports no busy time (legacy source): excluded");
  }
  // Vertices by name in everything people read (issue 26); ids stay in the structured fields.
  const VertexLabels vertex_labels(col.job.topology);
  vertex_labels.Relabel(&log);

  Json log_json = flink::ToJson(log);
  log_json["jobKey"] = job_key;
  log_json["jobId"] = c.job_id;
  log_json["scaled"] = cr.scaled();
  if (cr.chain) {
    Json chain = core::ToJson(*cr.chain);
    for (Json& step : chain["steps"]) {
      if (step.contains("reason")) vertex_labels.RelabelStrings(&step["reason"]);
    }
    if (chain.contains("reason")) vertex_labels.RelabelStrings(&chain["reason"]);
    log_json["chain"] = std::move(chain);
  }
  const std::string reason = SkippedReason(log, cr.cycle.state.metric_window.size());
  if (!reason.empty()) log_json["skippedReason"] = reason;

  const std::string outcome = cr.chain && cr.chain->vetoed ? "Vetoed"
                              : cr.scaled()                ? "Scaled"
                                                           : std::string(flink::CycleOutcomeName(log.outcome));
  Json history = AppendToHistory(r->history, {.time = now,
                                              .outcome = outcome,
                                              .topology = &col.job.topology,
                                              .evaluated = &cr.cycle.evaluated,
                                              .decision_log = &log_json});

  // 7. Persist; a conflict skips the cycle without a trace.
  Status saved =
      SaveAutoscalerState(*store_, job_key, cr.cycle.state, plugin_states, log_json, history);
  if (!saved.ok()) {
    r->loaded = false;  // re-read the stored state next time
    if (configmap_store_ != nullptr) configmap_store_->Invalidate(job_key);
    count(&AutoscalerCounters::errors);
    const std::string why = saved.code() == StatusCode::kConflict
                                ? "the autoscaler state changed concurrently, cycle skipped: "
                                : "cannot write the autoscaler state, cycle skipped: ";
    spdlog::warn("autoscaler {}: {}{}", job_key, why, saved.message());
    out.parallelism_overrides = r->state.parallelism_overrides;  // as stored before the cycle
    out.config_overrides = r->state.config_overrides.overrides;
    out.config_removals = r->state.config_overrides.removals;
    out.skipped_reason = why + saved.message();
    out.decision_log = std::move(log_json);
    out.decision_log["cycleOutcome"] = out.decision_log["outcome"];
    out.decision_log["outcome"] = "Skipped";
    out.decision_log["skippedReason"] = out.skipped_reason;
    out.decision_log["scaled"] = false;
    return out;
  }
  if (exported_) {
    // Rescales whose restart finished in this cycle.
    std::set<TimePoint> timed;
    for (const flink::ScalingRecord& rec : r->state.scaling_tracking) {
      if (rec.restart_duration) timed.insert(rec.time);
    }
    for (const flink::ScalingRecord& rec : cr.cycle.state.scaling_tracking) {
      if (rec.restart_duration && !timed.count(rec.time)) {
        exported_->ObserveRestart(labels,
                                  std::chrono::duration<double>(*rec.restart_duration).count());
      }
    }
  }
  r->state = std::move(cr.cycle.state);
  r->plugin_states = std::move(plugin_states);
  r->history = std::move(history);
  r->load_notes.clear();
  {
    std::lock_guard<std::mutex> stats(r->stats_mu);
    if (!cr.cycle.evaluated.vertices.empty()) r->last_evaluation = cr.cycle.evaluated;
    if (cr.scaled()) ++r->counters.scalings;
    if (log.outcome == flink::CycleOutcome::kNoChange) ++r->counters.balanced;
  }
  decision.outcome = outcome;
  if (exported_) {
    if (!cr.cycle.evaluated.vertices.empty()) {
      std::map<std::string, std::string> names;
      for (const core::VertexInfo& v : col.job.topology.vertices) names[v.id] = v.name;
      exported_->SetVertices(labels, cr.cycle.evaluated, names, log);
    }
    if (cr.scaled()) {
      exported_->CountScaling(labels);
      exported_->CountRescale(labels);
    }
    if (log.outcome == flink::CycleOutcome::kNoChange) exported_->CountBalanced(labels);
    if (cr.chain && cr.chain->vetoed) exported_->CountVeto(labels, cr.chain->vetoed_by);
  }

  // 8. Events, 9. outcome.
  Emit(job_key, log, vertex_labels, o.scaling_event_interval);
  out.parallelism_overrides = r->state.parallelism_overrides;
  out.config_overrides = r->state.config_overrides.overrides;
  out.config_removals = r->state.config_overrides.removals;
  out.scaled = cr.scaled();
  out.skipped_reason = reason;
  out.decision_log = std::move(log_json);
  return out;
}

StatusOr<AutoscalerOutcome> OperatorAutoscaler::RevertUnschedulable(const AutoscalerJobContext& c) {
  if (c.namespace_name.empty() || c.resource_name.empty()) {
    return InvalidArgumentError(
        "autoscaler: the job context needs a namespace and a resource name");
  }
  const std::string job_key = c.namespace_name + "/" + c.resource_name;
  std::shared_ptr<Resource> r = ResourceFor(job_key, true);
  std::lock_guard<std::mutex> lock(r->mu);
  const TimePoint now = Now();
  Bind(c, job_key);
  AutoscalerOutcome out;
  if (Status loaded = EnsureLoaded(job_key, r.get()); !loaded.ok()) {
    if (!r->ever_loaded) return UnknownOverrides(job_key, loaded);
    out.parallelism_overrides = r->state.parallelism_overrides;
    out.config_overrides = r->state.config_overrides.overrides;
    out.config_removals = r->state.config_overrides.removals;
    out.skipped_reason = "cannot read the autoscaler state: " + loaded.message();
    return out;
  }
  out.parallelism_overrides = r->state.parallelism_overrides;
  out.config_overrides = r->state.config_overrides.overrides;
  out.config_removals = r->state.config_overrides.removals;

  Millis after = std::chrono::minutes(5);
  for (const std::string& key : {std::string(flink::kAutoscalerPrefix) + kRevertAfterKey,
                                 std::string(flink::kLegacyAutoscalerPrefix) + kRevertAfterKey}) {
    auto it = c.flink_configuration.find(key);
    if (it == c.flink_configuration.end()) continue;
    StatusOr<Millis> parsed = ParseFlinkDurationMillis(key, it->second);
    if (!parsed.ok()) {
      out.skipped_reason = parsed.status().message();
      return out;
    }
    after = *parsed;
    break;
  }
  if (after.count() <= 0) {
    out.skipped_reason = "reverting unschedulable scalings is off";
    return out;
  }
  // The latest executed scaling, if the job has not run with it yet.
  const flink::ScalingRecord* last = nullptr;
  for (const flink::ScalingRecord& rec : r->state.scaling_tracking) {
    if (last == nullptr || rec.time > last->time) last = &rec;
  }
  if (last == nullptr || last->restart_duration) {
    out.skipped_reason = "no scaling waits to run";
    return out;
  }
  const Duration waiting = now - last->time;
  if (waiting < after) {
    out.skipped_reason = "the job has not run for " + FormatFlinkDuration(waiting) +
                         " since the last scaling; reverting after " +
                         FormatFlinkDuration(after);
    return out;
  }
  // What each scaled vertex ran at before: the decision's own history entry.
  flink::AutoscalerState state = r->state;
  core::JobTopology named;  // the vertex names the dashboard's history last saw
  if (const Json* names = r->history.is_object() && r->history.contains("vertexNames")
                              ? &r->history["vertexNames"]
                              : nullptr;
      names != nullptr && names->is_object()) {
    for (const auto& [id, name] : names->items()) {
      if (name.is_string()) named.vertices.push_back({.id = id, .name = name.get<std::string>()});
    }
  }
  const VertexLabels vertex_labels(named);
  Json vertices = Json::object();
  std::string changes;
  for (const auto& [vertex, target] : last->target_parallelism) {
    auto h = state.scaling_history.find(vertex);
    if (h == state.scaling_history.end()) continue;
    auto entry = std::find_if(h->second.begin(), h->second.end(),
                              [&](const flink::ScalingHistoryEntry& e) { return e.time == last->time; });
    if (entry == h->second.end()) continue;
    const int before = entry->summary.current_parallelism;
    h->second.erase(entry);  // the scaling never ran: it teaches nothing
    if (h->second.empty()) state.scaling_history.erase(h);
    state.parallelism_overrides[vertex] = before;
    vertices[vertex] = {{"from", target}, {"to", before}};
    changes += (changes.empty() ? "" : ", ") + vertex_labels.Of(vertex) + " " +
               std::to_string(target) + " -> " +
               std::to_string(before);
  }
  if (changes.empty()) {
    out.skipped_reason = "the last scaling has no history to revert to";
    return out;
  }
  const TimePoint record_time = last->time;
  std::erase_if(state.scaling_tracking,
                [&](const flink::ScalingRecord& rec) { return rec.time == record_time; });
  const std::string reason = "Reverted the scaling of " + flink::FormatTime(record_time) +
                             " to the last running parallelism (" + changes +
                             "): the job has not run for " + FormatFlinkDuration(waiting) +
                             " and pods of its cluster cannot be scheduled";
  Json log = {{"time", flink::FormatTime(now)},
              {"jobKey", job_key},
              {"outcome", "Reverted"},
              {"reason", reason},
              {"vertices", vertices}};
  Status saved = SaveAutoscalerState(*store_, job_key, state, r->plugin_states, log);
  if (!saved.ok()) {
    r->loaded = false;
    if (configmap_store_ != nullptr) configmap_store_->Invalidate(job_key);
    out.skipped_reason = "cannot write the autoscaler state, revert skipped: " + saved.message();
    return out;
  }
  r->state = std::move(state);
  spdlog::warn("autoscaler {}: {}", job_key, reason);
  events_->HandleEvent({.job_key = job_key,
                        .type = core::EventType::kWarning,
                        .reason = core::kReasonScalingReverted,
                        .message = reason},
                       std::nullopt);
  out.parallelism_overrides = r->state.parallelism_overrides;
  out.config_overrides = r->state.config_overrides.overrides;
  out.config_removals = r->state.config_overrides.removals;
  out.scaled = true;
  out.decision_log = std::move(log);
  return out;
}

Status OperatorAutoscaler::Cleanup(const std::string& namespace_name,
                                   const std::string& resource_name) {
  const std::string job_key = namespace_name + "/" + resource_name;
  std::shared_ptr<Resource> r = ResourceFor(job_key, true);
  {
    std::lock_guard<std::mutex> lock(r->mu);
    if (r->job) collector_->Forget(*r->job);
    Status cleared = store_->ClearAll(job_key);
    if (cleared.ok()) cleared = store_->Flush(job_key);
    if (!cleared.ok()) {
      if (configmap_store_ != nullptr) configmap_store_->Invalidate(job_key);
      r->loaded = false;
      return cleared.WithContext("autoscaler cleanup " + job_key);
    }
  }
  if (kube_events_ != nullptr) kube_events_->Unbind(job_key);
  if (exported_) exported_->Forget(namespace_name, resource_name);
  std::lock_guard<std::mutex> lock(mu_);
  resources_.erase(job_key);
  return Status::Ok();
}

std::optional<core::EvaluatedMetrics> OperatorAutoscaler::LastEvaluation(
    const std::string& namespace_name, const std::string& resource_name) const {
  std::shared_ptr<Resource> r = ResourceFor(namespace_name + "/" + resource_name, false);
  if (!r) return std::nullopt;
  std::lock_guard<std::mutex> stats(r->stats_mu);
  return r->last_evaluation;
}

AutoscalerCounters OperatorAutoscaler::Counters(const std::string& namespace_name,
                                                const std::string& resource_name) const {
  std::shared_ptr<Resource> r = ResourceFor(namespace_name + "/" + resource_name, false);
  if (!r) return {};
  std::lock_guard<std::mutex> stats(r->stats_mu);
  return r->counters;
}

}  // namespace trimtab::op
