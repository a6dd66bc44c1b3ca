// Memory tuning (issue 23). Expected values are those of upstream's MemoryTuningTest (values
// only; the tests are written here).
#include "core/flink/memory_tuning.h"

#include <gtest/gtest.h>

#include "core/flink/evaluator.h"

namespace trimtab::core::flink {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;

TEST(MemoryTuningTest, FlinkMemorySizeFormat) {
  EXPECT_EQ(FormatFlinkMemorySize(0), "0 bytes");
  EXPECT_EQ(FormatFlinkMemorySize(13760 * 1024), "13760 kb");
  EXPECT_EQ(FormatFlinkMemorySize(120 * kMi), "120 mb");
  EXPECT_EQ(FormatFlinkMemorySize(30 * 1024 * kMi), "30 gb");
  EXPECT_EQ(FormatFlinkMemorySize(20108162027), "20108162027 bytes");
}

TEST(MemoryTuningTest, NetworkSegments) {
  EXPECT_EQ(NetworkSegments(10, 10, "FORWARD", 2, 8), 10);
  EXPECT_EQ(NetworkSegments(10, 15, "FORWARD", 2, 8), 12);  // FORWARD becomes RESCALE
  EXPECT_EQ(NetworkSegments(10, 15, "RESCALE", 2, 8), 12);
  EXPECT_EQ(NetworkSegments(10, 15, "REBALANCE", 2, 8), 38);
  EXPECT_EQ(NetworkSegments(10, 15, "UNKNOWN", 2, 8), 38);
}

TEST(MemoryTuningTest, FlinkMemoryModelFromTheProcessSize) {
  auto m = DeriveTaskManagerMemory({{"taskmanager.memory.process.size", "30 gb"}});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->overhead, 1024 * kMi);  // 10 % capped at 1 GiB
  EXPECT_EQ(m->metaspace, 256 * kMi);
  EXPECT_EQ(m->TotalFlink(), 29440 * kMi);
  // Fractions are Flink float options: 0.4f and 0.1f of 29440 MiB, a few bytes above 11776 and
  // 2944 MiB; the network memory has no upper bound by default.
  EXPECT_EQ(m->managed, 12348031160);
  EXPECT_EQ(m->network, 3087007790);
  EXPECT_EQ(m->Heap(), 15300820762);  // all but framework off-heap, managed and network
  EXPECT_EQ(m->TotalProcess(), 30 * 1024 * kMi);
  // From the Flink size: the overhead by the inverse fraction of Flink memory plus metaspace.
  m = DeriveTaskManagerMemory({{"taskmanager.memory.flink.size", "1280m"}});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->overhead, 192 * kMi);  // (1280 + 256) / 9 = 170.7 MiB, raised to the minimum
  EXPECT_FALSE(DeriveTaskManagerMemory({}).ok());
  auto bad = DeriveTaskManagerMemory({{"taskmanager.memory.process.size", "lots"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("taskmanager.memory.process.size", 0), 0u);
}

class MemoryTuningCase : public ::testing::Test {
 protected:
  void SetUp() override {
    conf_ = {{"taskmanager.memory.process.size", "30 gb"}};
    options_.memory_tuning_enabled = true;
    options_.memory_tuning_scale_down_compensation = false;
    topology_.vertices = {{.id = "v1", .parallelism = 50, .max_parallelism = 1000},
                          {.id = "v2", .parallelism = 50, .max_parallelism = 1000}};
    topology_.edges = {{"v1", "v2", "REBALANCE"}};
    summaries_ = {{"v1", {50, 25, {}}}, {"v2", {50, 10, {}}}};
    SetAverage(&evaluated_.global, kMetricHeapMemoryUsed, 5096.0 * kMi);
    SetAverage(&evaluated_.global, kMetricManagedMemoryUsed, 10000.0 * kMi);
    SetAverage(&evaluated_.global, kMetricMetaspaceMemoryUsed, 100.0 * kMi);
    SetCurrent(&evaluated_.global, kMetricNumTaskSlotsUsed, 50);
  }
  MemoryTuningResult Tune() {
    return TuneTaskManagerMemory({.configuration = &conf_,
                                  .options = &options_,
                                  .evaluated = &evaluated_,
                                  .topology = &topology_,
                                  .summaries = &summaries_,
                                  .task_manager_memory = int64_t{30} << 30,
                                  .slots_per_task_manager = 5});
  }
  static std::map<std::string, std::string> Expected(const std::string& managed_fraction,
                                                     const std::string& metaspace,
                                                     const std::string& overhead_fraction,
                                                     const std::string& process) {
    return {{"taskmanager.memory.managed.fraction", managed_fraction},
            {"taskmanager.memory.network.min", "13760 kb"},
            {"taskmanager.memory.network.max", "13760 kb"},
            {"taskmanager.memory.jvm-metaspace.size", metaspace},
            {"taskmanager.memory.jvm-overhead.fraction", overhead_fraction},
            {"taskmanager.memory.framework.heap.size", "0 bytes"},
            {"taskmanager.memory.process.size", process}};
  }

  std::map<std::string, std::string> conf_;
  AutoscalerOptions options_;
  JobTopology topology_;
  ScalingSummaries summaries_;
  EvaluatedMetrics evaluated_;
};

TEST_F(MemoryTuningCase, UpstreamExpectations) {
  MemoryTuningResult r = Tune();
  EXPECT_EQ(r.applied.overrides, Expected("0.654", "120 mb", "0.054", "20108162027 bytes"));
  EXPECT_EQ(r.applied.removals,
            (std::set<std::string>{"taskmanager.memory.flink.size",
                                   "taskmanager.memory.task.heap.size",
                                   "taskmanager.memory.managed.size", "taskmanager.memory.size"}));
  ASSERT_TRUE(r.event);
  EXPECT_EQ(r.event->reason, "Configuration recommendation");
  EXPECT_EQ(r.event->message.rfind("Memory tuning recommends the following configuration "
                                   "(automatic tuning is enabled):\n",
                                   0),
            0u);

  options_.memory_tuning_maximize_managed_memory = true;
  EXPECT_EQ(Tune().applied.overrides, Expected("0.789", "120 mb", "0.034", "30 gb"));

  SetAverage(&evaluated_.global, kMetricManagedMemoryUsed, 0);
  EXPECT_EQ(Tune().applied.overrides, Expected("0.0", "120 mb", "0.139", "7760130867 bytes"));

  // Scale-down compensation: 10 -> 5 TaskManagers doubles the heap.
  options_.memory_tuning_scale_down_compensation = true;
  EXPECT_EQ(Tune().applied.overrides, Expected("0.0", "120 mb", "0.076", "14172382822 bytes"));

  // Usage beyond the budget: metaspace first, then heap takes what is left.
  SetAverage(&evaluated_.global, kMetricHeapMemoryUsed, 30812254720.0);
  SetAverage(&evaluated_.global, kMetricMetaspaceMemoryUsed, 268435456.0);
  EXPECT_EQ(Tune().applied.overrides, Expected("0.0", "322122547 bytes", "0.034", "30 gb"));

  options_.memory_tuning_enabled = false;
  r = Tune();
  EXPECT_TRUE(r.applied.empty());
  EXPECT_FALSE(r.recommended.empty());
  ASSERT_TRUE(r.event);
  EXPECT_NE(r.event->message.find("(automatic tuning is disabled)"), std::string::npos);
}

TEST_F(MemoryTuningCase, NothingWithoutAValidConfigurationOrSpecMemory) {
  conf_ = {};
  MemoryTuningResult r = Tune();
  EXPECT_TRUE(r.recommended.empty());
  EXPECT_FALSE(r.event);
  EXPECT_NE(r.note.find("not valid"), std::string::npos);
}

TEST(MemoryTuningTest, ApplyConfigChangesRemovesThenOverrides) {
  ConfigChanges c{{{"a", "1"}}, {"a", "b"}};
  EXPECT_EQ(ApplyConfigChanges({{"a", "0"}, {"b", "2"}, {"c", "3"}}, c),
            (std::map<std::string, std::string>{{"a", "1"}, {"c", "3"}}));
}

}  // namespace
}  // namespace trimtab::core::flink
