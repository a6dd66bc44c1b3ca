#include "common/process_limits.h"

#include <sys/resource.h>

#include <gtest/gtest.h>

namespace trimtab {
namespace {

// Issue 27: trimtab never raised its descriptor limit, so ~1,000 watches exhausted it.
TEST(ProcessLimitsTest, Issue27RaisesTheSoftLimitToTheHardLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  if (saved.rlim_max < 512) GTEST_SKIP() << "hard limit too low to lower the soft one";
  rlimit low = saved;
  low.rlim_cur = 256;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);

  auto raised = RaiseOpenFileLimit(/*cap=*/4096);
  ASSERT_TRUE(raised.ok()) << raised.status().message();
  EXPECT_EQ(raised->before, 256u);
  const uint64_t want = std::min<uint64_t>(saved.rlim_max, 4096);
  EXPECT_EQ(raised->after, want);
  rlimit now{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, want);
  // Already there: nothing to do.
  auto again = RaiseOpenFileLimit(4096);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->before, again->after);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

}  // namespace
}  // namespace trimtab
