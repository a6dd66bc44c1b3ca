#include "cluster/runtime/cron_schedule.h"

#include <cctype>
#include <ctime>
#include <vector>

namespace trimtab::cluster::runtime {
namespace {

constexpr const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                   "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* kWeekdays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? s.npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::optional<int> Number(std::string_view s, const char* const* names, int names_base,
                          int name_count) {
  if (s.empty()) return std::nullopt;
  if (names != nullptr && std::isalpha(static_cast<unsigned char>(s[0]))) {
    std::string lower;
    for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    for (int i = 0; i < name_count; ++i) {
      if (lower == names[i]) return names_base + i;
    }
    return std::nullopt;
  }
  if (s.size() > 4) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Sets the bits of one field; `star` reports a bare "*" or "?".
Status ParseField(std::string_view field, const char* what, int lo, int hi,
                  const char* const* names, int names_base, int name_count,
                  std::vector<bool>* bits, bool* star) {
  auto bad = [&](std::string why) {
    return InvalidArgumentError("schedule: " + std::string(what) + " \"" + std::string(field) +
                                "\": " + why);
  };
  *star = field == "*" || field == "?";
  for (std::string_view part : Split(field, ',')) {
    int step = 1;
    auto slash = Split(part, '/');
    if (slash.size() > 2) return bad("more than one '/'");
    if (slash.size() == 2) {
      auto s = Number(slash[1], nullptr, 0, 0);
      if (!s || *s <= 0) return bad("bad step");
      step = *s;
    }
    int from = lo, to = hi;
    std::string_view range = slash[0];
    if (range != "*" && range != "?") {
      auto dash = Split(range, '-');
      if (dash.size() > 2) return bad("more than one '-'");
      auto a = Number(dash[0], names, names_base, name_count);
      if (!a) return bad("not a number");
      from = *a;
      to = *a;
      if (dash.size() == 2) {
        auto b = Number(dash[1], names, names_base, name_count);
        if (!b) return bad("not a number");
        to = *b;
      } else if (slash.size() == 2) {
        to = hi;  // "5/10": from 5 to the end
      }
    }
    if (from < lo || to > hi || from > to) {
      return bad("out of range " + std::to_string(lo) + "-" + std::to_string(hi));
    }
    for (int v = from; v <= to; v += step) (*bits)[static_cast<size_t>(v)] = true;
  }
  return Status::Ok();
}

}  // namespace

StatusOr<CronSchedule> CronSchedule::Parse(std::string_view spec, std::string_view time_zone) {
  if (!time_zone.empty() && time_zone != "UTC" && time_zone != "Etc/UTC") {
    return InvalidArgumentError("timeZone \"" + std::string(time_zone) +
                                "\": only UTC is supported by trimtab local");
  }
  std::string text(spec);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t first = text.find_first_not_of(" \t");
  text = first == std::string::npos ? "" : text.substr(first);
  if (text.rfind("TZ=", 0) == 0 || text.rfind("CRON_TZ=", 0) == 0) {
    return InvalidArgumentError("schedule: TZ and CRON_TZ are not allowed, use spec.timeZone");
  }
  if (text == "@yearly" || text == "@annually") text = "0 0 1 1 *";
  if (text == "@monthly") text = "0 0 1 * *";
  if (text == "@weekly") text = "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") text = "0 0 * * *";
  if (text == "@hourly") text = "0 * * * *";
  std::vector<std::string_view> fields;
  for (std::string_view f : Split(text, ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  if (fields.size() != 5) {
    return InvalidArgumentError("schedule \"" + std::string(spec) +
                                "\": expected exactly 5 fields, found " +
                                std::to_string(fields.size()));
  }
  CronSchedule s;
  std::vector<bool> bits;
  bool star = false;
  auto field = [&](int index, const char* what, int lo, int hi, const char* const* names,
                   int base, int count, auto& out) -> Status {
    bits.assign(static_cast<size_t>(hi) + 1, false);
    TRIMTAB_RETURN_IF_ERROR(ParseField(fields[static_cast<size_t>(index)], what, lo, hi, names,
                                       base, count, &bits, &star));
    for (size_t i = 0; i < bits.size() && i < out.size(); ++i) out[i] = bits[i];
    return Status::Ok();
  };
  TRIMTAB_RETURN_IF_ERROR(field(0, "minute", 0, 59, nullptr, 0, 0, s.minutes_));
  TRIMTAB_RETURN_IF_ERROR(field(1, "hour", 0, 23, nullptr, 0, 0, s.hours_));
  TRIMTAB_RETURN_IF_ERROR(field(2, "day of month", 1, 31, nullptr, 0, 0, s.days_));
  s.day_star_ = star;
  TRIMTAB_RETURN_IF_ERROR(field(3, "month", 1, 12, kMonths, 1, 12, s.months_));
  std::bitset<8> weekdays;
  TRIMTAB_RETURN_IF_ERROR(field(4, "day of week", 0, 7, kWeekdays, 0, 7, weekdays));
  s.weekday_star_ = star;
  for (size_t i = 0; i < 7; ++i) s.weekdays_[i] = weekdays[i];
  if (weekdays[7]) s.weekdays_[0] = true;  // 7 is Sunday too
  return s;
}

std::optional<TimePoint> CronSchedule::Next(TimePoint t) const {
  using std::chrono::minutes;
  int64_t secs = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  int64_t minute = secs >= 0 ? secs / 60 + 1 : (secs - 59) / 60 + 1;
  const int64_t limit = minute + int64_t{5} * 366 * 24 * 60;
  while (minute < limit) {
    std::time_t tt = static_cast<std::time_t>(minute * 60);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    const bool day_ok = day_star_ || weekday_star_
                            ? days_[static_cast<size_t>(tm.tm_mday)] &&
                                  weekdays_[static_cast<size_t>(tm.tm_wday)]
                            : days_[static_cast<size_t>(tm.tm_mday)] ||
                                  weekdays_[static_cast<size_t>(tm.tm_wday)];
    if (!months_[static_cast<size_t>(tm.tm_mon + 1)] || !day_ok) {
      minute += (24 - tm.tm_hour) * 60 - tm.tm_min;  // the next day's midnight
      continue;
    }
    if (!hours_[static_cast<size_t>(tm.tm_hour)]) {
      minute += 60 - tm.tm_min;
      continue;
    }
    if (!minutes_[static_cast<size_t>(tm.tm_min)]) {
      ++minute;
      continue;
    }
    return TimePoint(std::chrono::duration_cast<TimePoint::duration>(minutes(minute)));
  }
  return std::nullopt;
}

}  // namespace trimtab::cluster::runtime
