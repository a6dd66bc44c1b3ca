#include "sim/report_figures.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/job_model.h"
#include "sim/simulator.h"

namespace trimtab::sim {
namespace {

Scenario Parse(const std::string& yaml) {
  StatusOr<Json> json = ParseYaml(yaml, "scenario");
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  StatusOr<Scenario> s = ParseScenario(*json);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : Scenario{};
}

SimulationReport Simulate(const Scenario& s) {
  StatusOr<SimulationReport> r = RunScenario(s, DefaultPolicyRegistry());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : SimulationReport{};
}

// q1: one chained vertex, 155000 / 0.98 records/s per subtask.
constexpr double kQ1Capacity = 155'000 / 0.98;

TEST(RunFigures, LagIsTheAgeOfTheOldestRecordWhenTheSourceGoesQuiet) {
  // 300k/s for 10 minutes into one subtask, then nothing. The backlog at 600 s is
  // (300k - C) x 600 records; the record at the read position (C x 600) arrived at C x 600 / 300k
  // s. Then the backlog drains at C while the clock runs: the last record of the burst (arrived
  // at 600 s) is read at 600 + backlog / C, and that is the largest age. Pending records over the
  // input rate would say tens of millions of seconds once the input is 0.
  const Scenario s = Parse(R"(
job: {library: q1, parallelism: 1}
workload: {type: step, rate: 300000, steps: [{at: 10 min, rate: 0}]}
duration: 1h
step: 5 s
policies: [static]
)");
  const SimulationReport r = Simulate(s);
  ASSERT_EQ(r.policies.size(), 1u);
  const double backlog = (300'000 - kQ1Capacity) * 600;
  const double drained_at = 600 + backlog / kQ1Capacity;
  EXPECT_NEAR(r.policies[0].max_lag_seconds, drained_at - 600, 5.0);
  // Above 30 s of age from about 63 s (age = t (1 - C / 300k)) until the drain.
  const double first = 30 / (1 - kQ1Capacity / 300'000);
  EXPECT_NEAR(r.policies[0].slo_violation_seconds, drained_at - first, 10.0);
  // The job never restarts: all of it is outside restart windows.
  EXPECT_EQ(r.policies[0].slo_violation_outside_restarts_seconds,
            r.policies[0].slo_violation_seconds);
}

TEST(RunFigures, ScaleDownsUndoneWithinFifteenMinutesAreFlaps) {
  const Scenario s = Parse(R"(
job: {library: q5, parallelism: 4}
workload: 1000
duration: 1 min
)");
  StatusOr<std::unique_ptr<JobModel>> model = JobModel::Create(s.job, 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const size_t n = (*model)->Topology().vertices.size();
  ASSERT_GE(n, 2u);
  std::vector<int> four(n, 4), two(n, 4), up_other(n, 4);
  two[1] = 2;        // vertex 1 down
  up_other[1] = 2;   // ... and vertex 0 up: not the vertex the scale-down lowered
  up_other[0] = 5;
  RunFigures f(**model, 30);
  f.Rescaled(0, 10, four, two);          // scale-down
  f.Rescaled(300, 10, two, up_other);    // another vertex up: does not undo it
  f.Rescaled(600, 10, up_other, four);   // vertex 1 back up within 15 min: undone
  f.Rescaled(2000, 10, four, two);       // scale-down
  f.Rescaled(2000 + 901, 10, two, four); // back up after more than 15 min: not a flap
  EXPECT_EQ(f.scale_downs(), 3);         // the rescale at 600 lowered vertex 0 (5 -> 4)
  EXPECT_EQ(f.scale_downs_undone(), 1);
}

TEST(RunFigures, RestartWindowEndsWhenLagIsBackOrAfterTheAllowance) {
  const Scenario s = Parse(R"(
job: {library: q1, parallelism: 1}
workload: 1000
duration: 1 min
)");
  StatusOr<std::unique_ptr<JobModel>> model = JobModel::Create(s.job, 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  JobModel& m = **model;
  RunFigures f(m, 30);
  const double rate = 1000;
  m.SetSourceRate(0, rate);
  const std::map<VertexId, int> two = {{m.Topology().vertices[0].id, 2}};
  StatusOr<double> downtime = m.Rescale(two);
  ASSERT_TRUE(downtime.ok()) << downtime.status().ToString();
  ASSERT_GT(*downtime, 0);
  f.Rescaled(0, *downtime, {1}, {2});
  double t = 0;
  while (t + 5 < *downtime) {
    m.Step(5);
    t += 5;
    f.AfterStep(m, &rate, t, 5);
    EXPECT_TRUE(f.last().in_restart_window) << t;  // the restart is not over
  }
  for (int k = 0; k < 12; ++k) {
    m.Step(5);
    t += 5;
    f.AfterStep(m, &rate, t, 5);
  }
  // A short restart at a low rate keeps lag under 30 s: the window closed once it was over.
  EXPECT_FALSE(f.last().in_restart_window);
  EXPECT_EQ(f.last().violation_seconds, 0);
  EXPECT_GT(f.max_lag_seconds(), 0);  // the records that arrived while it was down
}

}  // namespace
}  // namespace trimtab::sim
