#include "core/hpa/replica_calculator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace trimtab::core::hpa {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kNow = FromUnixMillis(1714564800000);  // 2024-05-01T12:00:00Z

// upstream's defaultTesting* constants
ReplicaCalculatorOptions TestingOptions() {
  ReplicaCalculatorOptions o;
  o.cpu_initialization_period = minutes(2);
  o.initial_readiness_delay = seconds(10);
  return o;
}
const Tolerances kTolerances{0.1, 0.1};

Quantity Q(const std::string& s) { return *Quantity::Parse(s); }

// How upstream's fixture starts a pod: 'h' hot (started now, inside the CPU initialization
// period), 'c' cool (started 3 minutes ago), ' ' the zero time.
TimePoint StartTime(char kind) {
  if (kind == 'h') return kNow;
  if (kind == 'c') return kNow - minutes(3);
  return TimePoint{};
}

// The shape of upstream's replicaCalcTestCase: pods test-pod-<i>, each with two containers
// requesting requests[i]; every container of a sampled pod uses levels[i] milli-units.
struct Fixture {
  int32_t current = 0;
  std::vector<std::string> requests;
  std::vector<int64_t> levels;
  std::vector<std::string> sample_pod_names;
  std::vector<bool> ready;
  std::string start;  // one char per pod
  std::vector<PodPhase> phases;
  std::vector<bool> deleted;

  std::vector<PodInfo> Pods(const std::string& resource) const {
    std::vector<PodInfo> pods;
    const size_t n = std::max<size_t>(current, phases.size());
    for (size_t i = 0; i < n; ++i) {
      PodInfo p;
      p.name = "test-pod-" + std::to_string(i);
      p.ready = i < ready.size() ? ready[i] : true;
      p.ready_transition_time = TimePoint{};
      p.start_time = StartTime(i < start.size() ? start[i] : ' ');
      if (i < phases.size()) p.phase = phases[i];
      if (i < deleted.size()) p.deleted = deleted[i];
      for (int c = 0; c < 2; ++c) {
        ContainerInfo ci;
        ci.name = "container" + std::to_string(c);
        if (i < requests.size()) ci.requests[resource] = Q(requests[i]);
        p.containers.push_back(ci);
      }
      pods.push_back(p);
    }
    return pods;
  }

  PodSamples ResourceSamples() const {
    PodSamples s;
    s.timestamp = TimePoint{};
    s.window = seconds(60);
    for (size_t i = 0; i < levels.size(); ++i) {
      PodSample sample;
      sample.pod =
          i < sample_pod_names.size() ? sample_pod_names[i] : "test-pod-" + std::to_string(i);
      sample.containers["container0"] = Quantity::FromMilli(levels[i]);
      sample.containers["container1"] = Quantity::FromMilli(levels[i]);
      s.samples.push_back(sample);
    }
    return s;
  }

  PodSamples CustomSamples() const {
    PodSamples s;
    s.timestamp = TimePoint{};
    for (size_t i = 0; i < levels.size(); ++i) {
      s.samples.push_back({"test-pod-" + std::to_string(i), Quantity::FromMilli(levels[i]), {}});
    }
    return s;
  }
};

struct ResourceCase {
  std::string name;
  Fixture f;
  int32_t target_utilization;
  int32_t expected_replicas;
  int32_t expected_utilization;
  int64_t expected_value;
  std::string expected_error;
};

const std::vector<std::string> k1x3 = {"1.0", "1.0", "1.0"};
const std::vector<std::string> k1x5 = {"1.0", "1.0", "1.0", "1.0", "1.0"};
const std::vector<std::string> k1x7 = {"1.0", "1.0", "1.0", "1.0", "1.0", "1.0", "1.0"};
constexpr PodPhase kRun = PodPhase::kRunning;
constexpr PodPhase kFail = PodPhase::kFailed;
constexpr PodPhase kPend = PodPhase::kPending;

// Values from upstream replica_calculator_test.go (TestReplicaCalc*).
TEST(GetResourceReplicasTest, UpstreamTable) {
  const std::vector<ResourceCase> cases = {
      {"ScaleUp", {.current = 3, .requests = k1x3, .levels = {300, 500, 700}}, 30, 5, 50, 1000, ""},
      {"ScaleUpUnreadyLessScale",
       {.current = 3, .requests = k1x3, .levels = {300, 500, 700}, .ready = {false, true, true}},
       30,
       4,
       60,
       1200,
       ""},
      {"ScaleUpHotCpuLessScale",
       {.current = 3, .requests = k1x3, .levels = {300, 500, 700}, .start = "hcc"},
       30,
       4,
       60,
       1200,
       ""},
      {"ScaleUpUnreadyNoScale",
       {.current = 3, .requests = k1x3, .levels = {400, 500, 700}, .ready = {true, false, false}},
       30,
       3,
       40,
       800,
       ""},
      {"ScaleHotCpuNoScale",
       {.current = 3,
        .requests = k1x3,
        .levels = {400, 500, 700},
        .ready = {true, false, false},
        .start = "chh"},
       30,
       3,
       40,
       800,
       ""},
      {"ScaleUpIgnoresFailedPods",
       {.current = 2,
        .requests = {"1.0", "1.0", "1.0", "1.0"},
        .levels = {500, 700},
        .ready = {true, true, false, false},
        .phases = {kRun, kRun, kFail, kFail}},
       30,
       4,
       60,
       1200,
       ""},
      {"ScaleUpIgnoresDeletionPods",
       {.current = 2,
        .requests = {"1.0", "1.0", "1.0", "1.0"},
        .levels = {500, 700},
        .ready = {true, true, false, false},
        .phases = {kRun, kRun, kRun, kRun},
        .deleted = {false, false, true, true}},
       30,
       4,
       60,
       1200,
       ""},
      {"ScaleDown",
       {.current = 5, .requests = k1x5, .levels = {100, 300, 500, 250, 250}},
       50,
       3,
       28,
       560,
       ""},
      {"ScaleDownIncludeUnreadyPods",
       {.current = 5,
        .requests = k1x5,
        .levels = {100, 300, 500, 250, 250},
        .ready = {true, true, true, false, false}},
       50,
       2,
       30,
       600,
       ""},
      {"ScaleDownExcludeUnscheduledPods",
       {.current = 5,
        .requests = k1x5,
        .levels = {100},
        .ready = {true, false, false, false, false},
        .phases = {kRun, kPend, kPend, kPend, kPend}},
       50,
       1,
       10,
       200,
       ""},
      {"ScaleDownIgnoreHotCpuPods",
       {.current = 5, .requests = k1x5, .levels = {100, 300, 500, 250, 250}, .start = "ccchh"},
       50,
       2,
       30,
       600,
       ""},
      {"ScaleDownIgnoresFailedPods",
       {.current = 5,
        .requests = k1x7,
        .levels = {100, 300, 500, 250, 250},
        .ready = {true, true, true, true, true, false, false},
        .phases = {kRun, kRun, kRun, kRun, kRun, kFail, kFail}},
       50,
       3,
       28,
       560,
       ""},
      {"ScaleDownIgnoresDeletionPods",
       {.current = 5,
        .requests = k1x7,
        .levels = {100, 300, 500, 250, 250},
        .ready = {true, true, true, true, true, false, false},
        .phases = {kRun, kRun, kRun, kRun, kRun, kRun, kRun},
        .deleted = {false, false, false, false, false, true, true}},
       50,
       3,
       28,
       560,
       ""},
      {"Tolerance",
       {.current = 3, .requests = {"0.9", "1.0", "1.1"}, .levels = {1010, 1030, 1020}},
       100,
       3,
       102,
       2040,
       ""},
      {"SuperfluousMetrics",
       {.current = 4,
        .requests = {"1.0", "1.0", "1.0", "1.0"},
        .levels = {4000, 9500, 3000, 7000, 3200, 2000}},
       100,
       24,
       587,
       11750,
       ""},
      {"MissingMetrics",
       {.current = 4, .requests = {"1.0", "1.0", "1.0", "1.0"}, .levels = {400, 95}},
       100,
       3,
       24,
       495,
       ""},
      {"MissingMetricsNoChangeEq",
       {.current = 2, .requests = {"1.0", "1.0"}, .levels = {1000}},
       100,
       2,
       100,
       2000,
       ""},
      {"MissingMetricsNoChangeGt",
       {.current = 2, .requests = {"1.0", "1.0"}, .levels = {1900}},
       100,
       2,
       190,
       3800,
       ""},
      {"MissingMetricsNoChangeLt",
       {.current = 2, .requests = {"1.0", "1.0"}, .levels = {600}},
       100,
       2,
       60,
       1200,
       ""},
      {"MissingMetricsUnreadyChange",
       {.current = 3, .requests = k1x3, .levels = {100, 450}, .ready = {false, true, true}},
       50,
       3,
       45,
       900,
       ""},
      {"MissingMetricsHotCpuNoChange",
       {.current = 3, .requests = k1x3, .levels = {100, 450}, .start = "hcc"},
       50,
       3,
       45,
       900,
       ""},
      {"MissingMetricsUnreadyScaleUp",
       {.current = 3, .requests = k1x3, .levels = {100, 2000}, .ready = {false, true, true}},
       50,
       4,
       200,
       4000,
       ""},
      {"MissingMetricsHotCpuScaleUp",
       {.current = 3,
        .requests = k1x3,
        .levels = {100, 2000},
        .ready = {false, true, true},
        .start = "hcc"},
       50,
       4,
       200,
       4000,
       ""},
      {"MissingMetricsUnreadyScaleDown",
       {.current = 4,
        .requests = {"1.0", "1.0", "1.0", "1.0"},
        .levels = {100, 100, 100},
        .ready = {false, true, true, true}},
       50,
       3,
       10,
       200,
       ""},
      {"DuringRollingUpdateWithMaxSurge",
       {.current = 2, .requests = k1x3, .levels = {100, 100}, .phases = {kRun, kRun, kRun}},
       50,
       2,
       10,
       200,
       ""},
      {"DisjointResourcesMetrics",
       {.current = 1,
        .requests = {"1.0"},
        .levels = {100},
        .sample_pod_names = {"an-older-pod-name"}},
       100,
       0,
       0,
       0,
       "no metrics returned matched known pods"},
      {"EmptyMetrics",
       {.current = 4, .requests = k1x3, .levels = {}},
       100,
       0,
       0,
       0,
       "unable to get metrics for resource cpu: no metrics returned from resource metrics API"},
      {"EmptyCPURequest",
       {.current = 1, .requests = {}, .levels = {200}},
       100,
       0,
       0,
       0,
       "missing request for cpu in container container0 of Pod test-pod-0"},
  };
  for (const ResourceCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = GetResourceReplicas(c.f.current, c.target_utilization, "cpu", "", kTolerances,
                                 c.f.Pods("cpu"), c.f.ResourceSamples(), kNow, TestingOptions());
    if (!c.expected_error.empty()) {
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find(c.expected_error), std::string::npos)
          << r.status().message();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->replicas, c.expected_replicas);
    EXPECT_EQ(r->utilization, c.expected_utilization);
    EXPECT_EQ(r->usage, c.expected_value);
    ASSERT_TRUE(r->timestamp.has_value());
    EXPECT_EQ(*r->timestamp, TimePoint{});
  }
}

// Values from upstream TestReplicaCalcComputedToleranceAlgImplementation: 10 pods using 150m
// of ~300m requests (50%), target 56% -> 9 replicas; target 55% is within tolerance -> 10.
TEST(GetResourceReplicasTest, ComputedToleranceBoundary) {
  Fixture f{
      .current = 10,
      .requests = {"400m", "200m", "310m", "290m", "302m", "298m", "301m", "299m", "300m", "300m"},
      .levels = std::vector<int64_t>(10, 150)};
  auto scaled = GetResourceReplicas(10, 56, "cpu", "", kTolerances, f.Pods("cpu"),
                                    f.ResourceSamples(), kNow, TestingOptions());
  ASSERT_TRUE(scaled.ok());
  EXPECT_EQ(scaled->replicas, 9);
  EXPECT_EQ(scaled->utilization, 50);
  EXPECT_EQ(scaled->usage, 300);
  auto kept = GetResourceReplicas(10, 55, "cpu", "", kTolerances, f.Pods("cpu"),
                                  f.ResourceSamples(), kNow, TestingOptions());
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->replicas, 10);
}

TEST(GetResourceReplicasTest, ToleranceBoundsAreInclusivePerDirection) {
  // Pods at exactly 90% of a 100% target: ratio 0.9 sits on the default lower bound.
  Fixture two{.current = 2, .requests = {"1", "1"}, .levels = {900, 900}};
  auto within = GetResourceReplicas(2, 100, "cpu", "", Tolerances{0.1, 0.1}, two.Pods("cpu"),
                                    two.ResourceSamples(), kNow, TestingOptions());
  ASSERT_TRUE(within.ok());
  EXPECT_EQ(within->usage_ratio, 0.9);
  EXPECT_EQ(within->replicas, 2);
  // A 5% scale-down tolerance puts 0.9 outside the band: ceil(0.9 * 10) = 9.
  Fixture ten{.current = 10,
              .requests = std::vector<std::string>(10, "1"),
              .levels = std::vector<int64_t>(10, 900)};
  auto tight = GetResourceReplicas(10, 100, "cpu", "", Tolerances{0.05, 0.1}, ten.Pods("cpu"),
                                   ten.ResourceSamples(), kNow, TestingOptions());
  ASSERT_TRUE(tight.ok());
  EXPECT_EQ(tight->replicas, 9);
  auto loose = GetResourceReplicas(10, 100, "cpu", "", Tolerances{0.1, 0.1}, ten.Pods("cpu"),
                                   ten.ResourceSamples(), kNow, TestingOptions());
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ(loose->replicas, 10);
}

TEST(GetResourceReplicasTest, MissingPodsOnScaleDownUseTargetAboveHundredPercent) {
  // Target 200%: a missing pod is assumed at max(100, 200)% of its request on scale-down.
  // Ready pods: 2 x (2 x 500m) over 2 x 2000m = 50% -> ratio 0.25. With the missing pod at
  // 4000m: (2000 + 4000) / 6000 = 100% -> ratio 0.5 -> ceil(0.5 * 3) = 2.
  Fixture f{.current = 3, .requests = k1x3, .levels = {500, 500}};
  auto r = GetResourceReplicas(3, 200, "cpu", "", kTolerances, f.Pods("cpu"), f.ResourceSamples(),
                               kNow, TestingOptions());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->utilization, 50);
  ASSERT_TRUE(r->rebalanced_ratio.has_value());
  EXPECT_DOUBLE_EQ(*r->rebalanced_ratio, 0.5);
  EXPECT_EQ(r->replicas, 2);
}

TEST(GetResourceReplicasTest, ContainerResourceUsesOneContainer) {
  Fixture f{.current = 2, .requests = {"1", "1"}, .levels = {900, 900}};
  // container0 only: 900m of 1000m = 90% against a 45% target -> ratio 2 -> 4 replicas.
  auto r = GetResourceReplicas(2, 45, "cpu", "container0", kTolerances, f.Pods("cpu"),
                               f.ResourceSamples(), kNow, TestingOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->utilization, 90);
  EXPECT_EQ(r->replicas, 4);
  auto missing = GetResourceReplicas(2, 45, "cpu", "sidecar", kTolerances, f.Pods("cpu"),
                                     f.ResourceSamples(), kNow, TestingOptions());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "did not receive metrics for targeted pods (pods might be unready)");
}

TEST(GetResourceReplicasTest, NoPodsIsAnError) {
  Fixture f{.current = 0, .levels = {100}};
  auto r = GetResourceReplicas(1, 50, "cpu", "", kTolerances, {}, f.ResourceSamples(), kNow,
                               TestingOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "no pods returned by selector while calculating replica count");
}

struct PlainCase {
  std::string name;
  Fixture f;
  int64_t target;
  int32_t expected_replicas;
  int64_t expected_usage;
};

// Values from upstream TestReplicaCalc*CM (Pods metrics: readiness is ignored).
TEST(GetMetricReplicasTest, UpstreamTable) {
  const std::vector<PlainCase> cases = {
      {"ScaleUpCM", {.current = 3, .levels = {20000, 10000, 30000}}, 15000, 4, 20000},
      {"ScaleUpCMUnreadyHotCpuNoLessScale",
       {.current = 3,
        .levels = {50000, 10000, 30000},
        .ready = {true, true, false},
        .start = "cch"},
       15000,
       6,
       30000},
      {"ScaleUpCMUnreadyHotCpuScaleWouldScaleDown",
       {.current = 3,
        .levels = {50000, 15000, 30000},
        .ready = {false, true, false},
        .start = "hch"},
       15000,
       7,
       31666},
      {"ScaleUpCMExternalNoLabels", {.current = 1, .levels = {8600}}, 4400, 2, 8600},
      {"ScaleDownCM",
       {.current = 5, .levels = {12000, 12000, 12000, 12000, 12000}},
       20000,
       3,
       12000},
      {"ToleranceCM", {.current = 3, .levels = {20000, 21000, 21000}}, 20000, 3, 20666},
  };
  for (const PlainCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = GetMetricReplicas(c.f.current, c.target, "qps", kTolerances, c.f.Pods("cpu"),
                               c.f.CustomSamples(), kNow, TestingOptions());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->replicas, c.expected_replicas);
    EXPECT_EQ(r->usage, c.expected_usage);
  }
}

TEST(GetMetricReplicasTest, MissingPodsOnScaleDownUseTheTarget) {
  // 4 pods, 2 report 5 against a target of 10 -> ratio 0.5; the 2 missing pods count as 10:
  // (5 + 5 + 10 + 10) / 4 = 7.5 -> ratio 0.75 -> ceil(0.75 * 4) = 3.
  Fixture f{.current = 4, .levels = {5000, 5000}};
  auto r = GetMetricReplicas(4, 10000, "qps", kTolerances, f.Pods("cpu"), f.CustomSamples(), kNow,
                             TestingOptions());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->usage, 5000);
  EXPECT_DOUBLE_EQ(*r->rebalanced_ratio, 0.75);
  EXPECT_EQ(r->replicas, 3);
}

TEST(GetMetricReplicasTest, EmptyIsAnError) {
  Fixture f{.current = 1};
  auto r = GetMetricReplicas(1, 100, "qps", kTolerances, f.Pods("cpu"), std::nullopt, kNow,
                             TestingOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "unable to get metric qps: no metrics returned from custom metrics API");
}

// Values from upstream TestReplicaCalc*CMObject / *PerPodCMObject.
TEST(ObjectMetricReplicasTest, UpstreamTable) {
  Fixture three{.current = 3};
  auto up = GetObjectMetricReplicas(3, 15000, kTolerances, three.Pods("cpu"), 20000);
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->replicas, 4);
  EXPECT_FALSE(up->timestamp.has_value());

  Fixture unready{.current = 3, .ready = {false, true, false}};
  auto ignores_unready = GetObjectMetricReplicas(3, 10000, kTolerances, unready.Pods("cpu"), 50000);
  ASSERT_TRUE(ignores_unready.ok());
  EXPECT_EQ(ignores_unready->replicas, 5);  // 15 if unready pods counted

  Fixture five{.current = 5};
  EXPECT_EQ(GetObjectMetricReplicas(5, 20000, kTolerances, five.Pods("cpu"), 12000)->replicas, 3);
  EXPECT_EQ(GetObjectMetricReplicas(3, 20000, kTolerances, three.Pods("cpu"), 20666)->replicas, 3);

  const TimePoint ts = kNow - seconds(30);
  ReplicaCalcResult per_pod = GetObjectPerPodMetricReplicas(3, 5000, kTolerances, 20000, ts);
  EXPECT_EQ(per_pod.replicas, 4);
  EXPECT_EQ(per_pod.usage, 6667);
  EXPECT_EQ(per_pod.timestamp, ts);
  ReplicaCalcResult down = GetObjectPerPodMetricReplicas(5, 2000, kTolerances, 6000, ts);
  EXPECT_EQ(down.replicas, 3);
  EXPECT_EQ(down.usage, 1200);
  ReplicaCalcResult tol = GetObjectPerPodMetricReplicas(4, 5000, kTolerances, 20166, ts);
  EXPECT_EQ(tol.replicas, 4);
  EXPECT_EQ(tol.usage, 5042);
}

TEST(ObjectMetricReplicasTest, ScaleFromZeroIgnoresToleranceAndPods) {
  // current 0: ceil(ratio), no ready-pod count, no tolerance.
  EXPECT_EQ(GetObjectMetricReplicas(0, 10000, kTolerances, {}, 10500)->replicas, 2);
  EXPECT_EQ(GetObjectMetricReplicas(0, 10000, kTolerances, {}, 0)->replicas, 0);
  // current > 0 with no pods is an error (ready pods are needed).
  auto r = GetObjectMetricReplicas(2, 10000, kTolerances, {}, 50000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "unable to calculate ready pods: no pods returned by selector while calculating "
            "replica count");
}

// Values from upstream TestReplicaCalc*CMExternal / *PerPodCMExternal.
TEST(ExternalMetricReplicasTest, UpstreamTable) {
  Fixture unready{.current = 3, .ready = {false, true, false}};
  EXPECT_EQ(GetExternalMetricReplicas(3, 4400, kTolerances, unready.Pods("cpu"), {8600})->replicas,
            2);
  Fixture five{.current = 5};
  EXPECT_EQ(GetExternalMetricReplicas(5, 14334, kTolerances, five.Pods("cpu"), {8600})->replicas,
            3);
  Fixture three{.current = 3};
  EXPECT_EQ(GetExternalMetricReplicas(3, 8888, kTolerances, three.Pods("cpu"), {8600})->replicas,
            3);

  const TimePoint ts = kNow;
  ReplicaCalcResult up = GetExternalPerPodMetricReplicas(3, 2150, kTolerances, {8600}, ts);
  EXPECT_EQ(up.replicas, 4);
  EXPECT_EQ(up.usage, 2867);
  ReplicaCalcResult down = GetExternalPerPodMetricReplicas(5, 2867, kTolerances, {8600}, ts);
  EXPECT_EQ(down.replicas, 3);
  EXPECT_EQ(down.usage, 1720);
  ReplicaCalcResult tol = GetExternalPerPodMetricReplicas(3, 2900, kTolerances, {8600}, ts);
  EXPECT_EQ(tol.replicas, 3);
  EXPECT_EQ(tol.usage, 2867);
}

TEST(ExternalMetricReplicasTest, SeveralSeriesAreSummed) {
  // 3 queues of 30 messages against 30 per pod -> 90 / 30 = 3 pods.
  ReplicaCalcResult r =
      GetExternalPerPodMetricReplicas(1, 30000, kTolerances, {30000, 30000, 30000}, kNow);
  EXPECT_EQ(r.usage, 90000);
  EXPECT_EQ(r.replicas, 3);
}

TEST(ExternalMetricReplicasTest, OverflowSaturates) {
  const int64_t big = std::numeric_limits<int64_t>::max() - 10;
  Fixture one{.current = 1};
  auto value = GetExternalMetricReplicas(1, 1000, kTolerances, one.Pods("cpu"), {big, big});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->usage, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(value->replicas, std::numeric_limits<int32_t>::max());
  ReplicaCalcResult per_pod =
      GetExternalPerPodMetricReplicas(2, 1000, kTolerances, {big, big}, kNow);
  EXPECT_EQ(per_pod.usage, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(per_pod.replicas, std::numeric_limits<int32_t>::max());
}

// Pod grouping rules (upstream groupPods and TestGroupPods).
TEST(GroupPodsTest, Rules) {
  ReplicaCalculatorOptions options;  // 5 min initialization, 30 s readiness delay
  auto pod = [](std::string name) {
    PodInfo p;
    p.name = std::move(name);
    p.ready = true;
    p.start_time = kNow - minutes(10);
    p.ready_transition_time = kNow - minutes(9);
    return p;
  };
  PodMetricsInfo metrics;
  auto sample = [&](const std::string& name, TimePoint ts, seconds window) {
    metrics[name] = PodMetric{100, ts, window};
  };

  std::vector<PodInfo> pods;
  PodInfo failed = pod("failed");
  failed.phase = PodPhase::kFailed;
  pods.push_back(failed);
  sample("failed", kNow, seconds(60));
  PodInfo deleting = pod("deleting");
  deleting.deleted = true;
  pods.push_back(deleting);
  sample("deleting", kNow, seconds(60));
  PodInfo pending = pod("pending");
  pending.phase = PodPhase::kPending;
  pods.push_back(pending);
  sample("pending", kNow, seconds(60));
  pods.push_back(pod("no-sample"));
  PodInfo no_condition = pod("no-ready-condition");
  no_condition.ready.reset();
  pods.push_back(no_condition);
  sample("no-ready-condition", kNow, seconds(60));
  PodInfo fresh = pod("initializing-fresh-sample");
  fresh.start_time = kNow - minutes(1);
  fresh.ready_transition_time = kNow - seconds(30);
  pods.push_back(fresh);
  sample("initializing-fresh-sample", kNow, seconds(30));
  PodInfo stale = pod("initializing-stale-sample");
  stale.start_time = kNow - minutes(1);
  stale.ready_transition_time = kNow - seconds(30);
  pods.push_back(stale);
  sample("initializing-stale-sample", kNow, seconds(60));
  PodInfo never_ready = pod("never-ready");
  never_ready.ready = false;
  never_ready.ready_transition_time = kNow - minutes(10) + seconds(20);
  pods.push_back(never_ready);
  sample("never-ready", kNow, seconds(60));
  PodInfo was_ready = pod("unready-after-being-ready");
  was_ready.ready = false;
  was_ready.ready_transition_time = kNow - minutes(2);
  pods.push_back(was_ready);
  sample("unready-after-being-ready", kNow, seconds(60));
  pods.push_back(pod("ready"));
  sample("ready", kNow, seconds(60));

  PodGroups cpu = GroupPods(pods, metrics, "cpu", kNow, options);
  EXPECT_EQ(cpu.ignored, (std::set<std::string>{"deleting", "failed"}));
  EXPECT_EQ(cpu.missing, (std::set<std::string>{"no-sample"}));
  EXPECT_EQ(cpu.unready, (std::set<std::string>{"initializing-stale-sample", "never-ready",
                                                "no-ready-condition", "pending"}));
  EXPECT_EQ(cpu.ready_count, 3);  // fresh sample, unready-after-being-ready, ready

  // Readiness only matters for CPU: memory counts every running pod with a sample.
  PodGroups memory = GroupPods(pods, metrics, "memory", kNow, options);
  EXPECT_EQ(memory.unready, (std::set<std::string>{"pending"}));
  EXPECT_EQ(memory.ready_count, 6);
}

TEST(GoConversionTest, OutOfRangeBecomesMinimum) {
  EXPECT_EQ(GoFloatToInt32(3.9), 3);
  EXPECT_EQ(GoFloatToInt32(-3.9), -3);
  EXPECT_EQ(GoFloatToInt32(1e10), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(GoFloatToInt64(std::nan("")), std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace trimtab::core::hpa
