#include "sim/policies/observed_run.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/job_model.h"

namespace trimtab::sim {

namespace {

// Records/s of input the job carries at its current parallelism without saturating a subtask:
// the largest scale s of the current demand for which every vertex needs no more subtasks than
// it has (key-group and partition skew included), times the current input rate.
double CapacityAtCurrentParallelism(const JobModel& m, double input_rate) {
  if (input_rate <= 0) return 0;
  const std::vector<VertexDemand> demand = m.TrueDemand();
  const auto fits = [&](double s) {
    for (size_t i = 0; i < demand.size(); ++i) {
      VertexDemand d = demand[i];
      d.total *= s;
      d.hashed *= s;
      if (m.MinimalParallelism(static_cast<int>(i), d) > m.parallelism(static_cast<int>(i))) {
        return false;
      }
    }
    return true;
  };
  double lo = 0, hi = 1;
  while (fits(hi) && hi < 1e6) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= 1e6) return input_rate * lo;
  for (int i = 0; i < 30; ++i) {
    const double mid = (lo + hi) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return input_rate * lo;
}

class ObservingPolicy final : public ScalingPolicy {
 public:
  ObservingPolicy(std::unique_ptr<ScalingPolicy> inner, size_t index, const Scenario& scenario,
                  const ObserveOptions& options, PolicyTrace* trace)
      : inner_(std::move(inner)),
        index_(index),
        scenario_(scenario),
        options_(options),
        trace_(trace),
        inner_traits_(inner_->traits()),
        interval_steps_(std::max<int64_t>(
            1, std::llround(scenario.decision_interval_seconds / scenario.step_seconds))) {}

  std::string_view name() const override { return inner_->name(); }
  PolicyTraits traits() const override {
    return {.every_step = true,
            .free_restarts = inner_traits_.free_restarts,
            .needs_ground_truth = true,
            .needs_metrics = false};
  }

  StatusOr<PolicyDecision> Decide(const PolicyInput& input) override {
    if (!input.truth) return InternalError("observer: needs ground truth");
    const JobModel& m = *input.truth;
    const double t = input.now_seconds;
    const int64_t k = std::llround(t / scenario_.step_seconds);
    const double dt = scenario_.step_seconds;
    if (m.state() != JobState::kRunning) down_since_record_ += dt;
    if (options_.progress && t >= next_progress_) {
      options_.progress(index_, std::string(inner_->name()), t, scenario_.duration_seconds);
      next_progress_ = t + scenario_.duration_seconds / 200;
    }
    const bool decides = inner_traits_.every_step || (k > 0 && k % interval_steps_ == 0);
    if (trace_ && (k % interval_steps_ == 0)) Record(m, t);
    if (!decides) return PolicyDecision{};

    // What the simulator gives the policy when it calls it directly.
    PolicyInput forwarded;
    forwarded.now_seconds = t;
    forwarded.topology = input.topology;
    if (inner_traits_.needs_metrics) {
      metrics_ = m.Snapshot();
      forwarded.metrics = &*metrics_;
    }
    if (inner_traits_.needs_ground_truth) forwarded.truth = &m;
    // The report's table of held changes reads the explanations too.
    forwarded.explain = static_cast<bool>(options_.explain) || trace_ != nullptr;
    StatusOr<PolicyDecision> d = inner_->Decide(forwarded);
    if (d.ok() && d->explanation) {
      if (trace_) RecordHeld(t, *d->explanation);
      if (options_.explain) {
        options_.explain(index_, std::string(inner_->name()), t, *d->explanation);
      }
      d->explanation.reset();  // delivered; the simulator has no use for it
    }
    return d;
  }

  // The run's figures after the latest step (the simulator's, RunHooks::after_step): at a
  // decision they describe the job as the decision finds it.
  void SetFigures(const StepFigures& f) { figures_ = f; }

 private:
  // Adds a cycle of the Flink autoscaler's decision log to trace_->held when it wanted a change
  // that the chain vetoed or a rule blocked; a run of such cycles wanting the same change is one
  // entry. Other policies' explanations (hpa-cpu) have no chain and no Blocked outcome.
  void RecordHeld(double t, const Json& cycle) {
    const bool was_held = last_cycle_held_;
    last_cycle_held_ = false;
    std::string why;
    const bool applied = !cycle.value("applied", Json::object()).empty();
    if (cycle.contains("chain") && !applied) {
      for (const Json& step : cycle["chain"]) {
        if (step.value("verdict", "") != "veto") continue;
        why = "vetoed by " + step.value("plugin", "") + ": " + step.value("reason", "");
        break;
      }
    } else if (cycle.value("outcome", "") == "Blocked") {
      const Json stages = cycle.value("stages", Json::object());
      for (const char* stage : {"decide", "shape"}) {
        for (const Json& note : stages.value(stage, Json::array())) {
          if (note.is_string() && note.get<std::string>().rfind("blocked: ", 0) == 0) why = note;
        }
      }
    }
    if (why.empty()) return;
    HeldChange h{t, t, 1, {}, {}, std::move(why)};
    std::map<VertexId, int> job;  // every vertex's parallelism
    bool up = false;
    const Json vertices = cycle.value("vertices", Json::object());
    for (const auto& [id, v] : vertices.items()) {
      job[id] = v.value("currentParallelism", 0);
      if (!v.contains("proposedParallelism")) continue;
      h.from[id] = job[id];
      h.wanted[id] = v["proposedParallelism"].get<int>();
      up = up || h.wanted[id] > h.from[id];
    }
    last_cycle_held_ = true;
    // One run: the job kept its parallelism and the autoscaler kept wanting to go the same way
    // (a scale-up behind a growing backlog grows from cycle to cycle).
    std::vector<HeldChange>& held = trace_->held;
    const bool same_run = was_held && !held.empty() && job == held_job_ && up == held_up_;
    held_job_ = std::move(job);
    held_up_ = up;
    if (same_run) {
      HeldChange& run = held.back();
      run.last_seconds = t;
      ++run.cycles;
      run.from = std::move(h.from);
      run.wanted = std::move(h.wanted);
      run.why = std::move(h.why);
      return;
    }
    held.push_back(std::move(h));
  }

  void Record(const JobModel& m, double t) {
    TracePoint p;
    p.time_seconds = t;
    for (int s = 0; s < m.num_sources(); ++s) p.input_rate += m.source_rate(s);
    p.capacity = CapacityAtCurrentParallelism(m, p.input_rate);
    p.lag_seconds = figures_.lag_seconds;
    p.slots = m.slots();
    for (const core::VertexInfo& v : m.Topology().vertices) p.parallelism[v.id] = v.parallelism;
    p.down_seconds = down_since_record_;
    down_since_record_ = 0;
    p.in_restart_window = figures_.in_restart_window;
    p.violation_outside_restarts_seconds = figures_.violation_outside_restarts_seconds;
    trace_->points.push_back(std::move(p));
  }

  std::unique_ptr<ScalingPolicy> inner_;
  size_t index_;
  const Scenario& scenario_;
  const ObserveOptions& options_;
  PolicyTrace* trace_;
  PolicyTraits inner_traits_;
  int64_t interval_steps_;
  // The snapshot forwarded to the inner policy. A member: an empty optional<JobMetrics> local to
  // Decide() cost a memset of its whole size at every step.
  std::optional<JobMetrics> metrics_;
  double next_progress_ = 0;
  double down_since_record_ = 0;  // for the next trace point
  StepFigures figures_;           // after the latest step (all zero before the first)
  // RecordHeld: the previous explained cycle was held, with the job at held_job_ and wanting to
  // scale up (held_up_) or down.
  bool last_cycle_held_ = false;
  std::map<VertexId, int> held_job_;
  bool held_up_ = false;
};

}  // namespace

StatusOr<ObservedRun> RunScenarioObserved(const Scenario& scenario, const PolicyRegistry& registry,
                                          const ObserveOptions& options) {
  ObservedRun run;
  if (options.record_traces) run.traces.resize(scenario.policies.size());
  run.restarts.resize(scenario.policies.size());
  RunHooks hooks;
  std::vector<ObservingPolicy*> observers(scenario.policies.size(), nullptr);
  hooks.decorate = [&](size_t i, std::unique_ptr<ScalingPolicy> inner) {
    PolicyTrace* trace = options.record_traces ? &run.traces[i] : nullptr;
    if (trace) trace->policy = std::string(inner->name());
    auto observer = std::make_unique<ObservingPolicy>(std::move(inner), i, scenario, options, trace);
    observers[i] = observer.get();
    return std::unique_ptr<ScalingPolicy>(std::move(observer));
  };
  hooks.finished = [&](size_t i, const PolicyReport& rep) {
    observers[i] = nullptr;  // the simulator destroys the policy after its run
    if (options.progress) {
      options.progress(i, rep.policy, scenario.duration_seconds, scenario.duration_seconds);
    }
  };
  if (options.record_traces) {
    hooks.after_step = [&](size_t i, const StepFigures& f) {
      if (observers[i]) observers[i]->SetFigures(f);
    };
  }
  TRIMTAB_ASSIGN_OR_RETURN(run.report, RunScenario(scenario, registry, hooks));
  for (size_t i = 0; i < run.report.policies.size() && i < run.restarts.size(); ++i) {
    const PolicyReport& p = run.report.policies[i];
    run.restarts[i] = {p.slo_violation_seconds, p.slo_violation_outside_restarts_seconds};
  }
  return run;
}

}  // namespace trimtab::sim
