// SampleValues: the metric values of one collected sample, for one vertex or for the job.
//
// A sample holds the same dozen built-in metrics (upstream ScalingMetric names) cycle after cycle,
// and the evaluator reads them over and over. They live in fixed slots (slotted_map.h), indexed
// by CollectedMetric, so storing or reading one builds no string and walks no tree; any other
// name (declared custom metrics, or a name an older state document carried) is kept by name
// beside them. A name is present or absent: Get() says "absent" with NaN (upstream's NaN for
// "not available"), and Set() with NaN removes the value.
//
// Thread-safety: a plain value.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "core/scaling_types.h"
#include "core/slotted_map.h"

namespace trimtab::core::flink {

// Collected (per-sample) metric names, the upstream ScalingMetric names (reference notes §C.2);
// LOAD, LAG, GC_PRESSURE, HEAP_* and the other job-wide ones are in scaling_types.h.
inline constexpr const char kMetricAccumulatedBusyTime[] = "ACCUMULATED_BUSY_TIME";
inline constexpr const char kMetricNumRecordsIn[] = "NUM_RECORDS_IN";
inline constexpr const char kMetricNumRecordsOut[] = "NUM_RECORDS_OUT";
inline constexpr const char kMetricNumRecordsInPerSecond[] = "NUM_RECORDS_IN_PER_SECOND";
inline constexpr const char kMetricObservedTpr[] = "OBSERVED_TPR";
// Job-wide, seconds: the latest completed checkpoint's end-to-end duration (collected).
inline constexpr const char kMetricLastCheckpointDuration[] = "LAST_CHECKPOINT_DURATION";

// The built-in collected metrics; each is the index of its name in kCollectedMetricNames.
enum class CollectedMetric : uint8_t {
  kAccumulatedBusyTime,
  kGcPressure,
  kHeapMaxUsageRatio,
  kHeapMemoryUsed,
  kLag,
  kLastCheckpointDuration,
  kLoad,
  kManagedMemoryUsed,
  kMetaspaceMemoryUsed,
  kNumRecordsIn,
  kNumRecordsInPerSecond,
  kNumRecordsOut,
  kNumTaskSlotsUsed,
  kObservedTpr,
};
inline constexpr std::string_view kCollectedMetricNames[] = {
    kMetricAccumulatedBusyTime, kMetricGcPressure,        kMetricHeapMaxUsageRatio,
    kMetricHeapMemoryUsed,      kMetricLag,               kMetricLastCheckpointDuration,
    kMetricLoad,                kMetricManagedMemoryUsed, kMetricMetaspaceMemoryUsed,
    kMetricNumRecordsIn,        kMetricNumRecordsInPerSecond, kMetricNumRecordsOut,
    kMetricNumTaskSlotsUsed,    kMetricObservedTpr,
};
inline constexpr size_t kNumCollectedMetrics = std::size(kCollectedMetricNames);

// The ScalingMetric name of `m`.
constexpr std::string_view CollectedMetricName(CollectedMetric m) {
  return kCollectedMetricNames[static_cast<size_t>(m)];
}
// The built-in metric called `name`, if it is one.
std::optional<CollectedMetric> FindCollectedMetric(std::string_view name);

class SampleValues {
 public:
  SampleValues() = default;
  // {{"LOAD", 0.5}, {"NUM_RECORDS_IN", 1000}}: as Set for each pair.
  SampleValues(std::initializer_list<std::pair<std::string_view, double>> values) {
    for (const auto& [name, value] : values) Set(name, value);
  }

  // The value, or NaN when absent.
  double Get(CollectedMetric m) const { return Or(values_.FindSlot(Slot(m))); }
  double Get(std::string_view name) const { return Or(values_.Find(name)); }
  bool Has(CollectedMetric m) const { return values_.FindSlot(Slot(m)) != nullptr; }
  bool Has(std::string_view name) const { return values_.Find(name) != nullptr; }
  // As std::map's: the value, throwing std::out_of_range when absent; 1 when present, else 0.
  double at(std::string_view name) const { return values_.at(name); }
  size_t count(std::string_view name) const { return values_.count(name); }

  // Stores `v`; a NaN removes the value.
  void Set(CollectedMetric m, double v) {
    if (std::isnan(v)) {
      values_.EraseSlot(Slot(m));
    } else {
      values_.Slot(Slot(m)) = v;
    }
  }
  void Set(std::string_view name, double v) {
    if (std::isnan(v)) {
      values_.erase(name);
    } else {
      values_[name] = v;
    }
  }

  // Calls f(name, value) for every present value, in name order.
  template <typename F>
  void ForEach(F&& f) const {
    values_.ForEach(std::forward<F>(f));
  }

  bool empty() const { return values_.empty(); }
  size_t size() const { return values_.size(); }

  friend bool operator==(const SampleValues&, const SampleValues&) = default;

 private:
  static size_t Slot(CollectedMetric m) { return static_cast<size_t>(m); }
  static double Or(const double* v) {
    return v ? *v : std::numeric_limits<double>::quiet_NaN();
  }

  SlottedMap<double, kCollectedMetricNames> values_;
};

}  // namespace trimtab::core::flink
