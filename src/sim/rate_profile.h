// Workload rate profiles: records/s offered to a source as a function of simulation time.
// Profiles are pure functions of time (noise is a seeded hash of the time bucket), so the same
// profile and seed give the same rates in any evaluation order.
//
// File format (YAML or JSON), one object per profile; a bare number is a constant rate:
//
//   {type: constant, rate: 5000}
//   {type: step, rate: 5000, steps: [{at: 10 min, rate: 20000}, {at: 1h, rate: 8000}]}
//   {type: ramp, from: 1000, to: 9000, start: 5 min, duration: 10 min}
//   {type: daily, trough: 2000, peak: 20000, period: 1 d, peakAt: 14h}
//   {type: spike, base: 5000, peak: 40000, at: 30 min, duration: 2 min}
//   {type: onoff, rate: 8000, offRate: 0, on: 10 min, off: 5 min, start: 0}
//   {type: piecewise, points: [[0, 1000], [3600, 5000], [7200, 1000]]}
//   {type: csv, file: trace.csv, interpolate: linear, loop: true}   (or data: "t,rate\n0,10\n")
//   {type: noise, stddev: 0.1, interval: 10s, of: {...}, seed: 7}   near-normal, within 3.46 sd
//   {type: sum | product | max, of: [{...}, {...}]}
//
// Errors name the field path ("workload.src.steps[1].at: required field is missing").
//
// Thread-safety: profiles are immutable after parsing; Rate() is safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::sim {

class RateProfile {
 public:
  virtual ~RateProfile() = default;
  // Records per second at time t (seconds since the start); never negative.
  virtual double Rate(double t) const = 0;
  // out[i] = Rate(t[i]) for i < n, bit for bit. The simulator evaluates a run's workload this
  // way, a batch of steps ahead: profiles override it where a batch shares work (a noise profile
  // draws once per interval, not once per time) or where independent evaluations can overlap in
  // the CPU instead of running one per virtual call (the daily cosine).
  virtual void Rates(const double* t, size_t n, double* out) const;
  // Appends the instants in [0, horizon] where the rate changes abruptly (step edges, spike and
  // on/off edges); smooth profiles add none. Used to measure convergence after each change.
  virtual void ChangePoints(double horizon, std::vector<double>* out) const {}
};

struct ProfileParseOptions {
  uint64_t seed = 1;          // default seed for noise profiles without their own
  std::string base_dir = ".";  // directory that relative csv `file` paths resolve against
};

StatusOr<std::unique_ptr<RateProfile>> ParseRateProfile(const Json& json, const std::string& path,
                                                        const ProfileParseOptions& options = {});

// Change points of `profile` within [0, horizon], sorted and deduplicated.
std::vector<double> SortedChangePoints(const RateProfile& profile, double horizon);

// Building blocks for code (tests, the job library, future `trimtab local` workloads).
std::unique_ptr<RateProfile> ConstantProfile(double rate);
// (time, rate) points, linear between them and held flat outside. REQUIRES: times ascending.
std::unique_ptr<RateProfile> PiecewiseLinearProfile(std::vector<std::pair<double, double>> points);

}  // namespace trimtab::sim
