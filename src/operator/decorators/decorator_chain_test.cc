#include "operator/decorators/decorator_chain.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/flink_values.h"
#include "operator/decorators/builtin_decorators.h"

namespace trimtab::op::decorators {
namespace {

DecoratorRegistry Builtins() {
  DecoratorRegistry r;
  EXPECT_TRUE(RegisterBuiltinDecorators(r).ok());
  return r;
}

DecoratorContext Context() {
  return DecoratorContext{.cluster_id = "wc",
                          .namespace_name = "prod",
                          .job_manager_requests = {.cpu = 1, .memory_bytes = int64_t{1} << 30},
                          .task_manager_requests = {.cpu = 2, .memory_bytes = int64_t{2} << 30},
                          .desired_task_managers = 3};
}

TEST(SchedulerSettingsTest, ComponentKeysFallBackToTheGlobalKey) {
  auto s = ReadSchedulerSettings({{kSchedulerNameKey, "volcano"},
                                  {kTaskManagerSchedulerNameKey, "other"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->job_manager, "volcano");
  EXPECT_EQ(s->task_manager, "other");
  EXPECT_EQ(s->decorators, (std::map<std::string, std::string>{{"volcano", "volcano"}}));
  s = ReadSchedulerSettings({{kJobManagerSchedulerNameKey, "a"},
                             {kDecoratorsKey, "a:coscheduling"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->job_manager, "a");
  EXPECT_EQ(s->task_manager, "");
  EXPECT_EQ(s->decorators, (std::map<std::string, std::string>{{"a", "coscheduling"}}));
  EXPECT_EQ(ReadSchedulerSettings({{kDecoratorsKey, "volcano"}}).status().message(),
            "kubernetes.operator.scheduler.decorators: map entry \"volcano\" has no \":\" "
            "(expected key:value,key:value)");
}

TEST(DecoratorChainTest, DefaultSchedulerChangesNothing) {
  const DecoratorRegistry registry = Builtins();
  auto chain = DecoratorChain::Create(registry, {});
  ASSERT_TRUE(chain.ok());
  EXPECT_TRUE(chain->empty());
  EXPECT_TRUE(chain->undecorated_schedulers().empty());
  DecoratedCluster out;
  out.job_manager_pod_template = {{"metadata", {{"labels", {{"team", "x"}}}}}};
  ASSERT_TRUE(chain->Run(Context(), &out).ok());
  EXPECT_EQ(out.job_manager_pod_template, Json::parse(R"({"metadata":{"labels":{"team":"x"}}})"));
  EXPECT_EQ(out.task_manager_pod_template, Json::object());
  EXPECT_TRUE(out.pre_creation.empty());
  EXPECT_FALSE(chain->TaskManagerVolcanoQueue());
}

TEST(DecoratorChainTest, VolcanoForBothPodKinds) {
  const DecoratorRegistry registry = Builtins();
  auto chain = DecoratorChain::Create(
      registry, {{kSchedulerNameKey, "volcano"},
                 {"kubernetes.scheduler.volcano.config", "queue:q1,priorityClassName:high"}});
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_EQ(chain->Describe(), "volcano(100) for volcano [jobmanager, taskmanager]");
  EXPECT_EQ(chain->TaskManagerVolcanoQueue(), "q1");
  DecoratedCluster out;
  ASSERT_TRUE(chain->Run(Context(), &out).ok());
  EXPECT_EQ(out.job_manager_pod_template["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(out.task_manager_pod_template["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(out.task_manager_pod_template["metadata"]["annotations"]["scheduling.k8s.io/group-name"],
            "podgroup-wc");
  ASSERT_EQ(out.pre_creation.size(), 1u);
  EXPECT_EQ(out.pre_creation[0].object["spec"]["queue"], "q1");
}

TEST(DecoratorChainTest, UnknownSchedulerNameGetsNoDecoratorButItsName) {
  const DecoratorRegistry registry = Builtins();
  auto chain = DecoratorChain::Create(registry, {{kSchedulerNameKey, "yunikorn"}});
  ASSERT_TRUE(chain.ok());
  EXPECT_TRUE(chain->empty());
  EXPECT_EQ(chain->undecorated_schedulers(), std::vector<std::string>{"yunikorn"});
  DecoratedCluster out;
  ASSERT_TRUE(chain->Run(Context(), &out).ok());
  EXPECT_EQ(out.job_manager_pod_template["spec"]["schedulerName"], "yunikorn");
  EXPECT_TRUE(out.pre_creation.empty());
}

TEST(DecoratorChainTest, OnlyTheTaskManagersOnVolcano) {
  const DecoratorRegistry registry = Builtins();
  auto chain = DecoratorChain::Create(registry, {{kTaskManagerSchedulerNameKey, "volcano"}});
  ASSERT_TRUE(chain.ok());
  DecoratedCluster out;
  DecoratorContext c = Context();
  c.existing_task_managers = 2;
  c.placed_task_managers = 2;
  ASSERT_TRUE(chain->Run(c, &out).ok());
  EXPECT_FALSE(out.job_manager_pod_template.contains("spec"));
  EXPECT_FALSE(out.job_manager_pod_template.contains("metadata"));
  ASSERT_EQ(out.pre_creation.size(), 1u);
  EXPECT_EQ(out.pre_creation[0].object["spec"]["minMember"], 2);  // two TaskManagers, no JM
  EXPECT_EQ(out.pre_creation[0].object["spec"]["minResources"],
            Json::parse(R"({"cpu":"6","memory":"6Gi"})"));
}

TEST(DecoratorChainTest, ErrorsNameTheKeyAndField) {
  const DecoratorRegistry registry = Builtins();
  EXPECT_EQ(DecoratorChain::Create(registry, {{kSchedulerNameKey, "volcano"},
                                              {kDecoratorsKey, "volcano:gang"}})
                .status()
                .message(),
            "kubernetes.operator.scheduler.decorators: scheduler \"volcano\" maps to unknown "
            "decorator \"gang\" (known: coscheduling, volcano)");
  EXPECT_EQ(DecoratorChain::Create(registry, {{kSchedulerNameKey, "volcano"},
                                              {"kubernetes.scheduler.volcano.config", "qeue:q1"}})
                .status()
                .message(),
            "decorator \"volcano\": kubernetes.scheduler.volcano.config.qeue: unknown field");
  EXPECT_EQ(DecoratorChain::Create(registry,
                                   {{kSchedulerNameKey, "volcano"},
                                    {"kubernetes.scheduler.volcano.config", "queue:Team_A"}})
                .status()
                .message(),
            "decorator \"volcano\": kubernetes.scheduler.volcano.config.queue: \"Team_A\" is not "
            "a valid queue name (a DNS-1123 subdomain: lower case letters, digits, '-' and '.')");
}

TEST(DecoratorRegistryTest, DuplicatesAndUnknownTypes) {
  DecoratorRegistry r = Builtins();
  EXPECT_EQ(r.Types(), (std::vector<std::string>{"coscheduling", "volcano"}));
  EXPECT_EQ(RegisterBuiltinDecorators(r).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(r.Create("gang", Json::object(), "x").status().message(),
            "unknown decorator type \"gang\" (known: coscheduling, volcano)");
  EXPECT_EQ(r.Register("", 0, nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trimtab::op::decorators
