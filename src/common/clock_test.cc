#include "common/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace trimtab {
namespace {

TEST(ManualClockTest, AdvanceWakesSleepers) {
  ManualClock clock(FromUnixMillis(1'000));
  std::thread sleeper([&] { clock.SleepFor(Seconds(10)); });
  clock.WaitForSleepersForTest(1);
  clock.Advance(Seconds(5));
  clock.Advance(Seconds(5));
  sleeper.join();
  EXPECT_EQ(ToUnixMillis(clock.Now()), 11'000);
}

TEST(Rfc3339Test, FormatAndParseRoundTrip) {
  const TimePoint t = FromUnixMillis(1714564800000);  // 2024-05-01T12:00:00Z
  EXPECT_EQ(FormatRfc3339(t), "2024-05-01T12:00:00Z");
  auto parsed = ParseRfc3339("2024-05-01T12:00:00Z");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, t);
}

TEST(Rfc3339Test, FractionAndOffset) {
  auto a = ParseRfc3339("2024-05-01T14:00:00.250+02:00");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(ToUnixMillis(*a), 1714564800250);
}

TEST(Rfc3339Test, RejectsGarbage) {
  for (const char* bad : {"", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T12:00:00",
                          "2024-02-30T00:00:00Z", "2024-05-01T12:00:00Zjunk"}) {
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
  }
}

// Issue 27 (found by fuzz_eval_flink): a year the nanosecond clock cannot hold overflowed a
// signed 64-bit multiplication (undefined behaviour); it is now an error.
TEST(ClockTest, Issue27TimesBeyondTheClocksRangeAreErrors) {
  for (const char* text : {"4048-05-01T12:00:01Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
                           "1600-01-01T00:00:00Z"}) {
    auto t = ParseRfc3339(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_NE(t.status().message().find("out of range"), std::string::npos) << t.status().ToString();
  }
  EXPECT_TRUE(ParseRfc3339("2262-01-01T00:00:00Z").ok());
  EXPECT_TRUE(ParseRfc3339("1700-01-01T00:00:00Z").ok());
}

}  // namespace
}  // namespace trimtab
