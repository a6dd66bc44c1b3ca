#include "core/flink/sample_values.h"

namespace trimtab::core::flink {

// Each enumerator names its own slot.
static_assert(CollectedMetricName(CollectedMetric::kAccumulatedBusyTime) == "ACCUMULATED_BUSY_TIME");
static_assert(CollectedMetricName(CollectedMetric::kGcPressure) == "GC_PRESSURE");
static_assert(CollectedMetricName(CollectedMetric::kHeapMaxUsageRatio) == "HEAP_MAX_USAGE_RATIO");
static_assert(CollectedMetricName(CollectedMetric::kHeapMemoryUsed) == "HEAP_MEMORY_USED");
static_assert(CollectedMetricName(CollectedMetric::kLag) == "LAG");
static_assert(CollectedMetricName(CollectedMetric::kLastCheckpointDuration) ==
              "LAST_CHECKPOINT_DURATION");
static_assert(CollectedMetricName(CollectedMetric::kLoad) == "LOAD");
static_assert(CollectedMetricName(CollectedMetric::kManagedMemoryUsed) == "MANAGED_MEMORY_USED");
static_assert(CollectedMetricName(CollectedMetric::kMetaspaceMemoryUsed) ==
              "METASPACE_MEMORY_USED");
static_assert(CollectedMetricName(CollectedMetric::kNumRecordsIn) == "NUM_RECORDS_IN");
static_assert(CollectedMetricName(CollectedMetric::kNumRecordsInPerSecond) ==
              "NUM_RECORDS_IN_PER_SECOND");
static_assert(CollectedMetricName(CollectedMetric::kNumRecordsOut) == "NUM_RECORDS_OUT");
static_assert(CollectedMetricName(CollectedMetric::kNumTaskSlotsUsed) == "NUM_TASK_SLOTS_USED");
static_assert(CollectedMetricName(CollectedMetric::kObservedTpr) == "OBSERVED_TPR");
static_assert(kNumCollectedMetrics == static_cast<size_t>(CollectedMetric::kObservedTpr) + 1);

std::optional<CollectedMetric> FindCollectedMetric(std::string_view name) {
  using Slots = SlottedMap<double, kCollectedMetricNames>;
  const size_t slot = Slots::SlotOf(name);
  if (slot == Slots::kSlots) return std::nullopt;
  return static_cast<CollectedMetric>(slot);
}

}  // namespace trimtab::core::flink
