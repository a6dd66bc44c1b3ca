#include "common/metrics_registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

namespace trimtab {
namespace {

TEST(MetricsRegistryTest, RendersCountersAndGaugesWithHelpAndType) {
  MetricsRegistry r;
  r.Counter("jobs_total", "Jobs seen.\nSecond line with \\ backslash.", {"kind"})
      .Inc({"FlinkDeployment"}, 2);
  r.Gauge("leader", "1 when leading.").Set({}, 1);
  EXPECT_EQ(r.Render(),
            "# HELP jobs_total Jobs seen.\\nSecond line with \\\\ backslash.\n"
            "# TYPE jobs_total counter\n"
            "jobs_total{kind=\"FlinkDeployment\"} 2\n"
            "# HELP leader 1 when leading.\n"
            "# TYPE leader gauge\n"
            "leader 1\n");
}

TEST(MetricsRegistryTest, EscapesLabelValues) {
  MetricsRegistry r;
  r.Gauge("g", "h", {"vertex"}).Set({"a\"b\\c\nd</script>"}, 0.25);
  EXPECT_NE(r.Render().find("g{vertex=\"a\\\"b\\\\c\\nd</script>\"} 0.25\n"), std::string::npos)
      << r.Render();
}

TEST(MetricsRegistryTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricsRegistry r;
  MetricFamily& h = r.Histogram("took_seconds", "Time.", {"verb"}, {1, 0.1, 0.5});
  h.Observe({"get"}, 0.05);
  h.Observe({"get"}, 0.1);  // upper bounds are inclusive
  h.Observe({"get"}, 0.7);
  h.Observe({"get"}, 30);
  EXPECT_EQ(r.Render(),
            "# HELP took_seconds Time.\n"
            "# TYPE took_seconds histogram\n"
            "took_seconds_bucket{verb=\"get\",le=\"0.1\"} 2\n"
            "took_seconds_bucket{verb=\"get\",le=\"0.5\"} 2\n"
            "took_seconds_bucket{verb=\"get\",le=\"1\"} 3\n"
            "took_seconds_bucket{verb=\"get\",le=\"+Inf\"} 4\n"
            "took_seconds_sum{verb=\"get\"} 30.85\n"
            "took_seconds_count{verb=\"get\"} 4\n");
  EXPECT_EQ(h.Count({"get"}), 4u);
}

TEST(MetricsRegistryTest, FormatsSpecialValues) {
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatMetricValue(-3), "-3");
  EXPECT_EQ(FormatMetricValue(0.1), "0.1");
  EXPECT_EQ(FormatMetricValue(1e20), "1e+20");
}

TEST(MetricsRegistryTest, CountersNeverGoDown) {
  MetricsRegistry r;
  MetricFamily& c = r.Counter("c", "h");
  c.Inc({}, 3);
  c.Inc({}, -1);
  EXPECT_EQ(c.Value({}), 3);
}

TEST(MetricsRegistryTest, SameNameReturnsTheSameFamily) {
  MetricsRegistry r;
  MetricFamily& a = r.Counter("c", "h", {"x"});
  MetricFamily& b = r.Counter("c", "h", {"x"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(r.Find("c"), &a);
  EXPECT_EQ(r.Find("d"), nullptr);
}

TEST(MetricsRegistryTest, RemoveMatchingDropsAJobsSeriesInEveryFamily) {
  MetricsRegistry r;
  MetricFamily& g = r.Gauge("lag", "h", {"resourcens", "resourcename", "vertex"});
  MetricFamily& c = r.Counter("scalings", "h", {"resourcens", "resourcename"});
  MetricFamily& other = r.Counter("unrelated", "h", {"verb"});
  g.Set({"ns", "a", "v1"}, 1);
  g.Set({"ns", "a", "v2"}, 1);
  g.Set({"ns", "b", "v1"}, 1);
  c.Inc({"ns", "a"});
  other.Inc({"get"});
  EXPECT_EQ(r.RemoveMatching({{"resourcens", "ns"}, {"resourcename", "a"}}), 3u);
  EXPECT_EQ(g.SeriesCount(), 1u);
  EXPECT_EQ(c.SeriesCount(), 0u);
  EXPECT_EQ(other.SeriesCount(), 1u);
  EXPECT_EQ(r.Render().find("resourcename=\"a\""), std::string::npos);
}

TEST(MetricsRegistryTest, RemoveMatchingExceptKeepsListedSeries) {
  MetricsRegistry r;
  MetricFamily& g = r.Gauge("p", "h", {"job", "vertex"});
  g.Set({"j", "v1"}, 1);
  g.Set({"j", "v2"}, 2);
  g.Set({"k", "v1"}, 3);
  EXPECT_EQ(g.RemoveMatchingExcept({{"job", "j"}}, {{"j", "v2"}}), 1u);
  EXPECT_FALSE(g.Value({"j", "v1"}));
  EXPECT_EQ(g.Value({"j", "v2"}), 2);
  EXPECT_EQ(g.Value({"k", "v1"}), 3);
}

TEST(MetricsRegistryTest, CollectorsRunBeforeRenderUntilRemoved) {
  MetricsRegistry r;
  MetricFamily& depth = r.Gauge("depth", "h");
  int calls = 0;
  const int id = r.AddCollector([&] { depth.Set({}, ++calls); });
  EXPECT_NE(r.Render().find("depth 1\n"), std::string::npos);
  EXPECT_NE(r.Render().find("depth 2\n"), std::string::npos);
  r.RemoveCollector(id);
  r.Render();
  EXPECT_EQ(calls, 2);
}

TEST(MetricsRegistryTest, ConcurrentUpdatesAndScrapesLoseNothing) {
  MetricsRegistry r;
  MetricFamily& c = r.Counter("c", "h", {"t"});
  MetricFamily& h = r.Histogram("h", "h", {}, DefaultLatencyBuckets());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        c.Inc({std::to_string(t % 2)});
        h.Observe({}, 0.01);
        if (i % 100 == 0) r.Render();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(*c.Value({"0"}) + *c.Value({"1"}), 4000);
  EXPECT_EQ(h.Count({}), 4000u);
}

TEST(MetricsRegistryTest, NameValidation) {
  EXPECT_TRUE(IsValidMetricName("flink_k8soperator_JOSDK_Reconciliation_Count"));
  EXPECT_TRUE(IsValidMetricName("a:b"));
  EXPECT_FALSE(IsValidMetricName("1abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_TRUE(IsValidLabelName("jobVertexID"));
  EXPECT_FALSE(IsValidLabelName("__name__"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
}

TEST(MetricsRegistryTest, ExponentialBuckets) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
}

}  // namespace
}  // namespace trimtab
