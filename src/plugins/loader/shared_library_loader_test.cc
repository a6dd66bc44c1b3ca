#include "plugins/loader/shared_library_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"
#include "core/chain/executor_chain.h"
#include "plugins/example/example_cap_plugin.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::Summary;
using ::testing::HasSubstr;

std::unique_ptr<core::ExecutorPlugin> Create(core::ExecutorPluginRegistry& registry,
                                             const std::string& type, const Json& config) {
  auto plugin = registry.Create(type, {"instance", 1}, config, "plugins[0].config");
  EXPECT_TRUE(plugin.ok()) << plugin.status().ToString();
  return plugin.ok() ? std::move(plugin).value() : nullptr;
}

StatusOr<core::ExecutorResult> Execute(core::ExecutorPlugin& plugin,
                                       const core::ScalingSummaries& summaries, Json& state) {
  core::CycleState cycle;
  return plugin.Execute(core::ExecutorContext{.job_key = "ns/job"}, summaries, cycle, state);
}

// The example plugin's behaviour, whichever way it was registered.
void ExpectExampleCapWorks(core::ExecutorPluginRegistry& registry) {
  auto plugin = Create(registry, "example-cap", Json{{"maxParallelism", 4}});
  ASSERT_NE(plugin, nullptr);
  Json state;
  auto approve = Execute(*plugin, {{"a", Summary(2, 3)}}, state);
  ASSERT_TRUE(approve.ok()) << approve.status().ToString();
  EXPECT_EQ(approve->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(approve->reason, "within 4");

  auto modify = Execute(*plugin, {{"a", Summary(2, 8)}, {"b", Summary(6, 3)}}, state);
  ASSERT_TRUE(modify.ok());
  EXPECT_EQ(modify->verdict, ChainVerdict::kModify);
  EXPECT_EQ(modify->summaries.at("a").new_parallelism, 4);
  EXPECT_EQ(modify->summaries.at("b").new_parallelism, 3);

  auto veto = Execute(*plugin, {{"a", Summary(4, 9)}}, state);
  ASSERT_TRUE(veto.ok());
  EXPECT_EQ(veto->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(veto->reason, "nothing left after capping at 4");
  EXPECT_EQ(state, (Json{{"calls", 3}}));  // plugin state crossed the ABI both ways
}

TEST(SharedLibraryLoaderTest, LoadsTheExamplePlugin) {
  core::ExecutorPluginRegistry registry;
  auto loaded = LoadSharedLibraryPlugin(TRIMTAB_EXAMPLE_PLUGIN_PATH, registry);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*loaded, std::vector<std::string>{"example-cap"});
  EXPECT_EQ(registry.OriginOf("example-cap"), TRIMTAB_EXAMPLE_PLUGIN_PATH);
  ExpectExampleCapWorks(registry);
}

TEST(SharedLibraryLoaderTest, TheSameSourceLinkedStatically) {
  core::ExecutorPluginRegistry registry;
  auto loaded = RegisterStaticPlugin(&trimtab_example_plugin_init, "static:example", registry);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(registry.OriginOf("example-cap"), "static:example");
  ExpectExampleCapWorks(registry);
}

TEST(SharedLibraryLoaderTest, RunsInTheChainAfterTheLibraryWasLoaded) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(LoadSharedLibraryPlugin(TRIMTAB_EXAMPLE_PLUGIN_PATH, registry).ok());
  auto plugins = registry.CreateAll(
      Json::parse(R"([{"type": "example-cap", "name": "cap", "config": {"maxParallelism": 5}}])"),
      "plugins");
  ASSERT_TRUE(plugins.ok()) << plugins.status().ToString();
  auto chain = core::ExecutorChain::Create(std::move(plugins).value());
  ASSERT_TRUE(chain.ok());
  Json states = Json::object();
  core::CycleState cycle;
  core::ChainOutcome outcome = chain->Run(core::ExecutorContext{.job_key = "ns/job"},
                                          {{"a", Summary(1, 10)}}, cycle, &states);
  EXPECT_FALSE(outcome.vetoed);
  EXPECT_EQ(outcome.summaries.at("a").new_parallelism, 5);
  EXPECT_EQ(outcome.steps.at(0).reason, "capped at 5");
  EXPECT_EQ(states["cap"]["calls"], 1);
}

TEST(SharedLibraryLoaderTest, ConfigRefusedByThePluginNamesFileAndField) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(LoadSharedLibraryPlugin(TRIMTAB_EXAMPLE_PLUGIN_PATH, registry).ok());
  auto plugin = registry.Create("example-cap", {"cap", 0}, Json{{"maxParallelism", 0}},
                                "plugins[3].config");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(plugin.status().message(), HasSubstr(TRIMTAB_EXAMPLE_PLUGIN_PATH));
  EXPECT_THAT(plugin.status().message(), HasSubstr("plugins[3].config"));
  EXPECT_THAT(plugin.status().message(), HasSubstr("config.maxParallelism: must be >= 1"));
}

TEST(SharedLibraryLoaderTest, LoadingTwiceIsADuplicate) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(LoadSharedLibraryPlugin(TRIMTAB_EXAMPLE_PLUGIN_PATH, registry).ok());
  auto again = LoadSharedLibraryPlugin(TRIMTAB_EXAMPLE_PLUGIN_PATH, registry);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(),
              HasSubstr("plugin type \"example-cap\" is already registered from"));
}

struct Refusal {
  const char* name;
  const char* path;
  StatusCode code;
  const char* message;
};

class SharedLibraryLoaderRefusalTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(SharedLibraryLoaderRefusalTest, RefusedWithAStatusNamingTheFile) {
  core::ExecutorPluginRegistry registry;
  auto loaded = LoadSharedLibraryPlugin(GetParam().path, registry);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), GetParam().code);
  EXPECT_THAT(loaded.status().message(),
              HasSubstr(std::string("plugin library ") + GetParam().path));
  EXPECT_THAT(loaded.status().message(), HasSubstr(GetParam().message));
  EXPECT_TRUE(registry.Types().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SharedLibraryLoaderRefusalTest,
    ::testing::Values(
        Refusal{"WrongAbiVersion", TRIMTAB_BAD_ABI_PLUGIN_PATH, StatusCode::kFailedPrecondition,
                "ABI version 42, this trimtab supports 1"},
        Refusal{"MissingEntryPoint", TRIMTAB_NO_ENTRY_PLUGIN_PATH, StatusCode::kInvalidArgument,
                "missing entry point trimtab_plugin_init"},
        Refusal{"NoSuchFile", "/nonexistent/libnothing.so", StatusCode::kInvalidArgument,
                "cannot load"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(SharedLibraryLoaderTest, NotALibraryIsRefused) {
  std::string path = ::testing::TempDir() + "/not_a_library.so";
  std::ofstream(path) << "#!/bin/sh\necho this is not an ELF file\n";
  core::ExecutorPluginRegistry registry;
  auto loaded = LoadSharedLibraryPlugin(path, registry);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("plugin library " + path + ": cannot load"));
}

struct BadOutput {
  const char* mode;
  const char* message;
};

class SharedLibraryBadOutputTest : public ::testing::TestWithParam<BadOutput> {};

TEST_P(SharedLibraryBadOutputTest, BecomesAVetoNamingTheFile) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(LoadSharedLibraryPlugin(TRIMTAB_BAD_OUTPUT_PLUGIN_PATH, registry).ok());
  auto plugin = Create(registry, "bad-output", Json{{"mode", GetParam().mode}});
  ASSERT_NE(plugin, nullptr);
  Json state;
  auto direct = Execute(*plugin, {{"a", Summary(1, 2)}}, state);
  ASSERT_FALSE(direct.ok());
  EXPECT_THAT(direct.status().message(), HasSubstr(TRIMTAB_BAD_OUTPUT_PLUGIN_PATH));
  EXPECT_THAT(direct.status().message(), HasSubstr(GetParam().message));

  std::vector<std::unique_ptr<core::ExecutorPlugin>> plugins;
  plugins.push_back(std::move(plugin));
  auto chain = core::ExecutorChain::Create(std::move(plugins));
  Json states = Json::object();
  core::CycleState cycle;
  core::ChainOutcome outcome = chain->Run(core::ExecutorContext{.job_key = "ns/job"},
                                          {{"a", Summary(1, 2)}}, cycle, &states);
  EXPECT_TRUE(outcome.vetoed);
  EXPECT_TRUE(outcome.steps.at(0).failed);
  EXPECT_THAT(outcome.veto_reason, HasSubstr(TRIMTAB_BAD_OUTPUT_PLUGIN_PATH));
}

INSTANTIATE_TEST_SUITE_P(
    Modes, SharedLibraryBadOutputTest,
    ::testing::Values(BadOutput{"garbage", "invalid JSON"},
                      BadOutput{"wrong-shape", "response.verdict: unknown verdict \"maybe\""},
                      BadOutput{"missing-summaries", "response.summaries: required"},
                      BadOutput{"null", "execute returned no response"}),
    [](const auto& info) {
      std::string name = info.param.mode;
      std::erase(name, '-');
      return name;
    });

TEST(SharedLibraryLoaderTest, DirectoryLoadSkipsRefusedFilesAndKeepsTheRest) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "trimtab_plugin_dir_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(TRIMTAB_EXAMPLE_PLUGIN_PATH, dir / "a_example.so");
  fs::copy_file(TRIMTAB_BAD_ABI_PLUGIN_PATH, dir / "b_bad_abi.so");
  fs::copy_file(TRIMTAB_NO_ENTRY_PLUGIN_PATH, dir / "c_no_entry.so");
  std::ofstream(dir / "readme.txt") << "ignored";
  core::ExecutorPluginRegistry registry;
  LoadReport report = LoadPluginDirectory(dir.string(), registry);
  EXPECT_EQ(report.loaded_files, std::vector<std::string>{(dir / "a_example.so").string()});
  ASSERT_EQ(report.failures.size(), 2u);
  EXPECT_THAT(report.failures[0].message(), HasSubstr("b_bad_abi.so: ABI version 42"));
  EXPECT_THAT(report.failures[1].message(), HasSubstr("c_no_entry.so: missing entry point"));
  EXPECT_TRUE(registry.Contains("example-cap"));

  LoadReport missing = LoadPluginDirectory((dir / "nope").string(), registry);
  ASSERT_EQ(missing.failures.size(), 1u);
  EXPECT_THAT(missing.failures[0].message(), HasSubstr("plugin directory"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace trimtab::plugins
