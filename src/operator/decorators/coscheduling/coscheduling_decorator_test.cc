#include "operator/decorators/coscheduling/coscheduling_decorator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::op::decorators {
namespace {

constexpr char kPath[] = "kubernetes.scheduler.scheduler-plugins-scheduler.config";

TEST(CoschedulingDecoratorTest, LabelsThePodsAndPreCreatesTheGroup) {
  StatusOr<CoschedulingOptions> o =
      ParseCoschedulingOptions({{"scheduleTimeoutSeconds", "120"}}, kPath);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const CoschedulingDecorator d({.name = "coscheduling", .priority = 100}, *o);
  DecoratedCluster c;
  const DecoratorContext context{.cluster_id = "wc",
                                 .namespace_name = "prod",
                                 .session_cluster = true,
                                 .scheduler_name = "scheduler-plugins-scheduler",
                                 .job_manager = true,
                                 .task_manager = true,
                                 .job_manager_requests = {.cpu = 1, .memory_bytes = 1 << 30},
                                 .task_manager_requests = {.cpu = 1, .memory_bytes = 1 << 30},
                                 .desired_task_managers = 2,
                                 .existing_task_managers = 2,
                                 .placed_task_managers = 2};
  ASSERT_TRUE(d.Decorate(context, &c).ok());
  EXPECT_EQ(c.job_manager_pod_template["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"],
            "podgroup-wc");
  EXPECT_EQ(c.task_manager_pod_template["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"],
            "podgroup-wc");
  EXPECT_FALSE(c.task_manager_pod_template["metadata"].contains("annotations"));
  ASSERT_EQ(c.pre_creation.size(), 1u);
  EXPECT_EQ(c.pre_creation[0].object, Json::parse(R"({
      "apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
      "metadata":{"name":"podgroup-wc","namespace":"prod"},
      "spec":{"minMember":3,"minResources":{"cpu":"3","memory":"3Gi"},
              "scheduleTimeoutSeconds":120}})"));
  EXPECT_TRUE(c.references.empty());
  EXPECT_FALSE(d.VolcanoQueue());
}

TEST(CoschedulingDecoratorTest, ConfigErrorsNameTheField) {
  EXPECT_EQ(ParseCoschedulingOptions({{"queue", "q1"}}, kPath).status().message(),
            std::string(kPath) + ".queue: unknown field");
  EXPECT_EQ(ParseCoschedulingOptions({{"scheduleTimeoutSeconds", "0"}}, kPath).status().message(),
            std::string(kPath) + ".scheduleTimeoutSeconds: must be at least 1");
}

}  // namespace
}  // namespace trimtab::op::decorators
