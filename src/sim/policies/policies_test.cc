// The real policies on short scenarios: determinism, the adapter, and behaviour that the
// benchmark's claims rest on (trimtab near the oracle after a step, steadier than flink-compat
// on noise, hpa-cpu moving the whole job together).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/policies/flink_metrics_adapter.h"
#include "sim/policies/flink_policy.h"
#include "sim/policies/observed_run.h"
#include "sim/policies/registry.h"
#include "sim/report_html.h"
#include "sim/simulator.h"

namespace trimtab::sim {
namespace {

SimulationReport Simulate(const Scenario& s) {
  StatusOr<SimulationReport> r = RunScenario(s, AllPoliciesRegistry());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : SimulationReport{};
}

const PolicyReport& Get(const SimulationReport& r, const std::string& name) {
  for (const PolicyReport& p : r.policies) {
    if (p.policy == name) return p;
  }
  ADD_FAILURE() << "no policy " << name;
  static const PolicyReport kNone;
  return kNone;
}

// Two scenarios of the public suite (bench/autoscaling/scenarios), so the assertions below are
// the benchmark's claims on the benchmark's inputs: q5 whose input triples at 3 h (12 h), and q5
// at a steady 80,000 records/s with 15 % noise (1 day).
Scenario Bench(const std::string& name) {
  StatusOr<Json> doc = [&]() -> StatusOr<Json> {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text,
                             ReadFile(std::string(TRIMTAB_SOURCE_DIR) +
                                      "/bench/autoscaling/scenarios/" + name + ".yaml"));
    return ParseYaml(text, name);
  }();
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  if (!doc.ok()) return Scenario{};
  (*doc)["policies"] = ComparedPolicyNames();
  StatusOr<Scenario> s = ParseScenario(*doc);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : Scenario{};
}

TEST(FlinkMetricsAdapter, AggregatesSubtasksAsTheRestCollector) {
  JobMetrics m;
  m.time_seconds = 600;
  m.state_time_seconds = 120;
  m.slots = 3;
  m.task_managers = 2;
  m.slots_per_task_manager = 2;
  m.heap_used_bytes = 1e9;
  m.heap_max_bytes = 4e9;
  m.gc_time_ms_per_second = 12;
  VertexMetrics src;
  src.id = "src";
  src.is_source = true;
  src.busy_ms_per_second_avg = 500;
  src.busy_ms_per_second_max = 700;
  src.records_in_per_second = 1000;
  src.num_records_in = 5e5;
  src.pending_records = 42;
  src.subtasks.resize(2);
  src.subtasks[0].busy_ms_per_second = 300;
  src.subtasks[1].busy_ms_per_second = 700;
  VertexMetrics op = src;
  op.id = "op";
  op.is_source = false;
  m.vertices = {src, op};

  const TimePoint t = SimTimePoint(600);
  core::flink::RawSample raw = ToAutoscalerSample(m, t);
  EXPECT_EQ(raw.time, t);
  const core::flink::RawVertexMetrics& s = raw.vertices.at("src");
  EXPECT_EQ(s.busy_time_min, 300);
  EXPECT_EQ(s.busy_time_max, 700);
  EXPECT_EQ(s.busy_time_avg, 500);
  EXPECT_EQ(s.num_records_in_per_second, 1000);
  EXPECT_EQ(s.pending_records, 42);
  EXPECT_FALSE(raw.vertices.at("op").pending_records.has_value());  // only sources have lag
  EXPECT_EQ(raw.job.task_slots_total, 4);
  EXPECT_EQ(raw.job.task_slots_available, 1);
  EXPECT_EQ(raw.job.heap_max, 4e9);
  EXPECT_STREQ(FlinkJobStatus(m), "RUNNING");
  EXPECT_EQ(JobRunningSince(m), SimTimePoint(480));
  m.state = JobState::kRestarting;
  EXPECT_FALSE(JobRunningSince(m).has_value());
  EXPECT_EQ(ToUnixMillis(SimTimePoint(0)), 1'704'067'200'000);
}

TEST(Policies, RegistryHoldsAllFive) {
  std::vector<std::string> names = AllPoliciesRegistry().Names();
  for (const std::string& n : ComparedPolicyNames()) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
}

TEST(Policies, ConfigErrorsNameTheField) {
  StatusOr<Json> bad = ParseYaml("{plugins: [], colour: red}", "config");
  ASSERT_TRUE(bad.ok());
  StatusOr<std::unique_ptr<ScalingPolicy>> p = MakeTrimtabPolicy(*bad);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("config.colour"), std::string::npos) << p.status().message();

  StatusOr<Json> util = ParseYaml("{configuration: {job.autoscaler.utilization.target: 7}}", "c");
  ASSERT_TRUE(util.ok());
  p = MakeFlinkCompatPolicy(*util);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("utilization.target"), std::string::npos)
      << p.status().message();

  StatusOr<Json> plugin = ParseYaml("{plugins: [{type: no-such-plugin}]}", "c");
  ASSERT_TRUE(plugin.ok());
  p = MakeTrimtabPolicy(*plugin);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("config.plugins"), std::string::npos)
      << p.status().message();
}

TEST(Policies, SameScenarioAndSeedGiveByteIdenticalJson) {
  const Scenario s = Bench("step-up");
  const std::string first = ReportToText(Simulate(s), false);
  const std::string second = ReportToText(Simulate(s), false);
  EXPECT_EQ(first, second);
  // The observing harness (progress, traces) does not change what the policies do.
  ObserveOptions o;
  o.record_traces = true;
  int calls = 0;
  o.progress = [&](size_t, const std::string&, double, double) { ++calls; };
  StatusOr<ObservedRun> observed = RunScenarioObserved(s, AllPoliciesRegistry(), o);
  ASSERT_TRUE(observed.ok()) << observed.status().ToString();
  EXPECT_EQ(ReportToText(observed->report, false), first);
  EXPECT_GT(calls, 5);
  ASSERT_EQ(observed->traces.size(), 5u);
  for (const PolicyTrace& t : observed->traces) EXPECT_GE(t.points.size(), 200u) << t.policy;
}

TEST(Policies, DecisionLogHasEveryCycleAndChangesNothing) {
  const Scenario s = Bench("step-up");
  const std::string plain = ReportToText(Simulate(s), false);
  ObserveOptions o;
  std::map<std::string, std::vector<Json>> cycles;
  std::map<std::string, std::set<double>> times;
  o.explain = [&](size_t, const std::string& policy, double t, const Json& cycle) {
    cycles[policy].push_back(cycle);
    times[policy].insert(t);
  };
  StatusOr<ObservedRun> observed = RunScenarioObserved(s, AllPoliciesRegistry(), o);
  ASSERT_TRUE(observed.ok()) << observed.status().ToString();
  EXPECT_EQ(ReportToText(observed->report, false), plain);
  // static and the oracle decide nothing worth a record; the three controllers log every cycle
  // (12 h at one decision a minute), once each.
  EXPECT_EQ(cycles.size(), 3u);
  for (const char* policy : {"trimtab", "flink-compat", "hpa-cpu"}) {
    EXPECT_EQ(cycles[policy].size(), 719u) << policy;
    EXPECT_EQ(times[policy].size(), cycles[policy].size()) << policy;
  }
  // trimtab's cycles: mostly no change, each with its stages; the rescales carry the chain's
  // verdict and what was applied, and agree with the report's decisions.
  std::map<std::string, int> outcomes;
  int applied = 0;
  for (const Json& c : cycles["trimtab"]) {
    ++outcomes[c.at("outcome").get<std::string>()];
    EXPECT_TRUE(c.at("stages").contains("evaluate"));
    if (!c.at("applied").empty()) {
      ++applied;
      ASSERT_TRUE(c.contains("chain"));
      EXPECT_EQ(c["chain"][0]["plugin"], "restart-cost-gate");
      EXPECT_EQ(c["chain"][0]["verdict"], "approve");
    }
  }
  EXPECT_GT(outcomes["NoChange"], 500);
  EXPECT_GT(outcomes["Stabilizing"], 0);
  EXPECT_EQ(applied, Get(observed->report, "trimtab").rescales);
  // hpa-cpu's cycles are the HPA controller's own record.
  EXPECT_TRUE(cycles["hpa-cpu"].front().contains("desiredReplicas"))
      << cycles["hpa-cpu"].front().dump();
}

TEST(Policies, StepUpTrimtabNearTheOracleInFewSteps) {
  const SimulationReport r = Simulate(Bench("step-up"));
  const PolicyReport& trimtab = Get(r, "trimtab");
  const PolicyReport& compat = Get(r, "flink-compat");
  const PolicyReport& fixed = Get(r, "static");
  // Cheaper than upstream defaults and close to the bound.
  ASSERT_TRUE(trimtab.ratio_to_oracle.has_value());
  EXPECT_LE(*trimtab.ratio_to_oracle, 1.35);
  EXPECT_LT(trimtab.slot_hours, compat.slot_hours);
  // Kept up after the step: few restarts, converged, lag far below the static job's.
  ASSERT_EQ(trimtab.changes.size(), 1u);
  EXPECT_LE(trimtab.changes[0].rescales, 3);
  EXPECT_TRUE(trimtab.changes[0].seconds_to_converge.has_value());
  EXPECT_LT(trimtab.slo_violation_seconds, 0.05 * r.duration_seconds);
  EXPECT_LT(trimtab.slo_violation_seconds, compat.slo_violation_seconds * 2);
  EXPECT_LT(trimtab.max_lag_seconds, fixed.max_lag_seconds / 10);
  // Every rescale carries the decision log: the evaluate line and the reasons of each vertex.
  ASSERT_FALSE(trimtab.decisions.empty());
  for (const DecisionRecord& d : trimtab.decisions) {
    bool evaluate = false, reason = false;
    for (const std::string& r : d.reasons) {
      evaluate = evaluate || r.rfind("evaluate ", 0) == 0;
      reason = reason || r.find("(outside utilization band)") != std::string::npos;
    }
    EXPECT_TRUE(evaluate && reason) << "decision at " << d.time_seconds;
  }
}

TEST(Policies, ThePluginChainDecidesWhatIsApplied) {
  // A budget cap of 4 slots in trimtab's chain: scale-ups are cut to 4, and the chain's verdict
  // is in the decision's reasons.
  Scenario s = Bench("step-up");
  StatusOr<Json> config = ParseYaml(
      "{plugins: [{type: budget-cap, config: {maxSlotsPerJob: 4}}]}", "config");
  ASSERT_TRUE(config.ok());
  s.policies = {PolicySpec{"trimtab", std::make_shared<const Json>(*config)}};
  const SimulationReport r = Simulate(s);
  const PolicyReport& capped = Get(r, "trimtab");
  EXPECT_EQ(capped.max_slots, 4);
  bool modified = false;
  for (const DecisionRecord& d : capped.decisions) {
    for (const std::string& reason : d.reasons) {
      modified = modified || reason.rfind("chain: budget-cap modify", 0) == 0;
    }
  }
  EXPECT_TRUE(modified);
}

TEST(Policies, HpaCpuMovesTheWholeJobInTaskManagerSteps) {
  const SimulationReport r = Simulate(Bench("step-up"));
  const PolicyReport& hpa = Get(r, "hpa-cpu");
  ASSERT_GT(hpa.rescales, 0);
  for (const DecisionRecord& d : hpa.decisions) {
    std::set<int> values;
    for (const auto& [id, p] : d.to) values.insert(p);
    EXPECT_EQ(values.size(), 1u) << "decision at " << d.time_seconds;
    EXPECT_EQ(*values.begin() % 2, 0);  // q5 TaskManagers have 2 slots
  }
}

TEST(Policies, NoisyPlateauTrimtabRestartsLessThanFlinkCompat) {
  const SimulationReport r = Simulate(Bench("noisy-plateau"));
  const PolicyReport& trimtab = Get(r, "trimtab");
  const PolicyReport& compat = Get(r, "flink-compat");
  EXPECT_LT(trimtab.rescales, compat.rescales);
  EXPECT_LT(trimtab.downtime_seconds, compat.downtime_seconds);
  EXPECT_LT(trimtab.slo_violation_seconds, 0.005 * r.duration_seconds);
  // ... at a cost near the bound.
  ASSERT_TRUE(trimtab.ratio_to_oracle.has_value());
  EXPECT_LE(*trimtab.ratio_to_oracle, 1.2);
}

TEST(ReportHtml, SelfContainedWithChartsAndReasons) {
  ObserveOptions o;
  o.record_traces = true;
  StatusOr<ObservedRun> run = RunScenarioObserved(Bench("step-up"), AllPoliciesRegistry(), o);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  HtmlReportInput in;
  in.report = &run->report;
  in.description = "a <step> & more";
  in.traces = run->traces;
  const std::string html = RenderHtmlReport(in);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("a &lt;step&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // No external assets: the only URLs are the SVG namespace.
  for (size_t at = html.find("://"); at != std::string::npos; at = html.find("://", at + 1)) {
    EXPECT_EQ(html.compare(at, 22, "://www.w3.org/2000/svg"), 0) << html.substr(at - 8, 40);
  }
  // Slots for all policies, then three charts per traced policy.
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 1 + 3 * run->traces.size());
  EXPECT_NE(html.find("(outside utilization band)"), std::string::npos);
}

TEST(ReportHtml, ListsTheChangesThePluginChainHeld) {
  // A restart-cost gate that prices every restart at a day: after the step, trimtab wants to
  // scale up every cycle and the gate vetoes it every time.
  Scenario s = Bench("step-up");
  StatusOr<Json> config = ParseYaml(
      "{plugins: [{type: restart-cost-gate, config: {restartSeconds: 86400}}]}", "config");
  ASSERT_TRUE(config.ok());
  s.policies = {PolicySpec{"trimtab", std::make_shared<const Json>(*config)}};
  ObserveOptions o;
  o.record_traces = true;
  StatusOr<ObservedRun> run = RunScenarioObserved(s, AllPoliciesRegistry(), o);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // (Scale-downs are not gated without scaleDownRecordsPerSlotSecond: the one before the step
  // passes.)
  for (const DecisionRecord& d : Get(run->report, "trimtab").decisions) {
    EXPECT_LT(d.time_seconds, 3 * 3600) << "a rescale after the step";
  }
  const PolicyTrace& trace = run->traces.at(0);
  ASSERT_EQ(trace.policy, "trimtab");
  ASSERT_FALSE(trace.held.empty());
  int cycles = 0;
  for (const HeldChange& h : trace.held) {
    EXPECT_EQ(h.why.rfind("vetoed by restart-cost-gate: expected benefit ", 0), 0u) << h.why;
    EXPECT_FALSE(h.wanted.empty());
    EXPECT_EQ(h.from.size(), h.wanted.size());
    EXPECT_LE(h.first_seconds, h.last_seconds);
    cycles += h.cycles;
  }
  // From the step at 3 h to the end, one cycle a minute: one run, a scale-up growing with the
  // backlog.
  EXPECT_GT(cycles, 500);
  EXPECT_EQ(trace.held.size(), 1u);
  EXPECT_GT(trace.held.front().wanted.at("hop-count"), trace.held.front().from.at("hop-count"));
  HtmlReportInput in;
  in.report = &run->report;
  in.traces = run->traces;
  const std::string html = RenderHtmlReport(in);
  EXPECT_NE(html.find("Changes the autoscaler wanted but its plugin chain vetoed"),
            std::string::npos);
  EXPECT_NE(html.find("vetoed by restart-cost-gate: expected benefit"), std::string::npos);
}

// Splits CSV text without quoted fields into rows of fields.
std::vector<std::vector<std::string>> SplitCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    std::vector<std::string> fields;
    size_t from = 0;
    while (true) {
      const size_t comma = line.find(',', from);
      fields.push_back(line.substr(from, comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

TEST(SeriesCsv, OneRowPerSampleWithTheRunsFigures) {
  Scenario s = Bench("step-up");
  s.policies = {PolicySpec{"trimtab", std::make_shared<const Json>()},
                PolicySpec{"oracle", std::make_shared<const Json>()}};
  ObserveOptions o;
  o.record_traces = true;
  StatusOr<ObservedRun> run = RunScenarioObserved(s, AllPoliciesRegistry(), o);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::vector<VertexId> ids;
  for (const VertexSpec& v : s.job.vertices) ids.push_back(v.id);
  const auto rows = SplitCsv(RenderSeriesCsv(run->traces, ids));
  ASSERT_FALSE(rows.empty());
  const std::vector<std::string> header = {
      "policy", "seconds", "inputRate", "capacity", "lagSeconds", "slots", "downSeconds",
      "inRestartWindow", "sloViolationOutsideRestartsSeconds", "parallelism:source",
      "parallelism:hop-count", "parallelism:max-join", "parallelism:sink"};
  EXPECT_EQ(rows[0], header);
  ASSERT_EQ(rows.size(), 1 + run->traces[0].points.size() + run->traces[1].points.size());
  std::map<std::string, double> down;
  std::map<std::string, int> in_window;
  std::map<std::string, double> last_violation;
  std::map<std::string, std::set<std::string>> hop_count;
  for (size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string>& row = rows[r];
    ASSERT_EQ(row.size(), header.size()) << r;
    const std::string& policy = row[0];
    // Slot sharing: the slots are the largest vertex parallelism.
    int largest = 0;
    for (size_t c = 9; c < row.size(); ++c) largest = std::max(largest, std::stoi(row[c]));
    EXPECT_EQ(std::stoi(row[5]), largest) << r;
    down[policy] += std::stod(row[6]);
    in_window[policy] += row[7] == "1";
    const double violation = std::stod(row[8]);
    EXPECT_GE(violation, last_violation[policy]) << "a running total, row " << r;
    last_violation[policy] = violation;
    hop_count[policy].insert(row[10]);
  }
  // trimtab's rescales show as restarts, restart windows and parallelism changes; the oracle
  // rescales for free and carries its load without lag.
  // Whole steps: each restart counts to within a step of its exact downtime.
  const PolicyReport& trimtab = Get(run->report, "trimtab");
  ASSERT_GT(trimtab.rescales, 0);
  EXPECT_NEAR(down["trimtab"], trimtab.downtime_seconds, s.step_seconds * trimtab.rescales);
  EXPECT_GT(in_window["trimtab"], 0);
  EXPECT_GT(hop_count["trimtab"].size(), 1u);
  EXPECT_EQ(down["oracle"], 0);
  EXPECT_EQ(last_violation["oracle"], 0);
  // The running total ends where the run's own figure does, less the samples after the last row.
  const double total = run->restarts[0].violation_outside_restarts_seconds;
  EXPECT_LE(last_violation["trimtab"], total);
  EXPECT_GE(last_violation["trimtab"], total - s.decision_interval_seconds);
}

TEST(SeriesCsv, QuotesWhatNeedsItAndLeavesUnknownsEmpty) {
  PolicyTrace trace;
  trace.policy = "my,policy";
  TracePoint p;
  p.time_seconds = 60;
  p.input_rate = 1234567.0;
  p.capacity = 0;  // unknown
  p.lag_seconds = 0.5;
  p.slots = 3;
  p.down_seconds = 12.5;
  p.in_restart_window = true;
  p.violation_outside_restarts_seconds = 15;
  p.parallelism = {{"a", 3}};
  trace.points.push_back(p);
  EXPECT_EQ(RenderSeriesCsv({trace}, {"a", "b\"x"}),
            "policy,seconds,inputRate,capacity,lagSeconds,slots,downSeconds,inRestartWindow,"
            "sloViolationOutsideRestartsSeconds,parallelism:a,\"parallelism:b\"\"x\"\n"
            "\"my,policy\",60,1.23457e+06,,0.5,3,12.5,1,15,3,\n");
}

}  // namespace
}  // namespace trimtab::sim
