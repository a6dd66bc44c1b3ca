#include "sim/policies/hpa_cpu_policy.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hpa/controller.h"
#include "core/hpa/decision_json.h"
#include "sim/policies/flink_metrics_adapter.h"

namespace trimtab::sim {

namespace {

namespace hpa = core::hpa;

struct HpaCpuOptions {
  int64_t target_utilization = 70;  // percent of the CPU request
  int64_t min_replicas = 1;
  int64_t max_replicas = 0;  // 0: enough TaskManagers for the largest max parallelism
};

class HpaCpuPolicy final : public ScalingPolicy {
 public:
  explicit HpaCpuPolicy(HpaCpuOptions options) : options_(options) {}
  std::string_view name() const override { return kHpaCpuPolicy; }

  StatusOr<PolicyDecision> Decide(const PolicyInput& input) override {
    if (!input.metrics || !input.topology) return InternalError("hpa-cpu: needs metrics");
    const JobMetrics& m = *input.metrics;
    const core::JobTopology& topology = *input.topology;
    const TimePoint now = SimTimePoint(input.now_seconds);
    const int slots_per_tm = std::max(1, m.slots_per_task_manager);
    const int replicas = std::max(1, m.task_managers);
    // TaskManagers present from the start were ready long ago; added ones when the job ran again.
    while (static_cast<int>(ready_at_.size()) < replicas) ready_at_.push_back(-3600);
    ready_at_.resize(static_cast<size_t>(replicas));
    if (m.state == JobState::kRunning) {
      const double running_since = m.time_seconds - m.state_time_seconds;
      for (double& r : ready_at_) {
        if (r > input.now_seconds) r = running_since;  // pending readiness resolved
      }
    }

    int max_parallelism = 1;
    for (const core::VertexInfo& v : topology.vertices) {
      max_parallelism = std::max(max_parallelism, v.max_parallelism);
    }
    // Reactive mode runs every vertex on all slots: a job started at another parallelism is
    // brought to TaskManagers x slots first (what the JobManager would do on its own).
    const auto reactive_parallelism = [&](const core::VertexInfo& v) {
      return std::clamp(replicas * slots_per_tm, 1, v.max_parallelism);
    };
    bool aligned = true;
    for (const core::VertexInfo& v : topology.vertices) {
      aligned = aligned && reactive_parallelism(v) == v.parallelism;
    }
    if (!aligned && m.state == JobState::kRunning) {
      std::map<core::VertexId, int> reactive;
      for (const core::VertexInfo& v : topology.vertices) reactive[v.id] = reactive_parallelism(v);
      PolicyDecision out;
      out.parallelism = std::move(reactive);
      out.reasons.push_back("reactive mode: every vertex runs on the " +
                            std::to_string(replicas * slots_per_tm) + " slots of " +
                            std::to_string(replicas) + " TaskManager(s)");
      return out;
    }

    hpa::HpaInput in;
    in.spec.scale_target_ref = {"Deployment", "taskmanager", "apps/v1"};
    in.spec.min_replicas = static_cast<int32_t>(options_.min_replicas);
    in.spec.max_replicas = static_cast<int32_t>(
        options_.max_replicas > 0 ? options_.max_replicas
                                  : (max_parallelism + slots_per_tm - 1) / slots_per_tm);
    hpa::MetricSpec cpu;
    cpu.type = hpa::MetricSourceType::kResource;
    cpu.resource_name = "cpu";
    cpu.target.type = hpa::MetricTargetType::kUtilization;
    cpu.target.average_utilization = static_cast<int32_t>(options_.target_utilization);
    in.spec.metrics = {cpu};
    in.spec.behavior = hpa::Behavior{};  // autoscaling/v2 default behavior
    in.spec_replicas = replicas;
    in.status_replicas = replicas;
    in.now = now;
    // Utilization is load x cores / cores: one core per pod gives the same percentage.
    const int64_t request_milli = 1000;
    const int64_t usage_milli = std::llround(m.tm_cpu_load_avg * 1000.0);
    hpa::PodSamples samples;
    samples.timestamp = now;
    for (int i = 0; i < replicas; ++i) {
      hpa::PodInfo p;
      p.name = "taskmanager-" + std::to_string(i);
      const double ready = ready_at_[static_cast<size_t>(i)];
      p.start_time = SimTimePoint(std::min(ready, input.now_seconds) - 10);
      p.ready = ready <= input.now_seconds;
      if (*p.ready) p.ready_transition_time = SimTimePoint(ready);
      p.containers = {{"flink-main-container",
                       {{"cpu", Quantity::FromMilli(request_milli)}},
                       false}};
      in.observed.pods.push_back(std::move(p));
      samples.samples.push_back({"taskmanager-" + std::to_string(i),
                                 Quantity::FromMilli(usage_milli),
                                 {}});
    }
    in.observed.resource["cpu"] = std::move(samples);
    hpa::HpaDecision d = hpa::Reconcile(in, state_, hpa::HpaControllerOptions{});
    state_ = std::move(d.state);
    PolicyDecision out;
    std::string util = "?";
    if (!d.current_metrics.empty() && d.current_metrics[0].average_utilization) {
      util = std::to_string(*d.current_metrics[0].average_utilization);
    }
    // The HPA controller's own decision record, as `trimtab eval hpa` prints it.
    if (input.explain) out.explanation = std::make_shared<const Json>(hpa::DecisionToJson(d));
    if (!d.rescale || d.desired_replicas == replicas) return out;

    const int want = d.desired_replicas;
    std::map<core::VertexId, int> target;
    for (const core::VertexInfo& v : topology.vertices) {
      target[v.id] = std::clamp(want * slots_per_tm, 1, v.max_parallelism);
    }
    for (int i = replicas; i < want; ++i) ready_at_.push_back(input.now_seconds + 1e9);
    ready_at_.resize(static_cast<size_t>(want));
    out.parallelism = std::move(target);
    out.reasons.push_back("hpa: " + d.rescale_reason + " (" + util + " % of request vs target " +
                          std::to_string(options_.target_utilization) + " %): TaskManagers " +
                          std::to_string(replicas) + " -> " + std::to_string(want) + " x " +
                          std::to_string(slots_per_tm) + " slots");
    if (!d.normalization.stabilization_reason.empty()) {
      out.reasons.push_back("hpa: " + d.normalization.stabilization_reason + ": " +
                            d.normalization.stabilization_message);
    }
    if (!d.normalization.limit_reason.empty()) {
      out.reasons.push_back("hpa: " + d.normalization.limit_reason + ": " +
                            d.normalization.limit_message);
    }
    return out;
  }

 private:
  HpaCpuOptions options_;
  hpa::HpaState state_;
  std::vector<double> ready_at_;  // per TaskManager: when it became (or becomes) Ready
};

}  // namespace

StatusOr<std::unique_ptr<ScalingPolicy>> MakeHpaCpuPolicy(const Json& config) {
  HpaCpuOptions o;
  if (!config.is_null()) {
    JsonReader r(config, "config");
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("targetCpuUtilization", &o.target_utilization));
    TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("minReplicas", &o.min_replicas));
    TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("maxReplicas", &o.max_replicas));
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    if (o.target_utilization < 1 || o.target_utilization > 1000) {
      return InvalidArgumentError(r.FieldPath("targetCpuUtilization") + ": must be in [1, 1000]");
    }
    if (o.min_replicas < 1) return InvalidArgumentError(r.FieldPath("minReplicas") + ": must be >= 1");
    if (o.max_replicas != 0 && o.max_replicas < o.min_replicas) {
      return InvalidArgumentError(r.FieldPath("maxReplicas") + ": must be >= minReplicas (or 0)");
    }
  }
  return std::unique_ptr<ScalingPolicy>(new HpaCpuPolicy(o));
}

}  // namespace trimtab::sim
