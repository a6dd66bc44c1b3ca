#include "common/metrics_registry.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>

namespace trimtab {
namespace {

std::string EscapeHelp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// `{a="x",b="y"}` (plus `extra` as the last label, for le), or "" without labels.
void AppendLabels(std::string* out, const std::vector<std::string>& names,
                  const LabelValues& values, std::string_view extra_name = "",
                  std::string_view extra_value = "") {
  if (names.empty() && extra_name.empty()) return;
  *out += '{';
  bool first = true;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (!first) *out += ',';
    first = false;
    *out += names[i];
    *out += "=\"";
    *out += EscapeLabelValue(values[i]);
    *out += '"';
  }
  if (!extra_name.empty()) {
    if (!first) *out += ',';
    *out += extra_name;
    *out += "=\"";
    *out += extra_value;
    *out += '"';
  }
  *out += '}';
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(value));
    return std::string(buf, end);
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, end);
}

bool IsValidMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || name.rfind("__", 0) == 0) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::vector<double> DefaultLatencyBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  assert(start > 0 && factor > 1 && count >= 1);
  std::vector<double> out;
  double bound = start;
  for (int i = 0; i < count; ++i) {
    out.push_back(bound);
    bound *= factor;
  }
  return out;
}

MetricFamily::MetricFamily(std::string name, std::string help, MetricType type,
                           std::vector<std::string> label_names, std::vector<double> buckets)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {}

MetricFamily::Series& MetricFamily::SeriesLocked(const LabelValues& values) {
  assert(values.size() == label_names_.size());
  auto [it, inserted] = series_.try_emplace(values);
  if (inserted && type_ == MetricType::kHistogram) it->second.bucket_hits.assign(buckets_.size(), 0);
  return it->second;
}

void MetricFamily::Inc(const LabelValues& values, double by) {
  assert(type_ == MetricType::kCounter);
  if (!(by >= 0)) return;
  std::lock_guard<std::mutex> lock(mu_);
  SeriesLocked(values).value += by;
}

void MetricFamily::Set(const LabelValues& values, double value) {
  assert(type_ == MetricType::kGauge);
  std::lock_guard<std::mutex> lock(mu_);
  SeriesLocked(values).value = value;
}

void MetricFamily::Add(const LabelValues& values, double by) {
  assert(type_ == MetricType::kGauge);
  std::lock_guard<std::mutex> lock(mu_);
  SeriesLocked(values).value += by;
}

void MetricFamily::Observe(const LabelValues& values, double value) {
  assert(type_ == MetricType::kHistogram);
  if (std::isnan(value)) return;
  std::lock_guard<std::mutex> lock(mu_);
  Series& s = SeriesLocked(values);
  s.value += value;
  ++s.count;
  auto bucket = std::lower_bound(buckets_.begin(), buckets_.end(), value);
  if (bucket != buckets_.end()) ++s.bucket_hits[bucket - buckets_.begin()];
}

void MetricFamily::Remove(const LabelValues& values) {
  std::lock_guard<std::mutex> lock(mu_);
  series_.erase(values);
}

bool MetricFamily::Resolve(const std::map<std::string, std::string>& match,
                           std::vector<std::pair<size_t, std::string>>* resolved) const {
  for (const auto& [name, value] : match) {
    auto it = std::find(label_names_.begin(), label_names_.end(), name);
    if (it == label_names_.end()) return false;
    resolved->emplace_back(it - label_names_.begin(), value);
  }
  return true;
}

bool MetricFamily::MatchesLocked(const LabelValues& values,
                                 const std::vector<std::pair<size_t, std::string>>& match) const {
  for (const auto& [index, value] : match) {
    if (values[index] != value) return false;
  }
  return true;
}

size_t MetricFamily::RemoveMatching(const std::map<std::string, std::string>& match) {
  return RemoveMatchingExcept(match, {});
}

size_t MetricFamily::RemoveMatchingExcept(const std::map<std::string, std::string>& match,
                                          const std::vector<LabelValues>& keep) {
  std::vector<std::pair<size_t, std::string>> resolved;
  if (!Resolve(match, &resolved)) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  size_t removed = 0;
  for (auto it = series_.begin(); it != series_.end();) {
    if (MatchesLocked(it->first, resolved) &&
        std::find(keep.begin(), keep.end(), it->first) == keep.end()) {
      it = series_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

std::optional<double> MetricFamily::Value(const LabelValues& values) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = series_.find(values);
  if (it == series_.end()) return std::nullopt;
  return it->second.value;
}

uint64_t MetricFamily::Count(const LabelValues& values) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = series_.find(values);
  return it == series_.end() ? 0 : it->second.count;
}

size_t MetricFamily::SeriesCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return series_.size();
}

void MetricFamily::Render(std::string* out) const {
  *out += "# HELP " + name_ + " " + EscapeHelp(help_) + "\n";
  *out += "# TYPE " + name_ + " " + TypeName(type_) + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [values, s] : series_) {
    if (type_ != MetricType::kHistogram) {
      *out += name_;
      AppendLabels(out, label_names_, values);
      *out += ' ' + FormatMetricValue(s.value) + '\n';
      continue;
    }
    uint64_t cumulative = 0;
    for (size_t i = 0; i < buckets_.size(); ++i) {
      cumulative += s.bucket_hits[i];
      *out += name_ + "_bucket";
      AppendLabels(out, label_names_, values, "le", FormatMetricValue(buckets_[i]));
      *out += ' ' + std::to_string(cumulative) + '\n';
    }
    *out += name_ + "_bucket";
    AppendLabels(out, label_names_, values, "le", "+Inf");
    *out += ' ' + std::to_string(s.count) + '\n';
    *out += name_ + "_sum";
    AppendLabels(out, label_names_, values);
    *out += ' ' + FormatMetricValue(s.value) + '\n';
    *out += name_ + "_count";
    AppendLabels(out, label_names_, values);
    *out += ' ' + std::to_string(s.count) + '\n';
  }
}

MetricFamily& MetricsRegistry::Family(const std::string& name, const std::string& help,
                                      MetricType type, std::vector<std::string> label_names,
                                      std::vector<double> buckets) {
  assert(IsValidMetricName(name));
  for ([[maybe_unused]] const std::string& l : label_names) {
    assert(IsValidLabelName(l) && l != "le");
  }
  std::sort(buckets.begin(), buckets.end());
  buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
  while (!buckets.empty() && std::isinf(buckets.back())) buckets.pop_back();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    assert(it->second->type_ == type && it->second->label_names_ == label_names);
    return *it->second;
  }
  auto family = std::unique_ptr<MetricFamily>(
      new MetricFamily(name, help, type, std::move(label_names), std::move(buckets)));
  MetricFamily& ref = *family;
  families_.emplace(name, std::move(family));
  return ref;
}

MetricFamily& MetricsRegistry::Counter(const std::string& name, const std::string& help,
                                       std::vector<std::string> label_names) {
  return Family(name, help, MetricType::kCounter, std::move(label_names), {});
}

MetricFamily& MetricsRegistry::Gauge(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names) {
  return Family(name, help, MetricType::kGauge, std::move(label_names), {});
}

MetricFamily& MetricsRegistry::Histogram(const std::string& name, const std::string& help,
                                         std::vector<std::string> label_names,
                                         std::vector<double> buckets) {
  return Family(name, help, MetricType::kHistogram, std::move(label_names), std::move(buckets));
}

MetricFamily* MetricsRegistry::Find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

size_t MetricsRegistry::RemoveMatching(const std::map<std::string, std::string>& match) {
  std::vector<MetricFamily*> families;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, f] : families_) families.push_back(f.get());
  }
  size_t removed = 0;
  for (MetricFamily* f : families) removed += f->RemoveMatching(match);
  return removed;
}

int MetricsRegistry::AddCollector(std::function<void()> collect) {
  std::lock_guard<std::mutex> lock(collectors_mu_);
  const int id = next_collector_++;
  collectors_.emplace(id, std::move(collect));
  return id;
}

void MetricsRegistry::RemoveCollector(int id) {
  std::lock_guard<std::mutex> lock(collectors_mu_);
  collectors_.erase(id);
}

std::string MetricsRegistry::Render() const {
  {
    std::lock_guard<std::mutex> lock(collectors_mu_);
    for (const auto& [id, collect] : collectors_) collect();
  }
  std::vector<const MetricFamily*> families;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, f] : families_) families.push_back(f.get());
  }
  std::string out;
  for (const MetricFamily* f : families) f->Render(&out);
  return out;
}

}  // namespace trimtab
