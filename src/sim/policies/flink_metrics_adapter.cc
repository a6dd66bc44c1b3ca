#include "sim/policies/flink_metrics_adapter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trimtab::sim {

namespace {
constexpr int64_t kEpochMillis = 1'704'067'200'000;  // 2024-01-01T00:00:00Z
}  // namespace

TimePoint SimTimePoint(double seconds) {
  return FromUnixMillis(kEpochMillis + std::llround(seconds * 1000.0));
}

core::flink::RawSample ToAutoscalerSample(const JobMetrics& m, TimePoint time) {
  core::flink::RawSample raw;
  raw.time = time;
  for (const VertexMetrics& v : m.vertices) {
    core::flink::RawVertexMetrics r;
    if (!v.subtasks.empty()) {
      double lo = std::numeric_limits<double>::infinity();
      for (const SubtaskMetrics& s : v.subtasks) lo = std::min(lo, s.busy_ms_per_second);
      r.busy_time_min = lo;
    } else {
      r.busy_time_min = v.busy_ms_per_second_avg;
    }
    r.busy_time_max = v.busy_ms_per_second_max;
    r.busy_time_avg = v.busy_ms_per_second_avg;
    r.accumulated_busy_time = v.accumulated_busy_ms;
    r.num_records_in = v.num_records_in;
    r.num_records_out = v.num_records_out;
    r.num_records_in_per_second = v.records_in_per_second;
    r.num_records_out_per_second = v.records_out_per_second;
    r.back_pressured_time_ms_per_second = v.backpressured_ms_per_second_avg;
    if (v.is_source) r.pending_records = v.pending_records;
    raw.vertices.emplace(v.id, std::move(r));
  }
  raw.job.gc_time_ms_per_second = m.gc_time_ms_per_second;
  raw.job.heap_used = m.heap_used_bytes;
  raw.job.heap_max = m.heap_max_bytes;
  const double total = static_cast<double>(m.task_managers) * m.slots_per_task_manager;
  raw.job.task_slots_total = total;
  raw.job.task_slots_available = std::max(0.0, total - m.slots);
  if (m.completed_checkpoints > 0) {
    raw.job.last_checkpoint_duration_ms = m.last_checkpoint_duration_seconds * 1000;
  }
  return raw;
}

const char* FlinkJobStatus(const JobMetrics& m) {
  return m.state == JobState::kRunning ? "RUNNING" : "RESTARTING";
}

std::optional<TimePoint> JobRunningSince(const JobMetrics& m) {
  if (m.state != JobState::kRunning) return std::nullopt;
  return SimTimePoint(m.time_seconds - m.state_time_seconds);
}

}  // namespace trimtab::sim
