#include "core/flink/excluded_periods.h"

#include <cctype>
#include <cstdlib>

#include "common/flink_values.h"

namespace trimtab::core::flink {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDays[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

// Parses one value of a cron field: a number or (for months / days) a name.
std::optional<int> CronValue(std::string_view token, int field) {
  if (token.empty()) return std::nullopt;
  const std::string up = Upper(token);
  if (field == 4) {
    for (int i = 0; i < 12; ++i) if (up == kMonths[i]) return i + 1;
  }
  if (field == 5) {
    for (int i = 0; i < 7; ++i) if (up == kDays[i]) return i + 1;
  }
  for (char c : up) if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::atoi(up.c_str());
}

// Fills `set` (indices lo..hi allowed) from one cron field.
Status ParseCronField(std::string_view key, std::string_view field_text, int field, int lo, int hi,
                      std::vector<bool>* set, bool* any) {
  static const char* kNames[] = {"seconds", "minutes", "hours", "day-of-month", "month",
                                 "day-of-week", "year"};
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError(std::string(key) + ": cron " + kNames[field] + " field \"" +
                                std::string(field_text) + "\": " + std::string(why));
  };
  set->assign(hi + 1, false);
  *any = false;
  if (field_text == "*" || field_text == "?") {
    if (field_text == "?" && field != 3 && field != 5) return bad("'?' only allowed for days");
    *any = true;
    for (int i = lo; i <= hi; ++i) (*set)[i] = true;
    return Status::Ok();
  }
  for (std::string_view part : Split(field_text, ',')) {
    if (part.find_first_of("LW#") != std::string_view::npos && field != 4 && field != 5) {
      return bad("the Quartz specials L, W and # are not supported");
    }
    int step = 1;
    std::string_view range = part;
    if (size_t slash = part.find('/'); slash != std::string_view::npos) {
      auto s = CronValue(part.substr(slash + 1), -1);
      if (!s || *s <= 0) return bad("invalid step");
      step = *s;
      range = part.substr(0, slash);
    }
    int from, to;
    if (range == "*") {
      from = lo;
      to = hi;
    } else if (size_t dash = range.find('-'); dash != std::string_view::npos) {
      auto a = CronValue(range.substr(0, dash), field);
      auto b = CronValue(range.substr(dash + 1), field);
      if (!a || !b) return bad("invalid range \"" + std::string(range) + "\"");
      from = *a;
      to = *b;
    } else {
      auto a = CronValue(range, field);
      if (!a) return bad("invalid value \"" + std::string(range) + "\"");
      from = *a;
      to = part.find('/') != std::string_view::npos ? hi : *a;
    }
    if (from < lo || to > hi || from > to) {
      return bad("value out of range " + std::to_string(lo) + "-" + std::to_string(hi));
    }
    for (int v = from; v <= to; v += step) (*set)[v] = true;
  }
  return Status::Ok();
}

template <size_t N>
void CopyBits(const std::vector<bool>& from, std::bitset<N>* to) {
  for (size_t i = 0; i < N && i < from.size(); ++i) (*to)[i] = from[i];
}

StatusOr<DailyRange> ParseDaily(std::string_view key, std::string_view text) {
  auto parse_time = [&](std::string_view t) -> std::optional<int> {
    auto parts = Split(TrimSpaces(t), ':');
    if (parts.size() != 3) return std::nullopt;
    int v[3];
    for (int i = 0; i < 3; ++i) {
      if (parts[i].size() != 2) return std::nullopt;
      auto n = CronValue(parts[i], -1);
      if (!n) return std::nullopt;
      v[i] = *n;
    }
    if (v[0] > 23 || v[1] > 59 || v[2] > 59) return std::nullopt;
    return v[0] * 3600 + v[1] * 60 + v[2];
  };
  size_t dash = text.find('-');
  auto start = dash == std::string_view::npos ? std::nullopt : parse_time(text.substr(0, dash));
  auto end = dash == std::string_view::npos ? std::nullopt : parse_time(text.substr(dash + 1));
  if (!start || !end) {
    return InvalidArgumentError(std::string(key) + ": invalid daily period \"" +
                                std::string(text) + "\": expected HH:mm:ss-HH:mm:ss");
  }
  if (*start > *end) {
    return InvalidArgumentError(std::string(key) + ": invalid daily period \"" +
                                std::string(text) + "\": start time is after end time");
  }
  return DailyRange{*start, *end};
}

bool LooksDaily(std::string_view s) {
  s = TrimSpaces(s);
  return s.size() == 17 && s[2] == ':' && s[5] == ':' && s[8] == '-';
}

}  // namespace

StatusOr<CronExpression> ParseCronExpression(std::string_view key, std::string_view text) {
  std::vector<std::string_view> fields;
  for (std::string_view f : Split(TrimSpaces(text), ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  if (fields.size() != 6 && fields.size() != 7) {
    return InvalidArgumentError(std::string(key) + ": invalid cron expression \"" +
                                std::string(text) + "\": expected 6 or 7 fields");
  }
  CronExpression c;
  std::vector<bool> set;
  bool any = false;
  TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[0], 0, 0, 59, &set, &any));
  CopyBits(set, &c.seconds);
  TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[1], 1, 0, 59, &set, &any));
  CopyBits(set, &c.minutes);
  TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[2], 2, 0, 23, &set, &any));
  CopyBits(set, &c.hours);
  TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[3], 3, 1, 31, &set, &any));
  CopyBits(set, &c.days_of_month);
  c.any_day_of_month = any;
  TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[4], 4, 1, 12, &set, &any));
  CopyBits(set, &c.months);
  TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[5], 5, 1, 7, &set, &any));
  CopyBits(set, &c.days_of_week);
  c.any_day_of_week = any;
  if (fields.size() == 7) {
    TRIMTAB_RETURN_IF_ERROR(ParseCronField(key, fields[6], 6, 1970, 2199, &set, &any));
    if (!any) {
      c.years.emplace();
      for (int y = 1970; y <= 2199; ++y) if (set[y]) c.years->push_back(y);
    }
  }
  return c;
}

bool CronExpression::Matches(int64_t unix_seconds) const {
  using namespace std::chrono;
  const sys_seconds t{std::chrono::seconds(unix_seconds)};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const int64_t sod = (t - day).count();
  const int dow = static_cast<int>(weekday{day}.c_encoding()) + 1;  // 1 = Sunday
  if (!seconds[sod % 60] || !minutes[(sod / 60) % 60] || !hours[sod / 3600]) return false;
  if (!months[static_cast<unsigned>(ymd.month())]) return false;
  const bool dom_ok = days_of_month[static_cast<unsigned>(ymd.day())];
  const bool dow_ok = days_of_week[dow];
  if (!(any_day_of_month ? true : dom_ok) || !(any_day_of_week ? true : dow_ok)) return false;
  if (years) {
    const int y = static_cast<int>(ymd.year());
    bool found = false;
    for (int v : *years) found = found || v == y;
    if (!found) return false;
  }
  return true;
}

StatusOr<std::vector<ExcludedPeriod>> ParseExcludedPeriods(std::string_view key,
                                                           std::string_view value) {
  std::vector<ExcludedPeriod> out;
  for (const std::string& item : ParseFlinkList(value)) {
    ExcludedPeriod p;
    p.text = item;
    std::vector<std::string_view> parts;
    std::string_view rest = item;
    while (true) {
      size_t amp = rest.find("&&");
      parts.push_back(TrimSpaces(rest.substr(0, amp)));
      if (amp == std::string_view::npos) break;
      rest = rest.substr(amp + 2);
    }
    if (parts.size() > 2) {
      return InvalidArgumentError(std::string(key) + ": invalid excluded period \"" + item +
                                  "\": at most one daily range and one cron expression");
    }
    for (std::string_view part : parts) {
      if (LooksDaily(part)) {
        if (p.daily) {
          return InvalidArgumentError(std::string(key) + ": invalid excluded period \"" + item +
                                      "\": two daily ranges");
        }
        TRIMTAB_ASSIGN_OR_RETURN(p.daily, ParseDaily(key, part));
      } else {
        if (p.cron) {
          return InvalidArgumentError(std::string(key) + ": invalid excluded period \"" + item +
                                      "\": two cron expressions");
        }
        TRIMTAB_ASSIGN_OR_RETURN(p.cron, ParseCronExpression(key, part));
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

const ExcludedPeriod* FindExcludedPeriod(const std::vector<ExcludedPeriod>& periods,
                                         int64_t unix_millis) {
  const int64_t secs = unix_millis >= 0 ? unix_millis / 1000 : (unix_millis - 999) / 1000;
  const int64_t sod = ((secs % 86400) + 86400) % 86400;
  for (const ExcludedPeriod& p : periods) {
    if (p.daily && (sod < p.daily->start_second || sod > p.daily->end_second)) continue;
    if (p.cron && !p.cron->Matches(secs)) continue;
    return &p;
  }
  return nullptr;
}

}  // namespace trimtab::core::flink
