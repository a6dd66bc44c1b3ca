#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/multi_job_coordinator/multi_job_coordinator.h"

namespace trimtab::plugins {
namespace {

using ::testing::HasSubstr;

TEST(MultiJobCoordinatorConfigTest, Parses) {
  auto o = ParseMultiJobCoordinatorOptions(
      Json::parse(R"({"totalSlots": 64, "scope": "namespace", "weightKey": "w"})"), "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->total_slots, 64);
  EXPECT_TRUE(o->namespace_scope);
  EXPECT_EQ(o->weight_key, "w");
  EXPECT_TRUE(o->slot_sharing);
}

TEST(MultiJobCoordinatorConfigTest, Rejects) {
  EXPECT_THAT(ParseMultiJobCoordinatorOptions(Json::object(), "c").status().message(),
              HasSubstr("c.totalSlots"));
  EXPECT_THAT(ParseMultiJobCoordinatorOptions(Json::parse(R"({"totalSlots": 0})"), "c")
                  .status().message(),
              HasSubstr("c.totalSlots: must be >= 1"));
  EXPECT_THAT(
      ParseMultiJobCoordinatorOptions(Json::parse(R"({"totalSlots": 4, "scope": "cluster"})"), "c")
          .status().message(),
      HasSubstr("c.scope"));
  EXPECT_THAT(
      ParseMultiJobCoordinatorOptions(Json::parse(R"({"totalSlots": 4, "budget": 1})"), "c")
          .status().message(),
      HasSubstr("c.budget"));
}

TEST(MultiJobCoordinatorConfigTest, Registers) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterMultiJobCoordinator(registry).ok());
  auto plugins = registry.CreateAll(
      Json::parse(R"([{"type": "multi-job-coordinator", "config": {"totalSlots": 8}}])"), "p");
  ASSERT_TRUE(plugins.ok());
  EXPECT_EQ((*plugins)[0]->name(), "multi-job-coordinator");
}

}  // namespace
}  // namespace trimtab::plugins
