#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <nlohmann/json.hpp>

#include "sim/job_model.h"
#include "sim/report_figures.h"

namespace trimtab::sim {

namespace {

constexpr size_t kMaxDecisionRecords = 200;

double Round4(double x) {
  const double r = std::round(x * 1e4) / 1e4;
  return r == 0 ? 0.0 : r;  // no "-0"
}

double CpuSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

std::map<VertexId, int> CurrentParallelism(const JobModel& m) {
  std::map<VertexId, int> p;
  for (const core::VertexInfo& v : m.Topology().vertices) p[v.id] = v.parallelism;
  return p;
}

std::vector<int> ParallelismVector(const JobModel& m) {
  std::vector<int> p;
  for (const core::VertexInfo& v : m.Topology().vertices) p.push_back(v.parallelism);
  return p;
}

}  // namespace

StatusOr<PolicyReport> RunPolicy(const Scenario& scenario, ScalingPolicy& policy,
                                 const std::function<void(const StepFigures&)>& after_step) {
  const double cpu_start = CpuSeconds();
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<JobModel> model, JobModel::Create(scenario.job, scenario.seed));
  std::vector<const RateProfile*> profiles;
  for (const VertexId& id : model->source_ids()) {
    auto it = scenario.workload.find(id);
    if (it == scenario.workload.end()) return InvalidArgumentError("workload: no profile for source \"" + id + "\"");
    profiles.push_back(it->second.get());
  }
  const PolicyTraits traits = policy.traits();
  PolicyReport rep;
  rep.policy = std::string(policy.name());
  rep.min_slots = model->slots();
  rep.max_slots = model->slots();

  const double dt = scenario.step_seconds;
  const int64_t steps = std::llround(scenario.duration_seconds / dt);
  const int64_t interval_steps = std::max<int64_t>(1, std::llround(scenario.decision_interval_seconds / dt));
  const std::vector<double>& changes = scenario.change_points;
  size_t change_index = 0;  // next change point not yet reached
  struct Window {
    double last_event = 0;
    bool violating = false;
  } window;
  double slot_seconds = 0, tm_seconds = 0;
  // Only a rescale changes these.
  int slots = model->slots();
  int task_managers = model->task_managers();
  // Decision instants are the multiples of interval_steps after 0.
  int64_t next_decision = interval_steps;
  // The workload is evaluated a batch of steps ahead, one RateProfile::Rates call per source
  // per batch; a profile's rate depends on nothing but the time, so the values are those of
  // Rate() at each step.
  constexpr int64_t kRateBatch = 64;
  std::vector<double> batch_times(kRateBatch);
  std::vector<double> batch_rates(profiles.size() * kRateBatch);
  int64_t batch_start = 0, batch_end = 0;
  // The snapshot a decision reads, when the policy reads one (here, not in the loop: an empty
  // optional this size costs a memset every step).
  std::optional<JobMetrics> metrics;
  RunFigures figures(*model, scenario.slo_lag_seconds);
  std::vector<double> step_rates(profiles.size());

  const auto close_window = [&]() {
    if (change_index == 0) return;
    ChangeConvergence& c = rep.changes.back();
    if (!window.violating) c.seconds_to_converge = Round4(window.last_event - c.at_seconds);
  };

  for (int64_t k = 0; k < steps; ++k) {
    const double t = static_cast<double>(k) * dt;
    while (change_index < changes.size() && changes[change_index] <= t) {
      close_window();
      rep.changes.push_back(ChangeConvergence{changes[change_index], 0, std::nullopt});
      window = Window{changes[change_index], window.violating};
      ++change_index;
    }
    if (k == batch_end) {
      batch_start = k;
      batch_end = std::min(steps, k + kRateBatch);
      const size_t n = static_cast<size_t>(batch_end - batch_start);
      for (size_t i = 0; i < n; ++i) {
        batch_times[i] = static_cast<double>(k + static_cast<int64_t>(i)) * dt;
      }
      for (size_t s = 0; s < profiles.size(); ++s) {
        profiles[s]->Rates(batch_times.data(), n, batch_rates.data() + s * kRateBatch);
      }
    }
    const size_t in_batch = static_cast<size_t>(k - batch_start);
    for (size_t s = 0; s < profiles.size(); ++s) {
      model->SetSourceRate(static_cast<int>(s), batch_rates[s * kRateBatch + in_batch]);
    }

    const bool interval_due = k == next_decision;
    if (interval_due) next_decision += interval_steps;
    if (traits.every_step || interval_due) {
      PolicyInput in;
      in.now_seconds = t;
      in.topology = &model->Topology();
      if (traits.needs_metrics) {
        metrics = model->Snapshot();
        in.metrics = &*metrics;
      }
      if (traits.needs_ground_truth) in.truth = model.get();
      StatusOr<PolicyDecision> d = policy.Decide(in);
      if (!d.ok()) return d.status().WithContext("policy " + rep.policy + " at t=" + std::to_string(t));
      if (d->parallelism) {
        // Only the decision record needs the parallelism spelled out (the oracle rescales often).
        const bool record = !traits.free_restarts && rep.decisions.size() < kMaxDecisionRecords;
        std::map<VertexId, int> before;
        if (record) before = CurrentParallelism(*model);
        std::vector<int> before_vector = ParallelismVector(*model);
        const int64_t rescales_before = model->num_rescales();
        StatusOr<double> downtime = model->Rescale(*d->parallelism, RescaleOptions{.free = traits.free_restarts});
        if (!downtime.ok()) return downtime.status().WithContext("policy " + rep.policy);
        slots = model->slots();
        task_managers = model->task_managers();
        if (model->num_rescales() != rescales_before) {  // the parallelism changed
          ++rep.rescales;
          rep.downtime_seconds += *downtime;
          figures.Rescaled(t, *downtime, before_vector, ParallelismVector(*model));
          if (change_index > 0) {
            ++rep.changes.back().rescales;
            window.last_event = std::max(window.last_event, t + *downtime);
          }
          if (record) {
            rep.decisions.push_back(DecisionRecord{t, std::move(before), CurrentParallelism(*model),
                                                   std::move(d->reasons), *downtime});
          } else if (!traits.free_restarts) {
            ++rep.decisions_omitted;
          }
        }
      }
    }

    for (size_t s = 0; s < profiles.size(); ++s) step_rates[s] = model->source_rate(static_cast<int>(s));
    model->Step(dt);
    slot_seconds += slots * dt;
    tm_seconds += task_managers * dt;
    rep.min_slots = std::min(rep.min_slots, slots);
    rep.max_slots = std::max(rep.max_slots, slots);
    figures.AfterStep(*model, step_rates.data(), t + dt, dt);
    rep.max_lag_records = std::max(rep.max_lag_records, model->TotalPendingRecords());
    const bool violating = figures.last().violating;
    if (violating) window.last_event = t + dt;
    window.violating = violating;
    if (after_step) after_step(figures.last());
  }
  close_window();
  rep.slo_violation_seconds = figures.last().violation_seconds;
  rep.slo_violation_outside_restarts_seconds = figures.last().violation_outside_restarts_seconds;
  rep.max_lag_seconds = figures.max_lag_seconds();
  rep.scale_downs = figures.scale_downs();
  rep.scale_downs_undone = figures.scale_downs_undone();
  rep.slot_hours = slot_seconds / 3600.0;
  rep.task_manager_hours = tm_seconds / 3600.0;
  rep.reprocessed_records = model->reprocessed_records();
  rep.final_parallelism = CurrentParallelism(*model);
  rep.steps = static_cast<double>(steps);
  rep.cpu_seconds = CpuSeconds() - cpu_start;
  return rep;
}

StatusOr<SimulationReport> RunScenario(const Scenario& scenario, const PolicyRegistry& registry,
                                       const RunHooks& hooks) {
  SimulationReport report;
  report.scenario = scenario.name;
  report.seed = scenario.seed;
  report.duration_seconds = scenario.duration_seconds;
  report.step_seconds = scenario.step_seconds;
  report.slo_lag_seconds = scenario.slo_lag_seconds;
  std::optional<double> oracle;
  for (size_t i = 0; i < scenario.policies.size(); ++i) {
    const PolicySpec& ps = scenario.policies[i];
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<ScalingPolicy> policy,
                             registry.Create(ps.name, *ps.config, JoinPath("policies", i)));
    if (hooks.decorate) policy = hooks.decorate(i, std::move(policy));
    std::function<void(const StepFigures&)> after_step;
    if (hooks.after_step) after_step = [&](const StepFigures& f) { hooks.after_step(i, f); };
    TRIMTAB_ASSIGN_OR_RETURN(PolicyReport rep, RunPolicy(scenario, *policy, after_step));
    if (hooks.finished) hooks.finished(i, rep);
    if (ps.name == "oracle" && ps.config->is_null()) oracle = rep.slot_hours;
    report.policies.push_back(std::move(rep));
  }
  if (!oracle) {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<ScalingPolicy> bound, MakeOraclePolicy(Json()));
    TRIMTAB_ASSIGN_OR_RETURN(PolicyReport rep, RunPolicy(scenario, *bound));
    oracle = rep.slot_hours;
  }
  report.oracle_slot_hours = *oracle;
  for (PolicyReport& rep : report.policies) {
    if (*oracle > 0) rep.ratio_to_oracle = rep.slot_hours / *oracle;
  }
  return report;
}

Json ReportToJson(const SimulationReport& report, bool include_timing) {
  Json j = Json::object();
  j["scenario"] = report.scenario;
  j["seed"] = report.seed;
  j["durationSeconds"] = Round4(report.duration_seconds);
  j["stepSeconds"] = Round4(report.step_seconds);
  j["sloLagSeconds"] = Round4(report.slo_lag_seconds);
  j["oracleSlotHours"] = Round4(report.oracle_slot_hours);
  Json policies = Json::array();
  for (const PolicyReport& p : report.policies) {
    Json pj = Json::object();
    pj["policy"] = p.policy;
    pj["slotHours"] = Round4(p.slot_hours);
    pj["ratioToOracle"] = p.ratio_to_oracle ? Json(Round4(*p.ratio_to_oracle)) : Json();
    pj["taskManagerHours"] = Round4(p.task_manager_hours);
    pj["minSlots"] = p.min_slots;
    pj["maxSlots"] = p.max_slots;
    pj["sloViolationSeconds"] = Round4(p.slo_violation_seconds);
    pj["sloViolationOutsideRestartsSeconds"] = Round4(p.slo_violation_outside_restarts_seconds);
    pj["maxLagSeconds"] = Round4(p.max_lag_seconds);
    pj["maxLagRecords"] = Round4(p.max_lag_records);
    pj["rescales"] = p.rescales;
    pj["downtimeSeconds"] = Round4(p.downtime_seconds);
    pj["rescalesPerJobDay"] =
        Round4(report.duration_seconds > 0 ? p.rescales * 86400.0 / report.duration_seconds : 0.0);
    pj["scaleDowns"] = p.scale_downs;
    pj["scaleDownsUndone"] = p.scale_downs_undone;
    pj["reprocessedRecords"] = Round4(p.reprocessed_records);
    Json fp = Json::object();
    for (const auto& [id, n] : p.final_parallelism) fp[id] = n;
    pj["finalParallelism"] = std::move(fp);
    Json changes = Json::array();
    for (const ChangeConvergence& c : p.changes) {
      changes.push_back({{"at", Round4(c.at_seconds)},
                         {"rescales", c.rescales},
                         {"secondsToConverge", c.seconds_to_converge ? Json(*c.seconds_to_converge) : Json()}});
    }
    pj["changes"] = std::move(changes);
    Json decisions = Json::array();
    for (const DecisionRecord& d : p.decisions) {
      Json from = Json::object(), to = Json::object();
      for (const auto& [id, n] : d.from) from[id] = n;
      for (const auto& [id, n] : d.to) to[id] = n;
      decisions.push_back({{"time", Round4(d.time_seconds)},
                           {"from", std::move(from)},
                           {"to", std::move(to)},
                           {"downtimeSeconds", Round4(d.downtime_seconds)},
                           {"reasons", d.reasons}});
    }
    pj["decisions"] = std::move(decisions);
    pj["decisionsOmitted"] = p.decisions_omitted;
    if (include_timing) {
      pj["cpuSeconds"] = p.cpu_seconds;
      pj["jobDaysPerCpuSecond"] =
          p.cpu_seconds > 0 ? report.duration_seconds / 86400.0 / p.cpu_seconds : 0.0;
    }
    policies.push_back(std::move(pj));
  }
  j["policies"] = std::move(policies);
  if (include_timing) j["jobDaysPerCpuSecond"] = JobDaysPerCpuSecond(report);
  return j;
}

std::string ReportToText(const SimulationReport& report, bool include_timing) {
  return ReportToJson(report, include_timing).dump(2) + "\n";
}

double JobDaysPerCpuSecond(const SimulationReport& report) {
  double cpu = 0;
  for (const PolicyReport& p : report.policies) cpu += p.cpu_seconds;
  const double days = report.duration_seconds / 86400.0 * static_cast<double>(report.policies.size());
  return cpu > 0 ? days / cpu : 0.0;
}

}  // namespace trimtab::sim
