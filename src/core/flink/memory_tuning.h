// TaskManager memory tuning (`job.autoscaler.memory.tuning.*`), as upstream's MemoryTuning and
// MemoryScaling (flink-autoscaler `tuning/`): from the memory a job was seen to use, the memory
// its TaskManagers should get. Recommended on every executed (or executable) scaling; applied
// only with `memory.tuning.enabled`.
//
//   budget   = the TaskManager's process memory from the spec
//   reserved = framework off-heap + task off-heap + JVM overhead, as Flink derives them from
//              the user's configuration (DeriveTaskManagerMemory)
//   then, each capped by what is left of the budget, in this order:
//     network   = Σ over the vertices' input and output edges of the buffers they need at the
//                 new parallelisms (NetworkSegments) × segment size × slots per TaskManager
//     metaspace = METASPACE_MEMORY_USED (window average) × (1 + memory.tuning.overhead)
//     heap      = HEAP_MEMORY_USED (window average) × (1 + memory.tuning.overhead)
//     managed   = 0 without MANAGED_MEMORY_USED; everything left with
//                 memory.tuning.maximize-managed-memory; else the spec's managed memory
//     heap     += heap × (TaskManagers before / after − 1) on a scale-down, from what is left
//                 (memory.tuning.scale-down-compensation.enabled)
//   process memory = budget − what is left.
//
// The result is a set of Flink configuration overrides and removals (ConfigChanges), in Flink's
// own value syntax ("13760 kb", "0.654"), and the "Configuration recommendation" event.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/flink/decision_log.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

// Applies `changes` (ConfigChanges, autoscaler_state.h) to a Flink configuration: removals
// first, then overrides.
std::map<std::string, std::string> ApplyConfigChanges(std::map<std::string, std::string> conf,
                                                      const ConfigChanges& changes);

// A TaskManager's memory components in bytes, as Flink's memory model derives them.
struct TaskManagerMemory {
  int64_t framework_heap = 0;
  int64_t task_heap = 0;
  int64_t framework_off_heap = 0;
  int64_t task_off_heap = 0;
  int64_t managed = 0;
  int64_t network = 0;
  int64_t metaspace = 0;
  int64_t overhead = 0;
  int64_t Heap() const { return framework_heap + task_heap; }
  int64_t TotalFlink() const {
    return framework_heap + task_heap + framework_off_heap + task_off_heap + managed + network;
  }
  int64_t TotalProcess() const { return TotalFlink() + metaspace + overhead; }
};

// Flink's TaskManager memory model (taskmanager.memory.*): from task heap + managed size, from
// taskmanager.memory.flink.size, or from taskmanager.memory.process.size, with Flink's defaults
// (framework heap and off-heap 128 MiB, managed fraction 0.4, network fraction 0.1 within
// [64 MiB, unbounded], metaspace 256 MiB, JVM overhead fraction 0.1 within [192 MiB, 1 GiB]).
// Errors name the key; a configuration that sets none of the three is an error.
StatusOr<TaskManagerMemory> DeriveTaskManagerMemory(const std::map<std::string, std::string>& conf);

// Network buffers one side of an edge needs (upstream calculateNetworkSegmentNumber): FORWARD
// between equal parallelisms: buffers-per-channel + floating; FORWARD or RESCALE otherwise:
// ceil(connected / current) channels; any other strategy: one channel per connected subtask.
int NetworkSegments(int current_parallelism, int connected_parallelism,
                    const std::string& ship_strategy, int buffers_per_channel, int floating_buffers);

// Flink's MemorySize.toString: the largest unit (bytes, kb, mb, gb, tb) that divides the value,
// "0 bytes" for 0 (and, as Flink, bytes when every unit divides it).
std::string FormatFlinkMemorySize(int64_t bytes);

struct MemoryTuningInput {
  const std::map<std::string, std::string>* configuration = nullptr;  // the user's, no overrides
  const AutoscalerOptions* options = nullptr;
  const EvaluatedMetrics* evaluated = nullptr;
  const JobTopology* topology = nullptr;
  const ScalingSummaries* summaries = nullptr;
  std::optional<int64_t> task_manager_memory;  // process memory from the spec
  int slots_per_task_manager = 1;
};

struct MemoryTuningResult {
  ConfigChanges recommended;  // empty when no recommendation could be made
  ConfigChanges applied;      // `recommended` with memory.tuning.enabled, else empty
  std::optional<AutoscalerEvent> event;  // "Configuration recommendation"
  std::string note;           // why nothing was recommended, or the sizes chosen
};

MemoryTuningResult TuneTaskManagerMemory(const MemoryTuningInput& in);

}  // namespace trimtab::core::flink
