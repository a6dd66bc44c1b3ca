// SampleValues: the metric values of one collected sample, for one vertex or for the job.
//
// A sample holds the same dozen built-in metrics (upstream ScalingMetric names) cycle after cycle,
// and the evaluator reads them over and over. They live in fixed slots, indexed by
// CollectedMetric, so storing or reading one builds no string and walks no tree; any other name
// (declared custom metrics, or a name an older state document carried) is kept by name beside
// them. Either way a name is present or absent: NaN is never stored, it is how Get() says
// "absent" (upstream's NaN for "not available").
//
// Thread-safety: a plain value.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace trimtab::core::flink {

// The built-in collected metrics, in the order of their names (so that ForEach visits every
// name, built-in or not, in name order).
enum class CollectedMetric : uint8_t {
  kAccumulatedBusyTime,     // ACCUMULATED_BUSY_TIME
  kGcPressure,              // GC_PRESSURE
  kHeapMaxUsageRatio,       // HEAP_MAX_USAGE_RATIO
  kHeapMemoryUsed,          // HEAP_MEMORY_USED
  kLag,                     // LAG
  kLastCheckpointDuration,  // LAST_CHECKPOINT_DURATION
  kLoad,                    // LOAD
  kManagedMemoryUsed,       // MANAGED_MEMORY_USED
  kMetaspaceMemoryUsed,     // METASPACE_MEMORY_USED
  kNumRecordsIn,            // NUM_RECORDS_IN
  kNumRecordsInPerSecond,   // NUM_RECORDS_IN_PER_SECOND
  kNumRecordsOut,           // NUM_RECORDS_OUT
  kNumTaskSlotsUsed,        // NUM_TASK_SLOTS_USED
  kObservedTpr,             // OBSERVED_TPR
};
inline constexpr size_t kNumCollectedMetrics = 14;

// The ScalingMetric name of `m`.
std::string_view CollectedMetricName(CollectedMetric m);
// The built-in metric called `name`, if it is one.
std::optional<CollectedMetric> FindCollectedMetric(std::string_view name);

class SampleValues {
 public:
  SampleValues() { slots_.fill(kAbsent); }
  // {{"LOAD", 0.5}, {"NUM_RECORDS_IN", 1000}}: as Set for each pair.
  SampleValues(std::initializer_list<std::pair<std::string_view, double>> values);

  // The value, or NaN when absent.
  double Get(CollectedMetric m) const { return slots_[Index(m)]; }
  double Get(std::string_view name) const;
  bool Has(CollectedMetric m) const { return !std::isnan(Get(m)); }
  bool Has(std::string_view name) const { return !std::isnan(Get(name)); }
  // As std::map's: the value, throwing std::out_of_range when absent; 1 when present, else 0.
  double at(std::string_view name) const;
  size_t count(std::string_view name) const { return Has(name) ? 1 : 0; }

  // Stores `v`; a NaN removes the value.
  void Set(CollectedMetric m, double v) { slots_[Index(m)] = v; }
  void Set(std::string_view name, double v);

  // Calls f(name, value) for every present value, in name order.
  template <typename F>
  void ForEach(F&& f) const;

  bool empty() const { return size() == 0; }
  size_t size() const;

  friend bool operator==(const SampleValues& a, const SampleValues& b);

 private:
  static constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
  static size_t Index(CollectedMetric m) { return static_cast<size_t>(m); }

  std::array<double, kNumCollectedMetrics> slots_;
  std::map<std::string, double, std::less<>> others_;  // names that are not built in
};

template <typename F>
void SampleValues::ForEach(F&& f) const {
  // Both sequences are in name order: merge them.
  auto other = others_.begin();
  for (size_t i = 0; i < kNumCollectedMetrics; ++i) {
    if (std::isnan(slots_[i])) continue;
    const std::string_view name = CollectedMetricName(static_cast<CollectedMetric>(i));
    for (; other != others_.end() && std::string_view(other->first) < name; ++other) {
      f(std::string_view(other->first), other->second);
    }
    f(name, slots_[i]);
  }
  for (; other != others_.end(); ++other) f(std::string_view(other->first), other->second);
}

}  // namespace trimtab::core::flink
