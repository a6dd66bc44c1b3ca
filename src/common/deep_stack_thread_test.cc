#include "common/deep_stack_thread.h"

#include <atomic>
#include <cstddef>
#include <utility>

#include <gtest/gtest.h>

namespace trimtab {
namespace {

// Recurses `levels` times with a 4 KiB frame: 4,096 levels need 16 MiB of stack, twice the usual
// default, and crash a thread that does not have it.
size_t DeepRecursion(size_t levels) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(levels);
  frame[sizeof(frame) - 1] = frame[0];
  if (levels == 0) return static_cast<size_t>(frame[sizeof(frame) - 1] == 0);
  return DeepRecursion(levels - 1) + static_cast<size_t>(frame[0] == frame[sizeof(frame) - 1]);
}

TEST(DeepStackThreadTest, RunsTheBodyOnAStackForDeepRecursion) {
  std::atomic<size_t> result{0};
  auto thread = DeepStackThread::Start([&] { result = DeepRecursion(4096); });
  ASSERT_TRUE(thread.ok()) << thread.status().ToString();
  EXPECT_TRUE(thread->joinable());
  thread->join();
  EXPECT_FALSE(thread->joinable());
  EXPECT_EQ(result.load(), 4097u);
}

TEST(DeepStackThreadTest, MovesAndJoinsOnDestruction) {
  std::atomic<int> runs{0};
  {
    auto started = DeepStackThread::Start([&] { ++runs; });
    ASSERT_TRUE(started.ok());
    DeepStackThread moved = std::move(started).value();
    EXPECT_TRUE(moved.joinable());
    DeepStackThread target;
    EXPECT_FALSE(target.joinable());
    target = std::move(moved);
    EXPECT_FALSE(moved.joinable());  // NOLINT(bugprone-use-after-move): the moved-from state
    EXPECT_TRUE(target.joinable());
  }  // target joins here
  EXPECT_EQ(runs.load(), 1);
}

}  // namespace
}  // namespace trimtab
