#include "sim/policies/flink_policy.h"

#include <deque>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/chain/executor_chain.h"
#include "core/chain/plugin_registry.h"
#include "core/flink/autoscaler.h"
#include "core/flink/autoscaler_json.h"
#include "core/flink/cycle_with_chain.h"
#include "core/flink/trimtab_defaults.h"
#include "plugins/builtin/builtin_plugins.h"
#include "plugins/builtin/trimtab_default_chain.h"
#include "sim/policies/flink_metrics_adapter.h"

namespace trimtab::sim {

namespace {

namespace flink = core::flink;

// Global metric the built-in resource-gate reads (docs/plugins.md): TaskManager CPU, 0..1.
constexpr const char kTmCpuAvg[] = "TM_CPU_AVG";

StatusOr<std::string> ConfigValueText(const Json& v, const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  return InvalidArgumentError(path + ": expected a string, number or boolean, got " +
                              std::string(JsonTypeName(v)));
}

class FlinkAutoscalerPolicy final : public ScalingPolicy {
 public:
  FlinkAutoscalerPolicy(std::string name, std::map<std::string, std::string> configuration,
                        flink::AutoscalerOptions options, core::ExecutorChain chain)
      : name_(std::move(name)),
        configuration_(std::move(configuration)),
        options_(std::make_shared<const flink::AutoscalerOptions>(std::move(options))),
        chain_(std::move(chain)) {
    chained_.context.job_key = "simulate/" + name_;
    chained_.context.configuration = configuration_;
  }

  std::string_view name() const override { return name_; }

  StatusOr<PolicyDecision> Decide(const PolicyInput& input) override {
    if (!input.metrics || !input.topology) return InternalError(name_ + ": needs metrics");
    const JobMetrics& m = *input.metrics;
    const TimePoint now = SimTimePoint(input.now_seconds);

    // Filled in place: assigning over the previous decision's input reuses its topology's
    // buffers. Only these fields ever change; the others keep their defaults.
    flink::AutoscalerInput& in = chained_.cycle;
    in.topology = *input.topology;
    in.parsed_options = options_;  // parsed once: the configuration never changes in a run
    in.now = now;
    // As the operator: the chain decides what RunAutoscalerCycleWithChain commits (it ignores
    // `commit`, and need not copy `in` when it is false).
    in.commit = false;
    in.job_status = FlinkJobStatus(m);
    in.job_running_since = JobRunningSince(m);
    in.resources.slots_per_task_manager = std::max(1, m.slots_per_task_manager);
    in.samples.clear();
    if (m.state == JobState::kRunning) {
      in.samples.push_back(ToAutoscalerSample(m, now));
      RecordCpu(now, m.tm_cpu_load_avg, *in.job_running_since);
    }
    chained_.context.metrics.global[kTmCpuAvg] = CpuMetric(m.tm_cpu_load_avg);
    TRIMTAB_ASSIGN_OR_RETURN(
        flink::ChainedCycleResult cr,
        flink::RunAutoscalerCycleWithChain(chained_, std::move(state_), chain_, &plugin_states_));
    state_ = std::move(cr.cycle.state);
    PolicyDecision d;
    if (input.explain) d.explanation = std::make_shared<const Json>(Explain(cr));
    if (!cr.scaled()) return d;
    flink::AutoscalerResult& r = cr.cycle;
    const core::ScalingSummaries& approved = cr.approved;
    std::vector<std::string> chain_reasons;
    for (const core::ChainStepRecord& s : cr.chain->steps) {
      chain_reasons.push_back("chain: " + s.plugin + " " +
                              std::string(core::ChainVerdictName(s.verdict)) +
                              (s.reason.empty() ? "" : ": " + s.reason));
    }

    std::map<core::VertexId, int> target;
    for (const auto& [id, s] : approved) target[id] = s.new_parallelism;
    d.parallelism = std::move(target);
    for (const auto& [id, s] : approved) {
      for (const std::string& note : r.log.stages["evaluate"]) {
        if (note.rfind(id + ": ", 0) == 0) d.reasons.push_back("evaluate " + note);
      }
      auto v = r.log.vertices.find(id);
      if (v == r.log.vertices.end()) continue;
      std::string text = id + ": ";
      for (size_t i = 0; i < v->second.reasons.size(); ++i) {
        text += (i ? "; " : "") + v->second.reasons[i];
      }
      d.reasons.push_back(std::move(text));
    }
    for (std::string& c : chain_reasons) d.reasons.push_back(std::move(c));
    return d;
  }

 private:
  // The cycle's decision log (stages, vertices, events), what each plugin of the chain did
  // with it, and the parallelism applied ({} when nothing was).
  static Json Explain(const flink::ChainedCycleResult& cr) {
    Json j = flink::ToJson(cr.cycle.log);
    if (cr.chain) {
      Json steps = Json::array();
      for (const core::ChainStepRecord& s : cr.chain->steps) {
        steps.push_back({{"plugin", s.plugin},
                         {"verdict", std::string(core::ChainVerdictName(s.verdict))},
                         {"reason", s.reason}});
      }
      j["chain"] = std::move(steps);
    }
    Json applied = Json::object();
    for (const auto& [id, s] : cr.approved) applied[id] = s.new_parallelism;
    j["applied"] = std::move(applied);
    return j;
  }

  // TaskManager CPU over the metric window since the last restart (for TM_CPU_AVG).
  void RecordCpu(TimePoint now, double cpu, TimePoint running_since) {
    while (!cpu_window_.empty() &&
           (cpu_window_.front().first < now - options_->metrics_window ||
            cpu_window_.front().first < running_since)) {
      cpu_window_.pop_front();
    }
    cpu_window_.emplace_back(now, cpu);
  }

  core::EvaluatedMetric CpuMetric(double current) const {
    core::EvaluatedMetric e;
    e.current = current;
    if (!cpu_window_.empty()) {
      double sum = 0;
      for (const auto& [t, v] : cpu_window_) sum += v;
      e.average = sum / static_cast<double>(cpu_window_.size());
    }
    return e;
  }

  std::string name_;
  std::map<std::string, std::string> configuration_;
  std::shared_ptr<const flink::AutoscalerOptions> options_;  // `configuration_`, parsed once
  core::ExecutorChain chain_;
  // Reused by every decision: its chain context (job key, configuration) never changes in a run,
  // and copying the configuration every simulated minute costs dozens of allocations.
  flink::ChainedCycleInput chained_;
  flink::AutoscalerState state_;
  Json plugin_states_;
  std::deque<std::pair<TimePoint, double>> cpu_window_;
};

}  // namespace

std::map<std::string, std::string> TrimtabDefaultConfiguration() {
  // The decision core's trimtab defaults (core/flink/trimtab_defaults.cc, where each value's
  // reason and measurement is written), spelled out so that a scenario's configuration merges
  // over them key by key and reports list them.
  std::map<std::string, std::string> conf = core::flink::TrimtabAutoscalerDefaults();
  conf["job.autoscaler.enabled"] = "true";
  return conf;
}

Json TrimtabDefaultPlugins() { return plugins::TrimtabDefaultExecutorPlugins(); }

StatusOr<std::unique_ptr<ScalingPolicy>> MakeFlinkAutoscalerPolicy(
    std::string name, std::map<std::string, std::string> configuration, Json plugins,
    const Json& config) {
  if (!config.is_null()) {
    JsonReader r(config, "config");
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    if (const Json* conf = r.Get("configuration")) {
      const std::string path = r.FieldPath("configuration");
      if (!conf->is_object()) {
        return InvalidArgumentError(path + ": expected an object of job.autoscaler.* keys, got " +
                                    std::string(JsonTypeName(*conf)));
      }
      for (const auto& [key, value] : conf->items()) {
        TRIMTAB_ASSIGN_OR_RETURN(std::string text, ConfigValueText(value, JoinPath(path, key)));
        configuration[key] = std::move(text);
      }
    }
    if (const Json* p = r.Get("plugins")) plugins = *p;
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  }
  StatusOr<flink::AutoscalerOptions> options = flink::ParseAutoscalerOptions(configuration);
  if (!options.ok()) return options.status().WithContext("config.configuration");
  core::ExecutorPluginRegistry registry;
  TRIMTAB_RETURN_IF_ERROR(plugins::RegisterBuiltinExecutorPlugins(registry));
  auto instances = registry.CreateAll(plugins, "config.plugins");
  if (!instances.ok()) {
    const std::string& message = instances.status().message();
    return message.rfind("config.plugins", 0) == 0 ? instances.status()
                                                    : instances.status().WithContext("config.plugins");
  }
  TRIMTAB_ASSIGN_OR_RETURN(core::ExecutorChain chain,
                           core::ExecutorChain::Create(std::move(*instances)));
  return std::unique_ptr<ScalingPolicy>(new FlinkAutoscalerPolicy(
      std::move(name), std::move(configuration), *std::move(options), std::move(chain)));
}

StatusOr<std::unique_ptr<ScalingPolicy>> MakeTrimtabPolicy(const Json& config) {
  return MakeFlinkAutoscalerPolicy(kTrimtabPolicy, TrimtabDefaultConfiguration(),
                                   TrimtabDefaultPlugins(), config);
}

StatusOr<std::unique_ptr<ScalingPolicy>> MakeFlinkCompatPolicy(const Json& config) {
  return MakeFlinkAutoscalerPolicy(kFlinkCompatPolicy, {{"job.autoscaler.enabled", "true"}},
                                   Json::array(), config);
}

}  // namespace trimtab::sim
