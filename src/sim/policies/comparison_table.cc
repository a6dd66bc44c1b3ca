#include "sim/policies/comparison_table.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace trimtab::sim {

std::string HumanDuration(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  if (seconds < 172800) return fmt::format("{:.1f} h", seconds / 3600);
  return fmt::format("{:.1f} d", seconds / 86400);
}

std::string ConvergenceSummary(const PolicyReport& p) {
  if (p.changes.empty()) return "-";
  int steps = 0, never = 0;
  double longest = 0;
  for (const ChangeConvergence& c : p.changes) {
    steps = std::max(steps, c.rescales);
    if (c.seconds_to_converge) {
      longest = std::max(longest, *c.seconds_to_converge);
    } else {
      ++never;
    }
  }
  std::string s = fmt::format("{} / {}", steps, HumanDuration(longest));
  if (never > 0) s += fmt::format(" n/c {}", never);
  return s;
}

std::string FlapSummary(const PolicyReport& p) {
  if (p.scale_downs == 0) return "-";
  return fmt::format("{}/{} {:.0f} %", p.scale_downs_undone, p.scale_downs,
                     100.0 * p.scale_downs_undone / p.scale_downs);
}

std::string ComparisonTable(const SimulationReport& report, bool include_timing) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"policy",   "slot-h",     "x oracle", "SLO viol",
                                     "outside restarts", "max lag", "rescales", "per day",
                                     "flaps",    "downtime",   "converge"};
  if (include_timing) header.push_back("job-d/CPU-s");
  rows.push_back(header);
  const auto share = [&](double seconds) {
    return report.duration_seconds > 0 ? 100.0 * seconds / report.duration_seconds : 0.0;
  };
  for (size_t i = 0; i < report.policies.size(); ++i) {
    const PolicyReport& p = report.policies[i];
    std::vector<std::string> row = {
        p.policy,
        fmt::format("{:.2f}", p.slot_hours),
        p.ratio_to_oracle ? fmt::format("{:.3f}", *p.ratio_to_oracle) : "-",
        fmt::format("{} {:.2f} %", HumanDuration(p.slo_violation_seconds),
                    share(p.slo_violation_seconds)),
        fmt::format("{} {:.2f} %", HumanDuration(p.slo_violation_outside_restarts_seconds),
                    share(p.slo_violation_outside_restarts_seconds)),
        HumanDuration(p.max_lag_seconds),
        std::to_string(p.rescales),
        fmt::format("{:.1f}", report.duration_seconds > 0
                                  ? p.rescales * 86400.0 / report.duration_seconds
                                  : 0.0),
        FlapSummary(p),
        HumanDuration(p.downtime_seconds),
        ConvergenceSummary(p)};
    if (include_timing) {
      row.push_back(p.cpu_seconds > 0
                        ? fmt::format("{:.0f}", report.duration_seconds / 86400.0 / p.cpu_seconds)
                        : "-");
    }
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace trimtab::sim
