#include "core/flink/sample_values.h"

#include <algorithm>

#include "core/flink/autoscaler_state.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {
namespace {

// Indexed by CollectedMetric; sorted, which FindCollectedMetric relies on.
constexpr std::string_view kNames[] = {
    kMetricAccumulatedBusyTime,    kMetricGcPressure,      kMetricHeapMaxUsageRatio,
    kMetricHeapMemoryUsed,         kMetricLag,             kMetricLastCheckpointDuration,
    kMetricLoad,                   kMetricManagedMemoryUsed, kMetricMetaspaceMemoryUsed,
    kMetricNumRecordsIn,           kMetricNumRecordsInPerSecond, kMetricNumRecordsOut,
    kMetricNumTaskSlotsUsed,       kMetricObservedTpr,
};
static_assert(std::size(kNames) == kNumCollectedMetrics);
static_assert(std::ranges::is_sorted(kNames), "CollectedMetric must follow its names' order");

}  // namespace

std::string_view CollectedMetricName(CollectedMetric m) { return kNames[static_cast<size_t>(m)]; }

std::optional<CollectedMetric> FindCollectedMetric(std::string_view name) {
  const auto* it = std::lower_bound(std::begin(kNames), std::end(kNames), name);
  if (it == std::end(kNames) || *it != name) return std::nullopt;
  return static_cast<CollectedMetric>(it - std::begin(kNames));
}

SampleValues::SampleValues(std::initializer_list<std::pair<std::string_view, double>> values)
    : SampleValues() {
  for (const auto& [name, value] : values) Set(name, value);
}

double SampleValues::Get(std::string_view name) const {
  if (std::optional<CollectedMetric> m = FindCollectedMetric(name)) return Get(*m);
  auto it = others_.find(name);
  return it == others_.end() ? kAbsent : it->second;
}

double SampleValues::at(std::string_view name) const {
  const double v = Get(name);
  if (std::isnan(v)) throw std::out_of_range("no value for metric " + std::string(name));
  return v;
}

void SampleValues::Set(std::string_view name, double v) {
  if (std::optional<CollectedMetric> m = FindCollectedMetric(name)) return Set(*m, v);
  if (std::isnan(v)) {
    if (auto it = others_.find(name); it != others_.end()) others_.erase(it);
    return;
  }
  auto it = others_.lower_bound(name);
  if (it == others_.end() || it->first != name) it = others_.emplace_hint(it, name, v);
  it->second = v;
}

size_t SampleValues::size() const {
  return others_.size() + static_cast<size_t>(std::ranges::count_if(
                              slots_, [](double v) { return !std::isnan(v); }));
}

bool operator==(const SampleValues& a, const SampleValues& b) {
  // NaN never equals itself: compare presence, then values.
  for (size_t i = 0; i < kNumCollectedMetrics; ++i) {
    const bool present = !std::isnan(a.slots_[i]);
    if (present != !std::isnan(b.slots_[i])) return false;
    if (present && a.slots_[i] != b.slots_[i]) return false;
  }
  return a.others_ == b.others_;
}

}  // namespace trimtab::core::flink
