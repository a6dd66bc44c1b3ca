// CronSchedule: the standard five-field cron schedules of CronJob spec.schedule, as
// robfig/cron's standard parser reads them: "minute hour day-of-month month day-of-week" with
// "*", "?", lists ("1,15"), ranges ("1-5"), steps ("*/10", "5-50/5"), month and weekday names
// ("jan", "mon"; 7 is Sunday too) and the descriptors @yearly/@annually, @monthly, @weekly,
// @daily/@midnight, @hourly. When both day fields are restricted a day matches either (cron's
// rule). Times are UTC (spec.timeZone other than UTC/Etc/UTC is rejected by Parse).
//
// Thread-safety: immutable value after Parse.
#pragma once

#include <bitset>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status.h"

namespace trimtab::cluster::runtime {

class CronSchedule {
 public:
  // InvalidArgument names the field that does not parse.
  static StatusOr<CronSchedule> Parse(std::string_view spec, std::string_view time_zone = "");

  // The first whole minute strictly after `t` that matches; nullopt when none within 5 years.
  std::optional<TimePoint> Next(TimePoint t) const;

 private:
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool day_star_ = false;      // day-of-month was "*" or "?"
  bool weekday_star_ = false;  // day-of-week was "*" or "?"
};

}  // namespace trimtab::cluster::runtime
