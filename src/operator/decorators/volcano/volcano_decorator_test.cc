#include "operator/decorators/volcano/volcano_decorator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::op::decorators {
namespace {

constexpr char kPath[] = "kubernetes.scheduler.volcano.config";

DecoratorContext Context(int existing) {
  return DecoratorContext{.cluster_id = "wc",
                          .namespace_name = "prod",
                          .scheduler_name = "volcano",
                          .job_manager = true,
                          .task_manager = true,
                          .job_manager_requests = {.cpu = 1, .memory_bytes = int64_t{1} << 30},
                          .task_manager_requests = {.cpu = 2, .memory_bytes = int64_t{4} << 30},
                          .desired_task_managers = 3,
                          .existing_task_managers = existing,
                          .placed_task_managers = existing};
}

VolcanoDecorator Make(const Json& config) {
  StatusOr<VolcanoOptions> o = ParseVolcanoOptions(config, kPath);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return VolcanoDecorator({.name = "volcano", .priority = 100}, o.ok() ? *o : VolcanoOptions{});
}

TEST(VolcanoDecoratorTest, TemplatesInPodGroupAndAnnotationsOut) {
  const VolcanoDecorator d = Make({{"queue", "q1"}, {"priorityClassName", "high"}});
  DecoratedCluster c;
  c.job_manager_pod_template = Json::parse(
      R"({"metadata":{"annotations":{"keep":"me"}},"spec":{"schedulerName":"volcano"}})");
  c.task_manager_pod_template = Json::object();
  ASSERT_TRUE(d.Decorate(Context(0), &c).ok());
  EXPECT_EQ(c.job_manager_pod_template,
            Json::parse(R"({"metadata":{"annotations":{"keep":"me",
                              "scheduling.k8s.io/group-name":"podgroup-wc"}},
                            "spec":{"schedulerName":"volcano"}})"));
  EXPECT_EQ(c.task_manager_pod_template,
            Json::parse(R"({"metadata":{"annotations":{"scheduling.k8s.io/group-name":"podgroup-wc"}}})"));
  ASSERT_EQ(c.pre_creation.size(), 1u);
  EXPECT_TRUE(c.accompanying.empty());
  EXPECT_EQ(c.pre_creation[0].resource, "podgroups");
  EXPECT_EQ(c.pre_creation[0].object, Json::parse(R"({
      "apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup",
      "metadata":{"name":"podgroup-wc","namespace":"prod"},
      "spec":{"minMember":1,"minResources":{"cpu":"7","memory":"13Gi"},
              "queue":"q1","priorityClassName":"high"}})"));
  ASSERT_EQ(c.references.size(), 2u);
  EXPECT_EQ(c.references[0].kind, "Queue");
  EXPECT_EQ(c.references[0].name, "q1");
  EXPECT_EQ(c.references[0].field, "kubernetes.scheduler.volcano.config: queue");
  EXPECT_EQ(c.references[1].kind, "PriorityClass");
  EXPECT_EQ(c.references[1].resource, "priorityclasses");
  EXPECT_EQ(d.VolcanoQueue(), "q1");
}

TEST(VolcanoDecoratorTest, MinMemberFollowsTheTaskManagersThatExist) {
  const VolcanoDecorator d = Make(Json::object());
  for (auto [existing, expected] : {std::pair{0, 1}, {1, 2}, {3, 4}, {5, 4}}) {
    DecoratedCluster c;
    ASSERT_TRUE(d.Decorate(Context(existing), &c).ok());
    EXPECT_EQ(c.pre_creation[0].object["spec"]["minMember"], expected) << existing;
    EXPECT_EQ(c.pre_creation[0].object["spec"]["queue"], "default");
    EXPECT_FALSE(c.pre_creation[0].object["spec"].contains("priorityClassName"));
  }
  EXPECT_EQ(d.VolcanoQueue(), "default");
}

TEST(VolcanoDecoratorTest, MinMemberCapAndPreemptable) {
  const VolcanoDecorator d = Make({{"minMember", "2"}, {"preemptable", "false"}});
  DecoratedCluster c;
  ASSERT_TRUE(d.Decorate(Context(3), &c).ok());
  EXPECT_EQ(c.pre_creation[0].object["spec"]["minMember"], 2);
  EXPECT_EQ(c.pre_creation[0].object["metadata"]["annotations"]["volcano.sh/preemptable"], "false");
  EXPECT_EQ(c.task_manager_pod_template["metadata"]["annotations"]["volcano.sh/preemptable"], "false");
}

TEST(VolcanoDecoratorTest, SlaWaitingTimeAnnotatesTheGroupOnly) {
  const VolcanoDecorator d = Make({{"slaWaitingTime", "2 min"}});
  DecoratedCluster c;
  ASSERT_TRUE(d.Decorate(Context(0), &c).ok());
  EXPECT_EQ(c.pre_creation[0].object["metadata"]["annotations"]["volcano.sh/sla-waiting-time"],
            "120s");
  EXPECT_FALSE(c.task_manager_pod_template["metadata"].contains("annotations") &&
               c.task_manager_pod_template["metadata"]["annotations"].contains(
                   "volcano.sh/sla-waiting-time"));
  EXPECT_EQ(ParseVolcanoOptions({{"slaWaitingTime", "500 ms"}}, kPath).status().message(),
            "kubernetes.scheduler.volcano.config.slaWaitingTime: must be a whole number of "
            "seconds, at least 1 s");
  EXPECT_FALSE(ParseVolcanoOptions({{"slaWaitingTime", "soon"}}, kPath).ok());
}

TEST(VolcanoDecoratorTest, ConfigErrorsNameTheField) {
  EXPECT_EQ(ParseVolcanoOptions({{"minMember", "0"}}, kPath).status().message(),
            "kubernetes.scheduler.volcano.config.minMember: must be at least 1");
  EXPECT_FALSE(ParseVolcanoOptions({{"minMember", "many"}}, kPath).ok());
  EXPECT_EQ(ParseVolcanoOptions({{"priorityClassName", "High"}}, kPath).status().message(),
            "kubernetes.scheduler.volcano.config.priorityClassName: \"High\" is not a valid "
            "PriorityClass name");
  EXPECT_EQ(ParseVolcanoOptions({{"mincpu", "2"}}, kPath).status().message(),
            "kubernetes.scheduler.volcano.config.mincpu: unknown field");
  EXPECT_FALSE(ParseVolcanoOptions({{"preemptable", "maybe"}}, kPath).ok());
}

}  // namespace
}  // namespace trimtab::op::decorators
