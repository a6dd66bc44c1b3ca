#include "operator/decorators/gang_size.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::op::decorators {
namespace {

DecoratorContext Both(int desired, int existing) {
  return DecoratorContext{.job_manager = true,
                          .task_manager = true,
                          .job_manager_requests = {.cpu = 0.5, .memory_bytes = int64_t{1600} << 20},
                          .task_manager_requests = {.cpu = 1, .memory_bytes = int64_t{2} << 30},
                          .desired_task_managers = desired,
                          .existing_task_managers = existing,
                          .placed_task_managers = existing};
}

TEST(GangSizeTest, MinResourcesCoverTheWholeJobMinMemberTheExistingPods) {
  // First deploy: no TaskManager exists, the gang is the JobManager; admission needs everything.
  GangSize g = SizeGang(Both(4, 0), std::nullopt);
  EXPECT_EQ(g.min_member, 1);
  EXPECT_DOUBLE_EQ(g.cpu, 4.5);
  EXPECT_EQ(g.memory_bytes, (int64_t{1600} << 20) + 4 * (int64_t{2} << 30));
  EXPECT_EQ(ResourceList(g.cpu, g.memory_bytes), Json::parse(R"({"cpu":"4500m","memory":"9792Mi"})"));
  // The TaskManagers appear: the gang grows with them, never beyond the desired count.
  EXPECT_EQ(SizeGang(Both(4, 2), std::nullopt).min_member, 3);
  EXPECT_EQ(SizeGang(Both(4, 4), std::nullopt).min_member, 5);
  EXPECT_EQ(SizeGang(Both(4, 6), std::nullopt).min_member, 5);
  // A configured minMember caps it.
  EXPECT_EQ(SizeGang(Both(4, 4), 2).min_member, 2);
  // HA JobManagers count as members.
  DecoratorContext ha = Both(2, 2);
  ha.job_manager_replicas = 2;
  EXPECT_EQ(SizeGang(ha, std::nullopt).min_member, 4);
  EXPECT_DOUBLE_EQ(SizeGang(ha, std::nullopt).cpu, 3);
}

TEST(GangSizeTest, PodKindsOnOtherSchedulersAreNotMembers) {
  DecoratorContext jm_only = Both(4, 4);
  jm_only.task_manager = false;
  EXPECT_EQ(SizeGang(jm_only, std::nullopt).min_member, 1);
  EXPECT_DOUBLE_EQ(SizeGang(jm_only, std::nullopt).cpu, 0.5);
  DecoratorContext tm_only = Both(4, 0);
  tm_only.job_manager = false;
  EXPECT_EQ(SizeGang(tm_only, std::nullopt).min_member, 1);  // never 0
  EXPECT_DOUBLE_EQ(SizeGang(tm_only, std::nullopt).cpu, 4);
}

TEST(GangSizeTest, Names) {
  EXPECT_EQ(PodGroupName("wc"), "podgroup-wc");
  EXPECT_TRUE(IsDns1123Subdomain("team-a.prod"));
  EXPECT_TRUE(IsDns1123Subdomain("default"));
  for (const char* bad : {"", "Team", "a_b", "-a", "a-", "a..b", "a.-b"}) {
    EXPECT_FALSE(IsDns1123Subdomain(bad)) << bad;
  }
  EXPECT_FALSE(IsDns1123Subdomain(std::string(254, 'a')));
}

}  // namespace
}  // namespace trimtab::op::decorators
