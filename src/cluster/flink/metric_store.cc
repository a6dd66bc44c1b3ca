#include "cluster/flink/metric_store.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

std::string JavaDoubleString(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // "1.2345e+07"
  const size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  int exponent = std::atoi(s.c_str() + e + 1);
  return mantissa + "E" + std::to_string(exponent);
}

std::string SanitizeMetricName(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == ' ' || c == '.' || c == ':' || c == ',') c = '_';
  }
  return out;
}

std::vector<std::string> SplitCommaList(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    std::string item = s.substr(i, j - i);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    i = j + 1;
  }
  return out;
}

std::optional<std::vector<Aggregation>> ParseAggregations(const std::string* agg) {
  if (!agg) return std::vector<Aggregation>{Aggregation::kMin, Aggregation::kMax, Aggregation::kAvg,
                                            Aggregation::kSum, Aggregation::kSkew};
  std::vector<Aggregation> out;
  for (std::string name : SplitCommaList(*agg)) {
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (name == "MIN") out.push_back(Aggregation::kMin);
    else if (name == "MAX") out.push_back(Aggregation::kMax);
    else if (name == "AVG") out.push_back(Aggregation::kAvg);
    else if (name == "SUM") out.push_back(Aggregation::kSum);
    else if (name == "SKEW") out.push_back(Aggregation::kSkew);
    else return std::nullopt;
  }
  return out;
}

std::optional<std::vector<int>> ParseIndexRanges(const std::string& s) {
  std::set<int> out;
  for (const std::string& item : SplitCommaList(s)) {
    const size_t dash = item.find('-');
    int lo = 0, hi = 0;
    auto parse = [](const std::string& t, int* v) {
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
      return ec == std::errc() && p == t.data() + t.size() && *v >= 0;
    };
    if (dash == std::string::npos) {
      if (!parse(item, &lo)) return std::nullopt;
      hi = lo;
    } else if (!parse(item.substr(0, dash), &lo) || !parse(item.substr(dash + 1), &hi) || hi < lo) {
      return std::nullopt;
    }
    for (int i = lo; i <= hi && i - lo < 100000; ++i) out.insert(i);
  }
  return std::vector<int>(out.begin(), out.end());
}

Json MetricValuesResponse(const std::vector<std::pair<std::string, const MetricMap*>>& stores, const std::string* get) {
  Json out = Json::array();
  if (!get) {
    for (const auto& [prefix, store] : stores) {
      for (const auto& [id, value] : *store) out.push_back({{"id", prefix + id}});
    }
    return out;
  }
  const std::vector<std::string> wanted = SplitCommaList(*get);
  for (const std::string& w : wanted) {
    for (const auto& [prefix, store] : stores) {
      if (!w.starts_with(prefix)) continue;
      auto it = store->find(w.substr(prefix.size()));
      if (it != store->end()) {
        out.push_back({{"id", w}, {"value", it->second}});
        break;
      }
    }
  }
  return out;
}

Json AggregatedMetricsResponse(const std::vector<const MetricMap*>& stores, const std::string* get,
                               const std::vector<Aggregation>& aggs) {
  Json out = Json::array();
  if (!get) {
    std::set<std::string> ids;
    for (const MetricMap* store : stores) {
      for (const auto& [id, value] : *store) ids.insert(id);
    }
    for (const std::string& id : ids) out.push_back({{"id", id}});
    return out;
  }
  for (const std::string& id : SplitCommaList(*get)) {
    std::vector<double> values;
    bool present = false;
    for (const MetricMap* store : stores) {
      auto it = store->find(id);
      if (it == store->end()) continue;
      present = true;
      char* end = nullptr;
      const double v = std::strtod(it->second.c_str(), &end);
      if (end != it->second.c_str() && *end == '\0') values.push_back(v);
    }
    if (!present) return Json::array();  // Flink's quirk: one missing metric empties the response
    if (values.empty()) continue;         // non-numeric metrics are skipped
    Json item = {{"id", id}};
    double sum = 0, mn = values[0], mx = values[0];
    for (double v : values) {
      sum += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    const double avg = sum / static_cast<double>(values.size());
    for (Aggregation a : aggs) {
      switch (a) {
        case Aggregation::kMin: item["min"] = mn; break;
        case Aggregation::kMax: item["max"] = mx; break;
        case Aggregation::kAvg: item["avg"] = avg; break;
        case Aggregation::kSum: item["sum"] = sum; break;
        case Aggregation::kSkew: {
          double mad = 0;
          for (double v : values) mad += std::fabs(v - avg);
          mad /= static_cast<double>(values.size());
          item["skew"] = avg == 0 ? 0.0 : std::min(100.0, 100.0 * mad / std::fabs(avg));
          break;
        }
      }
    }
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace trimtab::sim::flink
