// RunFigures: the user-facing figures of one simulated run, computed step by step from the
// model's ground truth by the driver (simulator.cc), in one place so that every report (the JSON,
// `trimtab simulate`'s table, the HTML report and its series, the benchmark) reads the same
// numbers:
//
//   lag                 the age of the oldest record not yet processed, max over sources: the
//                       time since the record at the sources' read position arrived. Arrivals are
//                       integrated step by step (rate x step), so a source that goes quiet with
//                       records pending shows lag growing with the clock, and a restart that
//                       rewinds to a checkpoint shows the age of the first record read again. It
//                       is never pending / the instantaneous input rate (which reports days when
//                       the input stops). Fewer than one pending record is no lag.
//   SLO violation       time with lag above the SLO, restarts included: what users feel
//   ... outside restarts  the part of it outside restart windows (a diagnostic): a window runs
//                       from a rescale until the restart is over and lag is back under the SLO,
//                       at most kCatchUpAllowanceSeconds after the restart ended
//   scale-downs, undone a rescale that lowers some vertex's parallelism is a scale-down; it is
//                       undone (a flap) when a rescale within kFlapWindowSeconds raises one of
//                       the vertices it lowered
//
// A step is counted by the state at its end (lag after the step), once.
//
// Thread-safety: a value owned by one run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trimtab::sim {

class JobModel;

// How long after a restart ends its backlog may keep lag above the SLO and still count as the
// restart's: a restart adds downtime plus up to one checkpoint interval of re-read input, which a
// job with normal headroom drains within a few minutes.
inline constexpr double kCatchUpAllowanceSeconds = 300;
// A scale-down undone by a scale-up of the same vertex within this long is a flap.
inline constexpr double kFlapWindowSeconds = 15 * 60;

// The figures after one step, for observers (traces).
struct StepFigures {
  double time_seconds = 0;  // end of the step
  double lag_seconds = 0;
  bool violating = false;
  bool in_restart_window = false;
  double violation_seconds = 0;  // running totals
  double violation_outside_restarts_seconds = 0;
};

class RunFigures {
 public:
  // `model` at time 0 (its pending records count as arrived at 0).
  RunFigures(const JobModel& model, double slo_lag_seconds);

  // After the model stepped `dt` seconds to `t_end`, at the source rates it had during the step
  // (JobModel::source_rate, read before stepping: `rates`, one per source).
  void AfterStep(const JobModel& model, const double* rates, double t_end, double dt);
  // A rescale applied at `t` with `downtime`; `before` and `after` are every vertex's parallelism
  // (topological order).
  void Rescaled(double t, double downtime, const std::vector<int>& before,
                const std::vector<int>& after);

  const StepFigures& last() const { return last_; }
  double max_lag_seconds() const { return max_lag_; }
  int scale_downs() const { return scale_downs_; }
  int scale_downs_undone() const { return undone_; }

 private:
  double LagOf(size_t source, double pending, double t_end) const;

  double slo_;
  double step_ = 0;  // the step length, set by the first AfterStep
  // Per source: cumulative arrivals at the end of each step (index 0 = time 0).
  std::vector<std::vector<double>> arrived_;
  StepFigures last_;
  double max_lag_ = 0;
  // Restart windows.
  bool in_window_ = false;
  double restart_end_ = 0;
  // Flaps: scale-downs younger than kFlapWindowSeconds, with the vertices they lowered.
  struct ScaleDown {
    double time = 0;
    std::vector<int> lowered;  // vertex indexes
  };
  std::vector<ScaleDown> recent_downs_;
  int scale_downs_ = 0;
  int undone_ = 0;
};

}  // namespace trimtab::sim
