#include "core/chain/metric_requirements.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/chain/plugin_metric_names.h"

namespace trimtab::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

MetricRequirement Vertex(std::string name, std::string query) {
  return MetricRequirement{.name = std::move(name), .scope = MetricScope::kVertex,
                           .source = MetricSourceKind::kFlinkRest, .query = std::move(query),
                           .aggregation = MetricAggregation::kMax};
}

TEST(MetricRequirementsTest, SameMetricFromTwoConsumersIsFetchedOnce) {
  MetricRequirementRegistry registry;
  ASSERT_TRUE(registry.Declare("resource-gate", TaskManagerCpuRequirement()).ok());
  ASSERT_TRUE(registry.Declare("my-evaluator", TaskManagerCpuRequirement()).ok());
  ASSERT_TRUE(registry.Declare("my-evaluator", Vertex("BUSY_MAX", "busyTimeMsPerSecond")).ok());
  ASSERT_EQ(registry.Metrics().size(), 2u);
  EXPECT_EQ(registry.Metrics()[0].requirement.name, "BUSY_MAX");
  EXPECT_EQ(registry.Metrics()[1].requirement.name, "TM_CPU_AVG");
  EXPECT_THAT(registry.Metrics()[1].consumers, ElementsAre("my-evaluator", "resource-gate"));
  EXPECT_EQ(registry.ByScope(MetricScope::kTaskManager).size(), 1u);
  EXPECT_EQ(registry.ByScope(MetricScope::kVertex).at(0).query, "busyTimeMsPerSecond");
  EXPECT_EQ(registry.BySource(MetricSourceKind::kPrometheus).size(), 0u);
  ASSERT_NE(registry.Find("BUSY_MAX"), nullptr);
  EXPECT_EQ(registry.Find("NOPE"), nullptr);
}

TEST(MetricRequirementsTest, SameNameDifferentDefinitionConflicts) {
  MetricRequirementRegistry registry;
  ASSERT_TRUE(registry.Declare("a", Vertex("QUEUE", "inPoolUsage")).ok());
  MetricRequirement other = Vertex("QUEUE", "inPoolUsage");
  other.aggregation = MetricAggregation::kAvg;
  Status s = registry.Declare("b", other);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(s.message(), HasSubstr("b: metric \"QUEUE\" is already declared by a"));
  EXPECT_THAT(s.message(), HasSubstr("vertex, flink \"inPoolUsage\", max"));
}

TEST(MetricRequirementsTest, MalformedRequirementsAreRejected) {
  MetricRequirementRegistry registry;
  Status bad_name = registry.Declare("x", Vertex("lower-case", "q"));
  EXPECT_EQ(bad_name.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_name.message(), HasSubstr("x: metric requirement \"lower-case\""));
  Status no_query = registry.Declare("x", Vertex("OK_NAME", ""));
  EXPECT_THAT(no_query.message(), HasSubstr("query must not be empty"));
  MetricRequirement prom{.name = "KAFKA_LAG", .scope = MetricScope::kJob,
                         .source = MetricSourceKind::kPrometheus,
                         .query = "sum(kafka_consumergroup_lag{group=\"orders\"})",
                         .aggregation = MetricAggregation::kSum};
  EXPECT_TRUE(registry.DeclareAll("lag-plugin", {prom}).ok());
  EXPECT_EQ(registry.BySource(MetricSourceKind::kPrometheus).size(), 1u);
  EXPECT_TRUE(registry.Find("OK_NAME") == nullptr);
}

}  // namespace
}  // namespace trimtab::core
