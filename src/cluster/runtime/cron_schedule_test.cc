// Tests for CronSchedule: field syntax, descriptors, the day-of-month / day-of-week rule and
// errors naming the field.
#include "cluster/runtime/cron_schedule.h"

#include <gtest/gtest.h>

namespace trimtab::cluster::runtime {
namespace {

TimePoint At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

std::string NextAfter(const char* spec, const char* t) {
  auto s = CronSchedule::Parse(spec);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.status().ToString();
  auto next = s->Next(At(t));
  return next ? FormatRfc3339(*next) : "none";
}

TEST(CronScheduleTest, NextMatchingMinute) {
  EXPECT_EQ(NextAfter("*/5 * * * *", "2026-03-01T10:02:30Z"), "2026-03-01T10:05:00Z");
  EXPECT_EQ(NextAfter("*/5 * * * *", "2026-03-01T10:05:00Z"), "2026-03-01T10:10:00Z");
  EXPECT_EQ(NextAfter("0 3 * * *", "2026-03-01T10:00:00Z"), "2026-03-02T03:00:00Z");
  EXPECT_EQ(NextAfter("30 9 1-7 * mon", "2026-03-01T00:00:00Z"), "2026-03-01T09:30:00Z");
  EXPECT_EQ(NextAfter("0 0 * * 7", "2026-03-02T00:00:00Z"), "2026-03-08T00:00:00Z");  // Sunday
  EXPECT_EQ(NextAfter("0 0 1 jan *", "2026-03-01T00:00:00Z"), "2027-01-01T00:00:00Z");
  EXPECT_EQ(NextAfter("@hourly", "2026-03-01T10:00:00Z"), "2026-03-01T11:00:00Z");
  EXPECT_EQ(NextAfter("@daily", "2026-03-01T10:00:00Z"), "2026-03-02T00:00:00Z");
  EXPECT_EQ(NextAfter("5-10/5,59 * * * *", "2026-03-01T10:06:00Z"), "2026-03-01T10:10:00Z");
  EXPECT_EQ(NextAfter("0 0 31 2 *", "2026-03-01T00:00:00Z"), "none");  // never
  // Both day fields restricted: either matches (the 1st, or a Friday).
  EXPECT_EQ(NextAfter("0 12 1 * fri", "2026-03-02T00:00:00Z"), "2026-03-06T12:00:00Z");
}

TEST(CronScheduleTest, ErrorsNameTheField) {
  for (const char* bad : {"* * * *", "61 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
                          "*/0 * * * *", "x * * * *", "* * * * funday", "5-1 * * * *"}) {
    auto s = CronSchedule::Parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
  }
  auto s = CronSchedule::Parse("* 25 * * *");
  EXPECT_NE(s.status().message().find("hour"), std::string::npos) << s.status().ToString();
  EXPECT_FALSE(CronSchedule::Parse("* * * * *", "Europe/Berlin").ok());
  EXPECT_TRUE(CronSchedule::Parse("* * * * *", "Etc/UTC").ok());
  EXPECT_FALSE(CronSchedule::Parse("TZ=UTC * * * * *").ok());
}

}  // namespace
}  // namespace trimtab::cluster::runtime
