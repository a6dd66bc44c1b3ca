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
#include "operator/autoscaler/scale_pass.h"
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
constexpr const char kRevertAfterKey[] = "unschedulable.revert-after";

// What the options say about realizing the overrides (nullptr: the options are unknown).
void DescribeRealization(const flink::AutoscalerOptions* o, AutoscalerOutcome* out) {
  if (o == nullptr) return;
  out->excluded_vertices = o->vertex_exclude_ids;
  out->memory_tuning_enabled = o->memory_tuning_enabled;
}

}  // namespace

Status UnknownOverrides(const std::string& job_key, const Status& cause) {
  return UnavailableError("autoscaler " + job_key +
                          ": cannot read the stored state, the parallelism overrides are "
                          "unknown: " +
                          cause.message());
}

namespace {

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
  ScalePass pass{.context = c,
                 .job_key = job_key,
                 .resource = *r,
                 .now = now,
                 .labels = {.namespace_name = c.namespace_name,
                            .name = c.resource_name,
                            .kind = c.resource_kind}};
  // How this call ended, counted when it returns (autoscaler_metrics.h).
  struct DecisionCount {
    AutoscalerMetrics* metrics;
    const ScalePass& pass;
    ~DecisionCount() {
      if (metrics) metrics->CountDecision(pass.labels, pass.decision);
    }
  } decision{exported_.get(), pass};

  // The stages (scale_pass.h), each a file: prepare -> run -> persist -> report.
  for (auto stage : {&OperatorAutoscaler::Prepare, &OperatorAutoscaler::Run,
                     &OperatorAutoscaler::Persist}) {
    TRIMTAB_ASSIGN_OR_RETURN(ScaleStep step, (this->*stage)(pass));
    if (step.stop) return *std::move(step.stop);
  }
  return Report(pass);
}

void OperatorAutoscaler::CountError(ScalePass& pass) const {
  {
    std::lock_guard<std::mutex> stats(pass.resource.stats_mu);
    ++pass.resource.counters.errors;
  }
  if (exported_) exported_->CountError(pass.labels);
}

void OperatorAutoscaler::ScalePass::FillStored(AutoscalerOutcome* out) const {
  out->parallelism_overrides = resource.state.parallelism_overrides;
  out->config_overrides = resource.state.config_overrides.overrides;
  out->config_removals = resource.state.config_overrides.removals;
  DescribeRealization(options.get(), out);
}

AutoscalerOutcome OperatorAutoscaler::ScalePass::Skipped(const std::string& reason,
                                                         std::vector<std::string> notes) const {
  AutoscalerOutcome out;
  FillStored(&out);
  out.scaled = false;
  out.skipped_reason = reason;
  notes.insert(notes.begin(), resource.load_notes.begin(), resource.load_notes.end());
  out.decision_log = SkippedLog(now, job_key, reason, notes);
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
  const StatusOr<flink::AutoscalerOptions> options =
      flink::ParseAutoscalerOptions(c.flink_configuration);
  AutoscalerOutcome out;
  DescribeRealization(options.ok() ? &*options : nullptr, &out);
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
