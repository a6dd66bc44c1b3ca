#include "sim/simulator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::sim {
namespace {

Scenario Parse(const std::string& yaml) {
  StatusOr<Json> json = ParseYaml(yaml, "scenario");
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  StatusOr<Scenario> s = ParseScenario(*json);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : Scenario{};
}

std::string ParseError(const std::string& yaml) {
  StatusOr<Json> json = ParseYaml(yaml, "scenario");
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  StatusOr<Scenario> s = ParseScenario(*json);
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.status().message();
}

SimulationReport Simulate(const Scenario& s) {
  StatusOr<SimulationReport> r = RunScenario(s, DefaultPolicyRegistry());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : SimulationReport{};
}

// q1: one chained vertex, 16 partitions, 155000 / 0.98 = 158163.27 records/s per subtask.
constexpr double kQ1Capacity = 155'000 / 0.98;

TEST(Simulator, StaticVersusOracleSlotHours) {
  const Scenario s = Parse(R"(
name: q1-constant
job: {library: q1, parallelism: 4}
workload: {type: constant, rate: 100000}
duration: 1h
policies: [static, oracle]
)");
  const SimulationReport r = Simulate(s);
  ASSERT_EQ(r.policies.size(), 2u);
  const PolicyReport& st = r.policies[0];
  const PolicyReport& oracle = r.policies[1];
  EXPECT_EQ(st.policy, "static");
  EXPECT_DOUBLE_EQ(st.slot_hours, 4.0);           // 4 slots for 1 h
  EXPECT_DOUBLE_EQ(st.task_manager_hours, 2.0);   // 2 slots per TaskManager
  EXPECT_EQ(st.rescales, 0);
  EXPECT_EQ(st.slo_violation_seconds, 0);
  // One reader carries 100000/s (16 partitions x 6250/s < 158163): the oracle drops to 1 slot at
  // t = 0 for free.
  EXPECT_DOUBLE_EQ(oracle.slot_hours, 1.0);
  EXPECT_EQ(oracle.rescales, 1);
  EXPECT_EQ(oracle.downtime_seconds, 0);
  EXPECT_DOUBLE_EQ(r.oracle_slot_hours, 1.0);
  EXPECT_DOUBLE_EQ(*st.ratio_to_oracle, 4.0);
  EXPECT_DOUBLE_EQ(*oracle.ratio_to_oracle, 1.0);
  EXPECT_EQ(st.final_parallelism.at("bid-projection"), 4);
  EXPECT_EQ(oracle.final_parallelism.at("bid-projection"), 1);
}

TEST(Simulator, UnderProvisionedStaticViolatesTheLagSlo) {
  // Input 2 x capacity on one reader: pending grows by C per second, lag = C t / 2C = t / 2 s,
  // above 30.25 s from t = 61 on: 540 of 600 s violate; max lag 300 s of input.
  Scenario s = Parse(R"(
job: {library: q1, parallelism: 1}
workload: {type: constant, rate: 316326.530612244898}
duration: 10 min
slo: {lag: 30.25}
policies: [static]
)");
  const SimulationReport r = Simulate(s);
  ASSERT_EQ(r.policies.size(), 1u);
  EXPECT_DOUBLE_EQ(r.policies[0].slo_violation_seconds, 540);
  EXPECT_NEAR(r.policies[0].max_lag_seconds, 300, 1e-6);
  EXPECT_NEAR(r.policies[0].max_lag_records, 600 * kQ1Capacity, 1e-3);
  // The oracle bound was computed even though the scenario did not list it: 2C over 16
  // partitions needs ceil(16 / p) * 2C / 16 <= C -> p = 2 readers.
  EXPECT_DOUBLE_EQ(r.oracle_slot_hours, 2.0 / 6);
  EXPECT_DOUBLE_EQ(*r.policies[0].ratio_to_oracle, 0.5);
}

TEST(Simulator, ConvergenceAfterEachWorkloadChange) {
  const Scenario s = Parse(R"(
job: {library: q1, parallelism: 1}
workload: {type: step, rate: 100000, steps: [{at: 10 min, rate: 400000}, {at: 20 min, rate: 100000}]}
duration: 30 min
policies: [static, oracle]
)");
  EXPECT_EQ(s.change_points, (std::vector<double>{600, 1200}));
  const SimulationReport r = Simulate(s);
  const PolicyReport& st = r.policies[0];
  const PolicyReport& oracle = r.policies[1];
  ASSERT_EQ(st.changes.size(), 2u);
  // Static stays at 1 reader: after 10 min the lag grows without bound -> never converges in
  // that window; after the drop back it keeps draining at 58163/s, still far behind.
  EXPECT_EQ(st.changes[0].rescales, 0);
  EXPECT_FALSE(st.changes[0].seconds_to_converge.has_value());
  EXPECT_FALSE(st.changes[1].seconds_to_converge.has_value());
  // The oracle rescales exactly at each change, for free: converged at once.
  ASSERT_EQ(oracle.changes.size(), 2u);
  EXPECT_EQ(oracle.changes[0].rescales, 1);
  EXPECT_EQ(oracle.changes[0].seconds_to_converge, 0.0);
  EXPECT_EQ(oracle.changes[1].rescales, 1);
  EXPECT_EQ(oracle.changes[1].seconds_to_converge, 0.0);
  EXPECT_EQ(oracle.slo_violation_seconds, 0);
  // 1 slot for 20 min, 4 slots (400000 / 158163 -> 3 readers own 6 partitions = 150000 < C?
  // ceil(16/3) = 6 -> 6/16 x 400000 = 150000 <= 158163: 3 slots) for 10 min.
  EXPECT_DOUBLE_EQ(oracle.slot_hours, (20 * 1 + 10 * 3) / 60.0);
}

TEST(Simulator, SameSeedSameBytesOtherSeedOtherBytes) {
  const std::string yaml = R"(
name: q5-daily-noise
job: {library: q5, parallelism: 4, partitions: 16}
workload:
  type: noise
  stddev: 0.2
  interval: 30 s
  of: {type: daily, trough: 20000, peak: 110000, period: 6h}
duration: 6h
step: 5 s
decisionInterval: 1 min
seed: SEED
policies: [static, oracle]
)";
  auto with_seed = [&](int seed) {
    std::string y = yaml;
    y.replace(y.find("SEED"), 4, std::to_string(seed));
    return ReportToText(Simulate(Parse(y)), /*include_timing=*/false);
  };
  const std::string a = with_seed(7);
  const std::string b = with_seed(7);
  const std::string c = with_seed(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a.find("\"scenario\": \"q5-daily-noise\""), std::string::npos);
  EXPECT_EQ(a.find("cpuSeconds"), std::string::npos);  // timing only when asked
}

TEST(Simulator, PerSourceWorkloadAndDefault) {
  const Scenario s = Parse(R"(
job: {library: q8, parallelism: 2, partitions: 8}
workload:
  persons: 1000
  default: {type: constant, rate: 3000}
duration: 2 min
policies: [static]
)");
  ASSERT_EQ(s.workload.size(), 2u);
  EXPECT_EQ(s.workload.at("persons")->Rate(0), 1000);
  EXPECT_EQ(s.workload.at("auctions")->Rate(0), 3000);
}

TEST(Simulator, ScenarioErrorsNameTheField) {
  EXPECT_EQ(ParseError("{job: {library: q1}, duration: 1h}"), "workload: required field is missing");
  EXPECT_EQ(ParseError("{job: {library: q1}, workload: 5, duration: 0}"), "duration: must be greater than 0");
  EXPECT_EQ(ParseError("{job: {library: q8}, workload: {persons: 5}, duration: 1h}"),
            "workload.auctions: no profile for source \"auctions\" (add it or a \"default\")");
  EXPECT_EQ(ParseError("{job: {library: q1}, workload: {bids: 5, default: 1}, duration: 1h}"),
            "workload.bids: unknown field (not a source vertex of the job)");
  EXPECT_EQ(ParseError("{job: {library: q1}, workload: {type: spike, base: 1, peak: 2, at: 5}, duration: 1h}"),
            "workload.duration: required field is missing");
  EXPECT_EQ(ParseError("{job: {library: q1}, workload: 5, duration: 1h, policies: [static, static]}"),
            "policies[1]: duplicate policy \"static\"");
  EXPECT_EQ(ParseError("{job: {vertices: [{id: a, partitions: 2}]}, workload: 5, duration: 1h}"),
            "job.vertices[0].capacityPerSubtask: required field is missing");
  EXPECT_EQ(ParseError("{job: {library: q1}, workload: 5, duration: 1h, stepp: 1}"), "stepp: unknown field");
}

TEST(Simulator, UnknownPolicyFailsTheRun) {
  const Scenario s = Parse("{job: {library: q1}, workload: 5, duration: 1 min, policies: [static, hpa-cpu]}");
  StatusOr<SimulationReport> r = RunScenario(s, DefaultPolicyRegistry());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "policies[1]: unknown policy \"hpa-cpu\" (known: oracle, static)");
}

}  // namespace
}  // namespace trimtab::sim
