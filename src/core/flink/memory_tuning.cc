#include "core/flink/memory_tuning.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/flink/cluster_resource_check.h"
#include "core/flink/evaluator.h"

namespace trimtab::core::flink {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();

// Flink's TaskManager memory keys (TaskManagerOptions, NettyShuffleEnvironmentOptions).
constexpr char kProcessSize[] = "taskmanager.memory.process.size";
constexpr char kFlinkSize[] = "taskmanager.memory.flink.size";
constexpr char kFrameworkHeap[] = "taskmanager.memory.framework.heap.size";
constexpr char kTaskHeap[] = "taskmanager.memory.task.heap.size";
constexpr char kFrameworkOffHeap[] = "taskmanager.memory.framework.off-heap.size";
constexpr char kTaskOffHeap[] = "taskmanager.memory.task.off-heap.size";
constexpr char kManagedSize[] = "taskmanager.memory.managed.size";
constexpr char kManagedSizeLegacy[] = "taskmanager.memory.size";
constexpr char kManagedFraction[] = "taskmanager.memory.managed.fraction";
constexpr char kNetworkMin[] = "taskmanager.memory.network.min";
constexpr char kNetworkMax[] = "taskmanager.memory.network.max";
constexpr char kNetworkFraction[] = "taskmanager.memory.network.fraction";
constexpr char kMetaspace[] = "taskmanager.memory.jvm-metaspace.size";
constexpr char kOverheadMin[] = "taskmanager.memory.jvm-overhead.min";
constexpr char kOverheadMax[] = "taskmanager.memory.jvm-overhead.max";
constexpr char kOverheadFraction[] = "taskmanager.memory.jvm-overhead.fraction";
constexpr char kBuffersPerChannel[] = "taskmanager.network.memory.buffers-per-channel";
constexpr char kFloatingBuffers[] = "taskmanager.network.memory.floating-buffers-per-gate";
constexpr char kSegmentSize[] = "taskmanager.memory.segment-size";

using Conf = std::map<std::string, std::string>;

// The first of `keys` that is set, parsed as a memory size; nullopt when none is.
StatusOr<std::optional<int64_t>> Memory(const Conf& c, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = c.find(k);
    if (it != c.end()) {
      TRIMTAB_ASSIGN_OR_RETURN(int64_t v, ParseFlinkMemorySize(k, it->second));
      return std::optional<int64_t>(v);
    }
  }
  return std::optional<int64_t>();
}
StatusOr<int64_t> MemoryOr(const Conf& c, std::initializer_list<const char*> keys,
                           int64_t fallback) {
  for (const char* k : keys) {
    auto it = c.find(k);
    if (it != c.end()) return ParseFlinkMemorySize(k, it->second);
  }
  return fallback;
}
// Flink's memory fractions are float options: 0.4 is 0.4000000059604645 when it multiplies.
StatusOr<double> FractionOr(const Conf& c, std::initializer_list<const char*> keys,
                            float fallback) {
  for (const char* k : keys) {
    auto it = c.find(k);
    if (it != c.end()) {
      TRIMTAB_ASSIGN_OR_RETURN(double v, ParseFlinkDouble(k, it->second));
      return static_cast<double>(static_cast<float>(v));
    }
  }
  return static_cast<double>(fallback);
}
StatusOr<int64_t> IntOr(const Conf& c, const char* key, int64_t fallback) {
  auto it = c.find(key);
  if (it == c.end()) return fallback;
  return ParseFlinkInt(key, it->second);
}

// A memory range with a fraction (Flink's RangeFraction).
struct Range {
  int64_t min = 0;
  int64_t max = kMaxBytes;
  double fraction = 0;
};

StatusOr<Range> ReadRange(const Conf& c, std::initializer_list<const char*> min_keys,
                          int64_t min_default, std::initializer_list<const char*> max_keys,
                          int64_t max_default, std::initializer_list<const char*> fraction_keys,
                          float fraction_default) {
  Range r;
  TRIMTAB_ASSIGN_OR_RETURN(r.min, MemoryOr(c, min_keys, min_default));
  TRIMTAB_ASSIGN_OR_RETURN(r.max, MemoryOr(c, max_keys, max_default));
  TRIMTAB_ASSIGN_OR_RETURN(r.fraction, FractionOr(c, fraction_keys, fraction_default));
  if (r.max < r.min) {
    return InvalidArgumentError(std::string(*max_keys.begin()) + ": is below " +
                                *min_keys.begin());
  }
  if (r.fraction < 0 || r.fraction >= 1) {
    return InvalidArgumentError(std::string(*fraction_keys.begin()) + ": must be in [0, 1)");
  }
  return r;
}

// MemorySize.multiply: the product truncated to whole bytes.
int64_t Multiply(int64_t bytes, double factor) {
  return static_cast<int64_t>(static_cast<double>(bytes) * factor);
}
int64_t CapToRange(int64_t v, const Range& r) { return std::clamp(v, r.min, r.max); }
int64_t WithFraction(int64_t base, const Range& r) {
  return CapToRange(Multiply(base, r.fraction), r);
}
int64_t WithInverseFraction(int64_t base, const Range& r) {
  return CapToRange(Multiply(base, r.fraction / (1 - r.fraction)), r);
}

StatusOr<Range> NetworkRange(const Conf& c) {
  return ReadRange(c, {kNetworkMin, "taskmanager.network.memory.min"}, 64 * kMi,
                   {kNetworkMax, "taskmanager.network.memory.max"}, kMaxBytes,
                   {kNetworkFraction, "taskmanager.network.memory.fraction"}, 0.1f);
}
StatusOr<Range> OverheadRange(const Conf& c) {
  return ReadRange(c, {kOverheadMin}, 192 * kMi, {kOverheadMax}, 1024 * kMi,
                   {kOverheadFraction}, 0.1f);
}

// Fills heap, off-heap, managed and network from the total Flink memory
// (TaskExecutorFlinkMemoryUtils.deriveFromTotalFlinkMemory).
Status DeriveFromTotalFlink(const Conf& c, int64_t total_flink, TaskManagerMemory* m) {
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> task_heap, Memory(c, {kTaskHeap}));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> managed,
                           Memory(c, {kManagedSize, kManagedSizeLegacy}));
  TRIMTAB_ASSIGN_OR_RETURN(double managed_fraction, FractionOr(c, {kManagedFraction}, 0.4f));
  if (managed_fraction < 0 || managed_fraction >= 1) {
    return InvalidArgumentError(std::string(kManagedFraction) + ": must be in [0, 1)");
  }
  m->managed = managed ? *managed : Multiply(total_flink, managed_fraction);
  const int64_t fixed = m->framework_heap + m->framework_off_heap + m->task_off_heap + m->managed;
  if (task_heap) {
    m->task_heap = *task_heap;
    m->network = total_flink - fixed - m->task_heap;
    if (m->network < 0) {
      return InvalidArgumentError(std::string(kFlinkSize) +
                                  ": smaller than its configured components");
    }
    return Status::Ok();
  }
  TRIMTAB_ASSIGN_OR_RETURN(Range network, NetworkRange(c));
  m->network = WithFraction(total_flink, network);
  m->task_heap = total_flink - fixed - m->network;
  if (m->task_heap < 0) {
    return InvalidArgumentError(std::string(kFlinkSize) +
                                ": leaves no task heap after the other components");
  }
  return Status::Ok();
}

// Metaspace is configured; the overhead is what the process size leaves, or derived from the
// Flink memory and metaspace by the inverse fraction.
Status DeriveOverheadFromTotalFlink(const Conf& c, TaskManagerMemory* m) {
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> process, Memory(c, {kProcessSize}));
  const int64_t flink_and_metaspace = m->TotalFlink() + m->metaspace;
  if (process) {
    m->overhead = *process - flink_and_metaspace;
    if (m->overhead < 0) {
      return InvalidArgumentError(std::string(kProcessSize) +
                                  ": smaller than the Flink memory and metaspace");
    }
    return Status::Ok();
  }
  TRIMTAB_ASSIGN_OR_RETURN(Range overhead, OverheadRange(c));
  m->overhead = WithInverseFraction(flink_and_metaspace, overhead);
  return Status::Ok();
}

// BigDecimal.valueOf(v).setScale(3, CEILING) as Float.toString prints it: "0.654", "0.05",
// "0.0", "1.0".
std::string CeilFraction(double v) {
  if (!(v > 0)) return "0.0";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  const std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  const size_t dot = text.find('.');
  int64_t whole = 0;
  std::from_chars(text.data(), text.data() + (dot == std::string_view::npos ? text.size() : dot),
                  whole);
  int64_t thousandths = whole * 1000;
  bool rest = false;
  if (dot != std::string_view::npos) {
    const std::string_view frac = text.substr(dot + 1);
    for (size_t i = 0; i < frac.size(); ++i) {
      if (i < 3) {
        thousandths += (frac[i] - '0') * (i == 0 ? 100 : i == 1 ? 10 : 1);
      } else if (frac[i] != '0') {
        rest = true;
      }
    }
  }
  if (rest) ++thousandths;
  std::string digits = std::to_string(thousandths % 1000);
  digits = std::string(3 - digits.size(), '0') + digits;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return std::to_string(thousandths / 1000) + "." + digits;
}

// A budget handed out in order (upstream MemoryBudget): each request gets at most what is left.
class Budget {
 public:
  explicit Budget(int64_t total) : remaining_(total) {}
  int64_t Take(int64_t amount) {
    const int64_t taken = std::min(std::max<int64_t>(0, amount), remaining_);
    remaining_ -= taken;
    return taken;
  }
  int64_t remaining() const { return remaining_; }

 private:
  int64_t remaining_;
};

// (long) of a window average: NaN (never collected) is 0, as Java casts it.
int64_t Usage(const EvaluatedMetrics& m, const char* metric) {
  const double v = Average(m.global, metric);
  return std::isnan(v) ? 0 : static_cast<int64_t>(v);
}

}  // namespace

std::map<std::string, std::string> ApplyConfigChanges(std::map<std::string, std::string> conf,
                                                      const ConfigChanges& changes) {
  for (const std::string& key : changes.removals) conf.erase(key);
  for (const auto& [key, value] : changes.overrides) conf[key] = value;
  return conf;
}

StatusOr<TaskManagerMemory> DeriveTaskManagerMemory(const Conf& c) {
  TaskManagerMemory m;
  TRIMTAB_ASSIGN_OR_RETURN(m.framework_heap, MemoryOr(c, {kFrameworkHeap}, 128 * kMi));
  TRIMTAB_ASSIGN_OR_RETURN(m.framework_off_heap, MemoryOr(c, {kFrameworkOffHeap}, 128 * kMi));
  TRIMTAB_ASSIGN_OR_RETURN(m.task_off_heap, MemoryOr(c, {kTaskOffHeap}, 0));
  TRIMTAB_ASSIGN_OR_RETURN(m.metaspace, MemoryOr(c, {kMetaspace}, 256 * kMi));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> task_heap, Memory(c, {kTaskHeap}));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> managed,
                           Memory(c, {kManagedSize, kManagedSizeLegacy}));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> flink, Memory(c, {kFlinkSize}));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> process, Memory(c, {kProcessSize}));
  if (task_heap && managed) {
    // Fine-grained: the network memory is what the Flink size leaves, or derived by the inverse
    // fraction from everything else.
    m.task_heap = *task_heap;
    m.managed = *managed;
    const int64_t without_network =
        m.framework_heap + m.task_heap + m.framework_off_heap + m.task_off_heap + m.managed;
    if (flink) {
      m.network = *flink - without_network;
      if (m.network < 0) {
        return InvalidArgumentError(std::string(kFlinkSize) +
                                    ": smaller than its configured components");
      }
    } else {
      TRIMTAB_ASSIGN_OR_RETURN(Range network, NetworkRange(c));
      m.network = WithInverseFraction(without_network, network);
    }
    TRIMTAB_RETURN_IF_ERROR(DeriveOverheadFromTotalFlink(c, &m));
    return m;
  }
  if (flink) {
    TRIMTAB_RETURN_IF_ERROR(DeriveFromTotalFlink(c, *flink, &m));
    TRIMTAB_RETURN_IF_ERROR(DeriveOverheadFromTotalFlink(c, &m));
    return m;
  }
  if (process) {
    TRIMTAB_ASSIGN_OR_RETURN(Range overhead, OverheadRange(c));
    m.overhead = WithFraction(*process, overhead);
    const int64_t flink_size = *process - m.metaspace - m.overhead;
    if (flink_size < 0) {
      return InvalidArgumentError(std::string(kProcessSize) +
                                  ": smaller than the metaspace and JVM overhead");
    }
    TRIMTAB_RETURN_IF_ERROR(DeriveFromTotalFlink(c, flink_size, &m));
    return m;
  }
  return InvalidArgumentError(
      "TaskManager memory: set taskmanager.memory.process.size, taskmanager.memory.flink.size, "
      "or taskmanager.memory.task.heap.size and taskmanager.memory.managed.size");
}

int NetworkSegments(int current_parallelism, int connected_parallelism,
                    const std::string& ship_strategy, int buffers_per_channel,
                    int floating_buffers) {
  if (ship_strategy == "FORWARD" && current_parallelism == connected_parallelism) {
    return buffers_per_channel + floating_buffers;
  }
  if (ship_strategy == "FORWARD" || ship_strategy == "RESCALE") {
    const int channels = static_cast<int>(
        std::ceil(connected_parallelism / static_cast<double>(current_parallelism)));
    return channels * buffers_per_channel + floating_buffers;
  }
  return connected_parallelism * buffers_per_channel + floating_buffers;
}

std::string FormatFlinkMemorySize(int64_t bytes) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {1, "bytes"}, {int64_t{1} << 10, "kb"}, {int64_t{1} << 20, "mb"},
      {int64_t{1} << 30, "gb"}, {int64_t{1} << 40, "tb"}};
  // The unit before the first that does not divide; bytes when all do (0 included).
  size_t unit = 0;
  for (size_t i = 0; i < std::size(kUnits); ++i) {
    if (bytes % kUnits[i].first != 0) {
      unit = i == 0 ? 0 : i - 1;
      break;
    }
  }
  return std::to_string(bytes / kUnits[unit].first) + " " + kUnits[unit].second;
}

MemoryTuningResult TuneTaskManagerMemory(const MemoryTuningInput& in) {
  MemoryTuningResult out;
  const Conf& conf = *in.configuration;
  const AutoscalerOptions& o = *in.options;
  StatusOr<TaskManagerMemory> spec = DeriveTaskManagerMemory(conf);
  if (!spec.ok()) {
    out.note = "memory tuning skipped: the memory configuration is not valid (" +
               spec.status().message() + ")";
    return out;
  }
  if (!in.task_manager_memory || *in.task_manager_memory <= 0) {
    out.note = "memory tuning skipped: the TaskManager memory of the spec is unknown";
    return out;
  }
  const int64_t max_memory = *in.task_manager_memory;
  Budget budget(max_memory);
  budget.Take(spec->framework_off_heap);
  budget.Take(spec->task_off_heap);
  budget.Take(spec->overhead);

  // New parallelism of every vertex.
  std::map<VertexId, int> parallelism;
  for (const VertexInfo& v : in.topology->vertices) {
    auto it = in.summaries->find(v.id);
    parallelism[v.id] = it != in.summaries->end() ? it->second.new_parallelism : v.parallelism;
  }
  const auto int_or = [&](const char* key, int64_t fallback) {
    StatusOr<int64_t> v = IntOr(conf, key, fallback);
    return v.ok() ? *v : fallback;
  };
  const int buffers = static_cast<int>(int_or(kBuffersPerChannel, 2));
  const int floating = static_cast<int>(int_or(kFloatingBuffers, 8));
  StatusOr<int64_t> segment = MemoryOr(conf, {kSegmentSize}, 32 * 1024);
  const int64_t segment_bytes = segment.ok() ? *segment : 32 * 1024;
  int64_t network = 0;
  for (const Edge& e : in.topology->edges) {
    // The edge's input gate at `to` and its output at `from`.
    network += NetworkSegments(parallelism[e.to], parallelism[e.from], e.ship_strategy, buffers,
                               floating) *
               segment_bytes;
    network += NetworkSegments(parallelism[e.from], parallelism[e.to], e.ship_strategy, buffers,
                               floating) *
               segment_bytes;
  }
  network = budget.Take(network * std::max(1, in.slots_per_task_manager));
  const double factor = 1 + o.memory_tuning_overhead;
  const int64_t metaspace =
      budget.Take(Multiply(Usage(*in.evaluated, kMetricMetaspaceMemoryUsed), factor));
  int64_t heap = budget.Take(Multiply(Usage(*in.evaluated, kMetricHeapMemoryUsed), factor));
  const int64_t managed_used = Usage(*in.evaluated, kMetricManagedMemoryUsed);
  int64_t managed = 0;
  if (managed_used > 0) {
    managed = o.memory_tuning_maximize_managed_memory ? budget.Take(kMaxBytes)
                                                      : budget.Take(spec->managed);
  }
  if (o.memory_tuning_scale_down_compensation) {
    // Keep the job's total heap when a scale-down leaves fewer TaskManagers.
    const double used = Current(in.evaluated->global, kMetricNumTaskSlotsUsed);
    if (!std::isnan(used)) {
      const int slots = std::max(1, in.slots_per_task_manager);
      const int after =
          EstimateTaskSlotsAfterRescale(*in.topology, *in.summaries, static_cast<int>(used));
      const int tms_before = static_cast<int>(std::ceil(static_cast<int>(used) / double(slots)));
      const int tms_after = static_cast<int>(std::ceil(after / double(slots)));
      const double scale = tms_after > 0 ? std::max(1.0, tms_before / double(tms_after)) : 1.0;
      heap += budget.Take(Multiply(heap, scale) - heap);
    }
  }
  const int64_t total = max_memory - budget.remaining();
  if (total <= 0) {
    out.note = "memory tuning skipped: invalid total memory " + std::to_string(total);
    return out;
  }
  const int64_t flink_memory = spec->TotalFlink() + (heap - spec->Heap()) +
                               (managed - spec->managed) + (network - spec->network);
  ConfigChanges& c = out.recommended;
  c.overrides[kProcessSize] = FormatFlinkMemorySize(total);
  c.removals.insert(kFlinkSize);
  c.removals.insert(kTaskHeap);
  c.overrides[kFrameworkHeap] = FormatFlinkMemorySize(0);
  c.overrides[kManagedFraction] =
      CeilFraction(static_cast<double>(managed) / static_cast<double>(flink_memory));
  c.removals.insert(kManagedSize);
  c.removals.insert(kManagedSizeLegacy);
  c.overrides[kNetworkMin] = FormatFlinkMemorySize(network);
  c.overrides[kNetworkMax] = FormatFlinkMemorySize(network);
  c.overrides[kOverheadFraction] =
      CeilFraction(static_cast<double>(spec->overhead) / static_cast<double>(total));
  c.overrides[kMetaspace] = FormatFlinkMemorySize(metaspace);
  std::string text;
  for (const auto& [key, value] : c.overrides) text += key + ": " + value + "\n";
  text += "Remove the following config entries if present: [";
  bool first = true;
  for (const std::string& key : c.removals) {
    text += (first ? "" : ", ") + key;
    first = false;
  }
  text += "]";
  out.event = AutoscalerEvent{"Normal", "Configuration recommendation",
                              std::string("Memory tuning recommends the following configuration "
                                          "(automatic tuning is ") +
                                  (o.memory_tuning_enabled ? "enabled" : "disabled") + "):\n" +
                                  text,
                              "MemoryTuning"};
  out.note = "memory tuning: heap " + FormatFlinkMemorySize(heap) + ", managed " +
             FormatFlinkMemorySize(managed) + ", network " + FormatFlinkMemorySize(network) +
             ", metaspace " + FormatFlinkMemorySize(metaspace) + ", process " +
             FormatFlinkMemorySize(total) + " (spec " + FormatFlinkMemorySize(max_memory) + ")" +
             (o.memory_tuning_enabled ? "" : "; not applied: memory.tuning.enabled is false");
  if (o.memory_tuning_enabled) out.applied = c;
  return out;
}

}  // namespace trimtab::core::flink
