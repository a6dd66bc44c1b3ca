// Excluded periods (`job.autoscaler.excluded.periods`): times during which the autoscaler still
// evaluates and recommends but never scales.
//
// Syntax per upstream: a ";"-separated list of periods; each period is one daily time range
// "HH:mm:ss-HH:mm:ss", one Quartz cron expression ("* * 9-17 ? * MON-FRI"), or one of each joined
// by "&&" (both must match). A time is excluded when any period matches it.
//
// Times are evaluated in UTC (upstream uses the JVM's default time zone, which is UTC in the
// operator's container image). Daily ranges include both ends; a range whose start is after its
// end is rejected, as upstream does.
//
// Cron support: fields second minute hour day-of-month month day-of-week [year]; values, `*`,
// `?`, ranges `a-b`, lists `a,b`, steps `a/n` and `a-b/n`, month names JAN-DEC and day names
// SUN-SAT (1 = SUN as in Quartz). The Quartz specials L, W and # are rejected with an error.
//
// Thread-safety: values.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab::core::flink {

struct CronExpression {
  std::bitset<60> seconds, minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;  // 1..31
  std::bitset<13> months;         // 1..12
  std::bitset<8> days_of_week;    // 1..7, 1 = Sunday
  bool any_day_of_month = true;   // '*' or '?'
  bool any_day_of_week = true;
  std::optional<std::vector<int>> years;  // absent = every year

  // True when the second `unix_seconds` (UTC) satisfies the expression.
  bool Matches(int64_t unix_seconds) const;
};

struct DailyRange {
  int start_second = 0;  // seconds since midnight
  int end_second = 0;
};

struct ExcludedPeriod {
  std::string text;
  std::optional<DailyRange> daily;
  std::optional<CronExpression> cron;
};

StatusOr<CronExpression> ParseCronExpression(std::string_view key, std::string_view text);
StatusOr<std::vector<ExcludedPeriod>> ParseExcludedPeriods(std::string_view key,
                                                           std::string_view value);
// The first period that contains `unix_millis`, or nullptr.
const ExcludedPeriod* FindExcludedPeriod(const std::vector<ExcludedPeriod>& periods,
                                         int64_t unix_millis);

}  // namespace trimtab::core::flink
