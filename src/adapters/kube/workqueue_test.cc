#include "adapters/kube/workqueue.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace trimtab::kube {
namespace {

using namespace std::chrono_literals;

TimePoint Start() { return TimePoint{} + std::chrono::hours(1000); }

TEST(WorkQueueTest, DedupAndFifo) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.TryGet(), "a");
  EXPECT_EQ(q.TryGet(), "b");
  EXPECT_EQ(q.TryGet(), std::nullopt);
}

TEST(WorkQueueTest, CountsAddsRetriesAndDepth) {
  ManualClock clock(Start());
  MetricsRegistry metrics;
  WorkQueue q({.clock = &clock, .metrics = &metrics, .name = "flinkdeployment"});
  const LabelValues labels = {"flinkdeployment"};
  q.Add("a");
  q.Add("b");
  q.Add("a");  // already waiting: not an add
  EXPECT_EQ(metrics.Find("workqueue_adds_total")->Value(labels), 2);
  EXPECT_EQ(metrics.Find("workqueue_depth")->Value(labels), 2);
  std::optional<std::string> key = q.TryGet();
  ASSERT_TRUE(key);
  EXPECT_EQ(metrics.Find("workqueue_depth")->Value(labels), 1);
  q.AddRateLimited(*key);
  q.Done(*key);
  EXPECT_EQ(metrics.Find("workqueue_retries_total")->Value(labels), 1);
  EXPECT_NE(metrics.Render().find("workqueue_depth{name=\"flinkdeployment\"} 1\n"),
            std::string::npos);
}

TEST(WorkQueueTest, ProcessingKeyIsRequeuedOnDone) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.Add("a");
  ASSERT_EQ(q.TryGet(), "a");
  q.Add("a");  // while processing: not handed out again yet
  q.Add("a");
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_EQ(q.TryGet(), std::nullopt);
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  ASSERT_EQ(q.TryGet(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);  // not dirty any more
}

TEST(WorkQueueTest, AddAfterWaitsForTheClock) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.AddAfter("a", 10s);
  q.AddAfter("b", 5s);
  EXPECT_EQ(q.NumWaiting(), 2u);
  EXPECT_EQ(q.TryGet(), std::nullopt);
  ASSERT_TRUE(q.NextReadyTime().has_value());
  EXPECT_EQ(*q.NextReadyTime(), Start() + 5s);
  clock.Advance(5s);
  EXPECT_EQ(q.TryGet(), "b");
  EXPECT_EQ(q.TryGet(), std::nullopt);
  clock.Advance(5s);
  EXPECT_EQ(q.TryGet(), "a");
}

TEST(WorkQueueTest, EarlierAddAfterWinsLaterDoesNot) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.AddAfter("a", 10s);
  q.AddAfter("a", 20s);  // ignored
  q.AddAfter("a", 3s);   // moves it forward
  EXPECT_EQ(q.NumWaiting(), 1u);
  clock.Advance(3s);
  EXPECT_EQ(q.TryGet(), "a");
  q.Done("a");
  clock.Advance(20s);
  EXPECT_EQ(q.TryGet(), std::nullopt);  // no leftover entry
  q.AddAfter("b", 0s);                   // zero delay: immediately ready
  EXPECT_EQ(q.Len(), 1u);
}

TEST(WorkQueueTest, ExponentialBackoffClientGoDefaults) {
  ManualClock clock(Start());
  auto limiter = DefaultControllerRateLimiter(&clock);
  EXPECT_EQ(limiter->When("one"), 5ms);
  EXPECT_EQ(limiter->When("one"), 10ms);
  EXPECT_EQ(limiter->When("one"), 20ms);
  EXPECT_EQ(limiter->When("one"), 40ms);
  EXPECT_EQ(limiter->When("one"), 80ms);
  EXPECT_EQ(limiter->NumRequeues("one"), 5);
  EXPECT_EQ(limiter->When("two"), 5ms);
  limiter->Forget("one");
  EXPECT_EQ(limiter->NumRequeues("one"), 0);
  EXPECT_EQ(limiter->When("one"), 5ms);

  ExponentialBackoffLimiter capped(5ms, 1000s);
  Duration last{};
  for (int i = 0; i < 100; ++i) last = capped.When("k");
  EXPECT_EQ(last, Duration(1000s));
  EXPECT_EQ(capped.NumRequeues("k"), 100);
}

TEST(WorkQueueTest, TokenBucketBurstThenQps) {
  ManualClock clock(Start());
  TokenBucketLimiter bucket(&clock, 10.0, 100);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bucket.When("x"), Duration::zero()) << i;
  EXPECT_EQ(bucket.When("x"), Duration(100ms));  // 101st: one token at 10/s
  EXPECT_EQ(bucket.When("x"), Duration(200ms));
  clock.Advance(1s);  // +10 tokens, 2 already owed
  for (int i = 0; i < 8; ++i) ASSERT_EQ(bucket.When("x"), Duration::zero()) << i;
  EXPECT_EQ(bucket.When("x"), Duration(100ms));
}

TEST(WorkQueueTest, AddRateLimitedAndForget) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.AddRateLimited("k");
  EXPECT_EQ(q.TryGet(), std::nullopt);
  clock.Advance(5ms);
  ASSERT_EQ(q.TryGet(), "k");
  q.AddRateLimited("k");  // second failure: 10 ms
  q.Done("k");
  clock.Advance(9ms);
  EXPECT_EQ(q.TryGet(), std::nullopt);
  clock.Advance(1ms);
  ASSERT_EQ(q.TryGet(), "k");
  EXPECT_EQ(q.NumRequeues("k"), 2);
  q.Forget("k");
  q.Done("k");
  EXPECT_EQ(q.NumRequeues("k"), 0);
}

TEST(WorkQueueTest, ShutDownDrainsQueuedKeysThenStops) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.Add("a");
  q.AddAfter("later", 1s);
  q.ShutDown();
  q.Add("b");  // dropped
  EXPECT_TRUE(q.ShuttingDown());
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), std::nullopt);
  EXPECT_EQ(q.NumWaiting(), 0u);
}

TEST(WorkQueueTest, BlockedGetWakesOnAddAndShutdown) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  std::optional<std::string> got;
  std::thread worker([&] { got = q.Get(); });
  q.Add("x");
  worker.join();
  EXPECT_EQ(got, "x");

  std::atomic<bool> returned{false};
  std::thread idle([&] {
    EXPECT_EQ(q.Get(), std::nullopt);
    returned = true;
  });
  q.ShutDown();
  idle.join();
  EXPECT_TRUE(returned.load());
}

TEST(WorkQueueTest, BlockedGetSeesManualClockAdvance) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock, .poll_interval = 2ms});
  q.AddAfter("x", 1min);
  std::optional<std::string> got;
  std::thread worker([&] { got = q.Get(); });
  clock.Advance(1min);
  worker.join();  // returns within a few poll intervals
  EXPECT_EQ(got, "x");
}

TEST(WorkQueueTest, ShutDownWithDrainWaitsForDone) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  q.Add("a");
  ASSERT_EQ(q.TryGet(), "a");
  std::atomic<bool> drained{false};
  std::thread stopper([&] {
    q.ShutDownWithDrain();
    drained = true;
  });
  // The stopper cannot finish while "a" is in process.
  for (int i = 0; i < 1000 && !q.ShuttingDown(); ++i) std::this_thread::yield();
  EXPECT_FALSE(drained.load());
  q.Done("a");
  stopper.join();
  EXPECT_TRUE(drained.load());
}

TEST(WorkQueueTest, ConcurrentWorkersNeverShareAKey) {
  ManualClock clock(Start());
  WorkQueue q({.clock = &clock});
  std::mutex mu;
  std::set<std::string> in_flight;
  std::atomic<int> overlaps{0};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (std::optional<std::string> key = q.Get()) {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!in_flight.insert(*key).second) ++overlaps;
        }
        std::this_thread::yield();
        {
          std::lock_guard<std::mutex> lock(mu);
          in_flight.erase(*key);
        }
        ++processed;
        q.Done(*key);
      }
    });
  }
  for (int i = 0; i < 2000; ++i) q.Add("k" + std::to_string(i % 7));
  q.ShutDownWithDrain();
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_GE(processed.load(), 7);
}

}  // namespace
}  // namespace trimtab::kube
