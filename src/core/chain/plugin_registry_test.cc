#include "core/chain/plugin_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::core {
namespace {

using ::testing::HasSubstr;

// A factory with one option ("limit", required int) that rejects unknown fields.
StatusOr<std::unique_ptr<ExecutorPlugin>> LimitFactory(const PluginIdentity& id, const Json& config,
                                                       const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  int64_t limit = 0;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("limit", &limit));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return testing::MakePlugin(id.name, id.priority, [limit](auto&, auto&, auto&, auto&) {
    return ExecutorResult::Approve("limit " + std::to_string(limit));
  });
}

ExecutorPluginRegistry Registry() {
  ExecutorPluginRegistry registry;
  EXPECT_TRUE(registry.Register("limit", &LimitFactory).ok());
  return registry;
}

TEST(PluginRegistryTest, DuplicateTypeIsRejectedNamingBothOrigins) {
  ExecutorPluginRegistry registry = Registry();
  Status s = registry.Register("limit", &LimitFactory, "/plugins/libx.so");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(s.message(), HasSubstr("/plugins/libx.so"));
  EXPECT_THAT(s.message(), HasSubstr("built-in"));
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"limit"});
  EXPECT_EQ(registry.Register("", &LimitFactory).code(), StatusCode::kInvalidArgument);
}

TEST(PluginRegistryTest, CreateAllAppliesDefaultsAndConfig) {
  ExecutorPluginRegistry registry = Registry();
  Json specs = Json::parse(R"([
    {"type": "limit", "config": {"limit": 3}},
    {"type": "limit", "name": "second", "priority": -4, "config": {"limit": 9}}
  ])");
  auto plugins = registry.CreateAll(specs, "plugins");
  ASSERT_TRUE(plugins.ok()) << plugins.status().ToString();
  ASSERT_EQ(plugins->size(), 2u);
  EXPECT_EQ((*plugins)[0]->name(), "limit");
  EXPECT_EQ((*plugins)[0]->priority(), 0);
  EXPECT_EQ((*plugins)[1]->name(), "second");
  EXPECT_EQ((*plugins)[1]->priority(), -4);
  CycleState cycle;
  Json state;
  auto result = (*plugins)[1]->Execute(ExecutorContext{}, {}, cycle, state);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->reason, "limit 9");
}

struct BadSpec {
  const char* name;
  const char* specs;
  StatusCode code;
  const char* message;
};

class PluginRegistryBadSpecTest : public ::testing::TestWithParam<BadSpec> {};

TEST_P(PluginRegistryBadSpecTest, FailsNamingTheField) {
  ExecutorPluginRegistry registry = Registry();
  auto plugins = registry.CreateAll(Json::parse(GetParam().specs), "plugins");
  ASSERT_FALSE(plugins.ok());
  EXPECT_EQ(plugins.status().code(), GetParam().code);
  EXPECT_THAT(plugins.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PluginRegistryBadSpecTest,
    ::testing::Values(
        BadSpec{"NotAList", R"({"type": "limit"})", StatusCode::kInvalidArgument,
                "plugins: must be a list"},
        BadSpec{"UnknownType", R"([{"type": "nope"}])", StatusCode::kNotFound,
                "unknown executor plugin type \"nope\" (known: limit)"},
        BadSpec{"UnknownSpecField", R"([{"type": "limit", "prio": 1, "config": {"limit": 1}}])",
                StatusCode::kInvalidArgument, "plugins[0].prio"},
        BadSpec{"UnknownConfigField", R"([{"type": "limit", "config": {"limit": 1, "extra": 2}}])",
                StatusCode::kInvalidArgument, "plugins[0].config.extra"},
        BadSpec{"MissingConfigField", R"([{"type": "limit", "name": "x"}])",
                StatusCode::kInvalidArgument, "plugin \"x\" (limit): plugins[0].config.limit"},
        BadSpec{"DuplicateName",
                R"([{"type": "limit", "config": {"limit": 1}}, {"type": "limit", "config": {"limit": 2}}])",
                StatusCode::kAlreadyExists, "plugins[1].name: plugin name \"limit\" is used twice"},
        BadSpec{"PriorityType", R"([{"type": "limit", "priority": "high"}])",
                StatusCode::kInvalidArgument, "plugins[0].priority"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace trimtab::core
