#include "common/flink_option_reader.h"

#include <gtest/gtest.h>

namespace trimtab {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;

const std::map<std::string, std::string> kConf = {
    {"job.autoscaler.metrics.window", "10 min"},
    {"kubernetes.operator.job.autoscaler.metrics.window", "20 min"},
    {"kubernetes.operator.job.autoscaler.target.utilization", "0.6"},
    {"job.autoscaler.restart.time", "soon"},
    {"job.autoscaler.scaling.enabled", "TRUE"},
    {"job.autoscaler.vertex.max-parallelism", "3000000000"},
    {"job.autoscaler.quota.memory", "2 gb"},
    {"job.autoscaler.typo.window", "1 s"},
    {"taskmanager.numberOfTaskSlots", "2"},
};

FlinkOptionReader Autoscaler() {
  return FlinkOptionReader(kConf, {"job.autoscaler.", "kubernetes.operator.job.autoscaler."});
}

TEST(FlinkOptionReaderTest, TheFirstPrefixWinsAndAbsentOptionsKeepTheDefault) {
  FlinkOptionReader r = Autoscaler();
  milliseconds window = minutes(15);
  ASSERT_TRUE(r.Duration("metrics.window", &window).ok());
  EXPECT_EQ(window, minutes(10));
  double utilization = 0.7;
  ASSERT_TRUE(r.Double("target.utilization", &utilization).ok());
  EXPECT_DOUBLE_EQ(utilization, 0.6);
  milliseconds stabilization = minutes(5);
  ASSERT_TRUE(r.Duration("stabilization.interval", &stabilization).ok());
  EXPECT_EQ(stabilization, minutes(5));
  std::optional<double> boundary;
  ASSERT_TRUE(r.OptionalDouble("target.utilization.boundary", &boundary).ok());
  EXPECT_FALSE(boundary.has_value());
  bool enabled = false;
  ASSERT_TRUE(r.Bool("scaling.enabled", &enabled).ok());
  EXPECT_TRUE(enabled);
  int64_t quota = 0;
  ASSERT_TRUE(r.MemorySize("quota.memory", &quota).ok());
  EXPECT_EQ(quota, int64_t{2} << 30);
}

TEST(FlinkOptionReaderTest, ErrorsNameTheKeyAsWritten) {
  FlinkOptionReader r = Autoscaler();
  milliseconds restart{0};
  Status bad = r.Duration("restart.time", &restart);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.message().starts_with("job.autoscaler.restart.time: invalid duration \"soon\""))
      << bad.message();
  int max_parallelism = 200;
  Status range = r.Int("vertex.max-parallelism", &max_parallelism);
  EXPECT_EQ(range.message(), "job.autoscaler.vertex.max-parallelism: value out of range");
  EXPECT_EQ(max_parallelism, 200);
  int64_t wide = 0;
  ASSERT_TRUE(r.Int("vertex.max-parallelism", &wide).ok());
  EXPECT_EQ(wide, 3000000000);
}

TEST(FlinkOptionReaderTest, AliasesAndKeyOf) {
  FlinkOptionReader r = Autoscaler();
  EXPECT_EQ(r.KeyOf("utilization.target", {"target.utilization"}),
            "kubernetes.operator.job.autoscaler.target.utilization");
  EXPECT_EQ(r.KeyOf("catch-up.duration"), "job.autoscaler.catch-up.duration");
  std::optional<FlinkOptionReader::Entry> entry = r.Find("metrics.window");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->key, "job.autoscaler.metrics.window");
  EXPECT_EQ(entry->value, "10 min");
}

TEST(FlinkOptionReaderTest, UnconsumedListsKeysNobodyAskedAbout) {
  FlinkOptionReader r = Autoscaler();
  milliseconds window{0};
  ASSERT_TRUE(r.Duration("metrics.window", &window).ok());
  bool enabled = false;
  ASSERT_TRUE(r.Bool("scaling.enabled", &enabled).ok());
  EXPECT_EQ(r.Unconsumed(), (std::vector<std::string>{
                                "job.autoscaler.quota.memory", "job.autoscaler.restart.time",
                                "job.autoscaler.typo.window", "job.autoscaler.vertex.max-parallelism",
                                "kubernetes.operator.job.autoscaler.target.utilization"}));
  FlinkOptionReader plain(kConf, {});
  int64_t slots = 1;
  ASSERT_TRUE(plain.Int("taskmanager.numberOfTaskSlots", &slots).ok());
  EXPECT_EQ(slots, 2);
  EXPECT_TRUE(plain.Unconsumed().empty());
}

}  // namespace
}  // namespace trimtab
