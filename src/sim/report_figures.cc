#include "sim/report_figures.h"

#include <algorithm>
#include <cmath>

#include "sim/job_model.h"

namespace trimtab::sim {

RunFigures::RunFigures(const JobModel& model, double slo_lag_seconds) : slo_(slo_lag_seconds) {
  arrived_.resize(static_cast<size_t>(model.num_sources()));
  for (size_t s = 0; s < arrived_.size(); ++s) {
    arrived_[s].push_back(model.PendingRecords(static_cast<int>(s)));
  }
}

double RunFigures::LagOf(size_t source, double pending, double t_end) const {
  if (pending < 1) return 0;  // less than a record
  const std::vector<double>& a = arrived_[source];
  const double read = a.back() - pending;  // the read position, in arrivals since time 0
  // The first step end by which more than `read` records had arrived: the record at the read
  // position arrived during the step before it.
  const auto it = std::upper_bound(a.begin(), a.end(), read);
  if (it == a.end()) return 0;
  double arrived_at = 0;  // before index 0: pending at time 0 (an initial backlog)
  if (it != a.begin()) {
    const size_t j = static_cast<size_t>(it - a.begin());
    arrived_at = step_ * (static_cast<double>(j - 1) + (read - a[j - 1]) / (a[j] - a[j - 1]));
  }
  return std::max(0.0, t_end - arrived_at);
}

void RunFigures::AfterStep(const JobModel& model, const double* rates, double t_end, double dt) {
  step_ = dt;
  double lag = 0;
  for (size_t s = 0; s < arrived_.size(); ++s) {
    std::vector<double>& a = arrived_[s];
    a.push_back(a.back() + rates[s] * dt);
    lag = std::max(lag, LagOf(s, model.PendingRecords(static_cast<int>(s)), t_end));
  }
  const bool violating = lag > slo_;
  if (in_window_ && model.state() == JobState::kRunning) {
    if (!violating || t_end - restart_end_ > kCatchUpAllowanceSeconds) in_window_ = false;
  }
  last_.time_seconds = t_end;
  last_.lag_seconds = lag;
  last_.violating = violating;
  last_.in_restart_window = in_window_;
  if (violating) {
    last_.violation_seconds += dt;
    if (!in_window_) last_.violation_outside_restarts_seconds += dt;
  }
  max_lag_ = std::max(max_lag_, lag);
}

void RunFigures::Rescaled(double t, double downtime, const std::vector<int>& before,
                          const std::vector<int>& after) {
  in_window_ = true;
  restart_end_ = t + downtime;
  recent_downs_.erase(std::remove_if(recent_downs_.begin(), recent_downs_.end(),
                                     [&](const ScaleDown& d) {
                                       return t - d.time > kFlapWindowSeconds;
                                     }),
                      recent_downs_.end());
  // A scale-up of a vertex that a recent scale-down lowered undoes it.
  for (auto it = recent_downs_.begin(); it != recent_downs_.end();) {
    const bool undone = std::any_of(it->lowered.begin(), it->lowered.end(),
                                    [&](int v) {
                                      const auto i = static_cast<size_t>(v);
                                      return after[i] > before[i];
                                    });
    if (undone) {
      ++undone_;
      it = recent_downs_.erase(it);
    } else {
      ++it;
    }
  }
  ScaleDown down{t, {}};
  for (size_t v = 0; v < before.size() && v < after.size(); ++v) {
    if (after[v] < before[v]) down.lowered.push_back(static_cast<int>(v));
  }
  if (!down.lowered.empty()) {
    ++scale_downs_;
    recent_downs_.push_back(std::move(down));
  }
}

}  // namespace trimtab::sim
