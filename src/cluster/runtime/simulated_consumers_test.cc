// The simulated topic of a consumer Deployment: annotations parsed with field-named errors, the
// range assignment, and lag that follows the consumer count exactly between changes.
#include "cluster/runtime/simulated_consumers.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace trimtab::cluster::runtime {
namespace {

const TimePoint kT0 = FromUnixMillis(1'700'000'000'000);

double TotalLag(const metrics::TopicSample& s) {
  double lag = 0;
  for (const auto& p : s.partitions) lag += p.end_offset - p.committed_offset;
  return lag;
}

Json Deployment(Json annotations) {
  return {{"metadata", {{"name", "consumers"}, {"namespace", "default"}, {"annotations", annotations}}}};
}

TEST(ConsumerTopicSpec, FromAnnotations) {
  auto none = ConsumerTopicSpecOf(Deployment(Json::object()));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto spec = ConsumerTopicSpecOf(Deployment({{kTopicAnnotation, "orders"},
                                              {kTopicPartitionsAnnotation, "4"},
                                              {kTopicProduceRateAnnotation, "1000"},
                                              {kConsumeRatePerPodAnnotation, "300.5"}}));
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(spec->has_value());
  EXPECT_EQ((*spec)->topic, "orders");
  EXPECT_EQ((*spec)->group, "consumers");  // the Deployment's name
  EXPECT_EQ((*spec)->partitions, 4);
  EXPECT_DOUBLE_EQ((*spec)->produce_rate, 1000);
  EXPECT_DOUBLE_EQ((*spec)->rate_per_pod, 300.5);
  auto bad = ConsumerTopicSpecOf(Deployment({{kTopicAnnotation, "orders"},
                                             {kTopicPartitionsAnnotation, "2.5"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "metadata.annotations[trimtab.dev/topic-partitions]: \"2.5\" is not a non-negative integer");
  bad = ConsumerTopicSpecOf(Deployment({{kTopicAnnotation, "orders"},
                                        {kTopicProduceRateAnnotation, "fast"}}));
  EXPECT_FALSE(bad.ok());
}

TEST(ConsumerTopicModel, LagFollowsTheConsumerCount) {
  ConsumerTopicModel model({.topic = "orders", .group = "g", .partitions = 4, .produce_rate = 1000,
                            .rate_per_pod = 300},
                           kT0);
  // One consumer for 10 s: 1000 in, 300 out per second.
  model.SetConsumers({"c-1"}, kT0);
  auto s = model.Sample(kT0 + std::chrono::seconds(10));
  EXPECT_NEAR(TotalLag(s), 7000, 1e-6);
  EXPECT_NEAR(s.partitions[0].end_offset, 2500, 1e-6);
  EXPECT_EQ(s.partitions[3].consumer_pod, "c-1");
  // Four consumers from t=10 s: 1200 out per second drains 200/s, the lag never goes below 0.
  model.SetConsumers({"c-4", "c-2", "c-3", "c-1"}, kT0 + std::chrono::seconds(10));
  s = model.Sample(kT0 + std::chrono::seconds(20));
  EXPECT_NEAR(TotalLag(s), 5000, 1e-6);
  EXPECT_EQ(s.partitions[1].consumer_pod, "c-2");  // sorted, one partition each
  s = model.Sample(kT0 + std::chrono::seconds(100));
  EXPECT_NEAR(TotalLag(s), 0, 1e-6);
  EXPECT_DOUBLE_EQ(s.records_in_per_second, 1000);
}

TEST(ConsumerTopicModel, RangeAssignmentAndIdleConsumers) {
  ConsumerTopicModel model({.topic = "t", .group = "g", .partitions = 3, .produce_rate = 0,
                            .rate_per_pod = 90},
                           kT0);
  model.SetConsumers({"a", "b"}, kT0);
  auto s = model.Sample(kT0);
  EXPECT_EQ(s.partitions[0].consumer_pod, "a");
  EXPECT_EQ(s.partitions[1].consumer_pod, "a");
  EXPECT_EQ(s.partitions[2].consumer_pod, "b");
  // Five consumers on three partitions: two stay idle, as in Kafka.
  model.SetConsumers({"a", "b", "c", "d", "e"}, kT0);
  s = model.Sample(kT0);
  EXPECT_EQ(s.partitions[2].consumer_pod, "c");
  // Rate changes apply from the moment they are seen.
  model.SetSpec({.topic = "t", .group = "g", .partitions = 3, .produce_rate = 600, .rate_per_pod = 90},
                kT0);
  s = model.Sample(kT0 + std::chrono::seconds(10));
  EXPECT_NEAR(TotalLag(s), (600 - 3 * 90) * 10, 1e-6);
}

}  // namespace
}  // namespace trimtab::cluster::runtime
