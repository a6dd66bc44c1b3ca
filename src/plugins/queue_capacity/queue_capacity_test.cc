#include "plugins/queue_capacity/queue_capacity.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::LinearTopology;
using core::testing::Summary;

constexpr double kGi = 1024.0 * 1024 * 1024;

// A job of two vertices at parallelism 4 on 2 TaskManagers x 2 slots (1 cpu, 2 GiB each), in a
// queue with capability 8 cpu / 64 GiB of which 5 cpu are allocated (the job's 2 TMs + JM + 2
// cpu of other jobs); two nodes with room for 3 and 1 more TaskManagers.
core::ExecutorContext Context() {
  core::ExecutorContext c{.job_key = "team/orders", .namespace_name = "team"};
  c.topology = LinearTopology({4, 4});
  core::QueueHeadroom q;
  q.queue = "analytics";
  q.exists = true;
  q.capability = {.cpu = 8, .memory_bytes = 64 * kGi};
  q.allocated = {.cpu = 5, .memory_bytes = 10 * kGi};
  q.cluster_total = {.cpu = 100, .memory_bytes = 400 * kGi};
  q.node_free = std::vector<core::ResourceAmounts>{{.cpu = 3.5, .memory_bytes = 32 * kGi},
                                                   {.cpu = 4, .memory_bytes = 2.5 * kGi}};
  q.task_manager = {.cpu = 1, .memory_bytes = 2 * kGi};
  q.slots_per_task_manager = 2;
  q.task_managers = 2;
  c.queue = q;
  return c;
}

StatusOr<core::ExecutorResult> Gate(const core::ExecutorContext& c, const core::ScalingSummaries& s,
                                   QueueCapacityOptions options = {}) {
  QueueCapacity plugin({"queue-capacity", 0}, options);
  core::CycleState cycle;
  Json state;
  return plugin.Execute(c, s, cycle, state);
}

TEST(QueueCapacityTest, ScaleUpThatFitsIsApproved) {
  // 4 -> 8 slots: 2 more TaskManagers; the queue admits 3 (8 - 5 cpu), the nodes 3 + 1.
  auto r = Gate(Context(), {{"v0", Summary(4, 8)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "8 slots fit: Volcano queue \"analytics\" admits 3 more TaskManagers (cpu capability "
            "8.00 cpu, allocated 5.00 cpu), the nodes fit 4; 2 TaskManagers x 2 slots now, at "
            "most 5 (10 slots)");
}

TEST(QueueCapacityTest, ScaleUpBeyondTheQueueIsTrimmed) {
  auto r = Gate(Context(), {{"v0", Summary(4, 16)}, {"v1", Summary(4, 12)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 10);
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 10);
  EXPECT_TRUE(r->reason.starts_with("trimmed from 16 to 10 slots: Volcano queue \"analytics\""))
      << r->reason;
}

TEST(QueueCapacityTest, NodesCanBeTheLimit) {
  core::ExecutorContext c = Context();
  c.queue->node_free = std::vector<core::ResourceAmounts>{{.cpu = 0.5, .memory_bytes = 32 * kGi},
                                                          {.cpu = 4, .memory_bytes = 3 * kGi}};
  auto r = Gate(c, {{"v0", Summary(4, 16)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 6);  // one more TaskManager fits
}

TEST(QueueCapacityTest, NothingAdmittedIsAVetoWithTheNumbers) {
  core::ExecutorContext c = Context();
  c.queue->allocated = {.cpu = 8, .memory_bytes = 10 * kGi};
  auto r = Gate(c, {{"v0", Summary(4, 6)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "scale-up to 6 slots (from 4) cannot be admitted: Volcano queue \"analytics\" admits 0 "
            "more TaskManagers (cpu capability 8.00 cpu, allocated 8.00 cpu), the nodes fit 4; 2 "
            "TaskManagers x 2 slots now, at most 2 (4 slots)");
}

TEST(QueueCapacityTest, DeservedLimitsUnlessBorrowingIsAllowed) {
  core::ExecutorContext c = Context();
  c.queue->deserved = {.cpu = 6};
  auto r = Gate(c, {{"v0", Summary(4, 10)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 6);  // 6 - 5 cpu: one TaskManager
  r = Gate(c, {{"v0", Summary(4, 10)}}, {.allow_borrowing = true});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
}

TEST(QueueCapacityTest, OtherQueuesGuaranteesAreNotAvailable) {
  core::ExecutorContext c = Context();
  c.queue->capability = {};
  c.queue->cluster_total = {.cpu = 10};
  c.queue->others_guarantee = {.cpu = 4};
  auto r = Gate(c, {{"v0", Summary(4, 10)}});  // 10 - 4 - 5 = 1 cpu left
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 6);
}

TEST(QueueCapacityTest, ScaleDownsAreNeverTouched) {
  core::ExecutorContext c = Context();
  c.queue->exists = false;
  auto r = Gate(c, {{"v0", Summary(4, 2)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  // A mixed decision whose scale-up cannot be admitted keeps its scale-down.
  c = Context();
  c.queue->allocated = {.cpu = 8};
  r = Gate(c, {{"v0", Summary(4, 8)}, {"v1", Summary(4, 2)}}, {.slot_sharing = false});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  ASSERT_EQ(r->summaries.size(), 1u);  // the scale-up of v0 is gone, v1's scale-down stays
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 2);
}

TEST(QueueCapacityTest, MissingDataVetoesAndNoQueueApproves) {
  core::ExecutorContext c = Context();
  c.queue.reset();
  auto r = Gate(c, {{"v0", Summary(4, 8)}});
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason, "the job is not in a Volcano queue");
  c = Context();
  c.queue->exists = false;
  EXPECT_EQ(Gate(c, {{"v0", Summary(4, 8)}})->reason, "Volcano queue \"analytics\" does not exist");
  EXPECT_EQ(Gate(c, {{"v0", Summary(4, 8)}})->verdict, ChainVerdict::kVeto);
  c = Context();
  c.queue->state = "Closed";
  EXPECT_EQ(Gate(c, {{"v0", Summary(4, 8)}})->reason,
            "Volcano queue \"analytics\" is Closed: it admits no new pods");
  c = Context();
  c.queue->error = "forbidden";
  EXPECT_EQ(Gate(c, {{"v0", Summary(4, 8)}})->reason,
            "cannot read Volcano queue \"analytics\": forbidden");
  c = Context();
  c.queue->node_free.reset();
  EXPECT_EQ(Gate(c, {{"v0", Summary(4, 8)}})->verdict, ChainVerdict::kVeto);
  c = Context();
  c.queue->task_manager = {};
  EXPECT_EQ(Gate(c, {{"v0", Summary(4, 8)}})->verdict, ChainVerdict::kVeto);
}

TEST(QueueCapacityTest, ConfigRejectsUnknownFields) {
  EXPECT_EQ(ParseQueueCapacityOptions({{"borrow", true}}, "plugins[0].config").status().message(),
            "plugins[0].config.borrow: unknown field");
  auto o = ParseQueueCapacityOptions({{"allowBorrowing", true}, {"slotSharing", false}}, "p");
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->allow_borrowing);
  EXPECT_FALSE(o->slot_sharing);
}

}  // namespace
}  // namespace trimtab::plugins
