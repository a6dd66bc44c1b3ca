// JobModel::Snapshot(): turns the model's 5-s window samples into the metric values Flink
// reports (kept apart from the stepping code in job_model.cc).
#include <algorithm>
#include <cmath>

#include "sim/job_model.h"
#include "sim/job_model_internal.h"

namespace trimtab::sim {

namespace {
constexpr double kMeterSeconds = 60.0;
constexpr double kIdleTaskManagerCpu = 0.02;  // cores used by an idle TaskManager per slot
}  // namespace


JobMetrics JobModel::Snapshot() const {
  JobMetrics m;
  m.time_seconds = now_seconds();
  m.state = state();
  m.state_time_seconds = static_cast<double>(now_ms_ - state_since_ms_) / 1000.0;
  m.slots = slots_;
  m.task_managers = task_managers();
  m.slots_per_task_manager = spec_.task_manager.slots;
  m.num_restarts = num_restarts_;
  m.num_rescales = num_rescales_;
  m.completed_checkpoints = completed_checkpoints_;
  m.last_checkpoint_duration_seconds = completed_checkpoints_ > 0 ? last_checkpoint_duration_s_ : 0;
  m.last_checkpoint_size_bytes = last_checkpoint_size_;
  m.state_size_bytes = StateBytes();
  const TaskManagerSpec& tm = spec_.task_manager;
  m.heap_max_bytes = tm.heap_bytes;

  double busy_slots = 0;  // sum of busy fractions over all subtasks
  if (m.state == JobState::kRunning) {
    const int pushes = ring_count_ - 1;
    const int span = std::min(pushes, kSlots - 1);
    const auto slot_back = [&](int back) { return (ring_head_ - back + 2 * kSlots) % kSlots; };
    const int oldest = slot_back(span);
    const int meter_slot = slot_back(kSlots - 1);
    const double gauge_seconds =
        static_cast<double>(ring_time_ms_[ring_head_] - ring_time_ms_[slot_back(span)]) / 1000.0;
    const double elapsed_ms = static_cast<double>(now_ms_ - task_start_ms_);
    m.vertices.reserve(vertices_.size());
    for (const Vertex& v : vertices_) {
      VertexMetrics vm;
      vm.id = v.id;
      vm.name = spec_.vertices[static_cast<size_t>(v.spec_index)].name;
      vm.is_source = v.source >= 0;
      vm.parallelism = v.p;
      vm.max_parallelism = v.max_p;
      const Source* src = vm.is_source ? &sources_[static_cast<size_t>(v.source)] : nullptr;
      if (src) vm.partitions = static_cast<int>(src->parts.size());
      vm.subtasks.resize(static_cast<size_t>(v.p));
      for (int i = 0; i < v.p; ++i) {
        const size_t u = static_cast<size_t>(v.first + i);
        SubtaskMetrics& s = vm.subtasks[static_cast<size_t>(i)];
        if (gauge_seconds > 0) {
          s.idle_ms_per_second = (RingValue(2, ring_head_, v, u) - RingValue(2, oldest, v, u)) / gauge_seconds;
          s.backpressured_ms_per_second =
              (RingValue(3, ring_head_, v, u) - RingValue(3, oldest, v, u)) / gauge_seconds;
        }
        s.busy_ms_per_second =
            1000.0 - std::min(1000.0, s.idle_ms_per_second + s.backpressured_ms_per_second);
        // MeterView: (count now - count 60 s ago) / 60, with zeros before the task started.
        const double in_then = pushes >= kSlots - 1 ? RingValue(0, meter_slot, v, u) : 0.0;
        const double out_then = pushes >= kSlots - 1 ? RingValue(1, meter_slot, v, u) : 0.0;
        s.records_in_per_second = (RingValue(0, ring_head_, v, u) - in_then) / kMeterSeconds;
        s.records_out_per_second = (RingValue(1, ring_head_, v, u) - out_then) / kMeterSeconds;
        s.num_records_in = CumValue(0, v, u);
        s.num_records_out = CumValue(1, v, u);
        s.accumulated_idle_ms = CumValue(2, v, u);
        s.accumulated_backpressured_ms = CumValue(3, v, u);
        s.accumulated_busy_ms =
            std::max(0.0, elapsed_ms - s.accumulated_idle_ms - s.accumulated_backpressured_ms);
        if (src) {
          for (int k = src->owner_begin[static_cast<size_t>(i)]; k < src->owner_begin[static_cast<size_t>(i) + 1]; ++k) {
            s.pending_records += src->Readable(static_cast<size_t>(src->order[static_cast<size_t>(k)]));
            ++s.assigned_partitions;
          }
        }
        vm.busy_ms_per_second_avg += s.busy_ms_per_second / v.p;
        vm.busy_ms_per_second_max = std::max(vm.busy_ms_per_second_max, s.busy_ms_per_second);
        vm.idle_ms_per_second_avg += s.idle_ms_per_second / v.p;
        vm.backpressured_ms_per_second_avg += s.backpressured_ms_per_second / v.p;
        vm.backpressured_ms_per_second_max =
            std::max(vm.backpressured_ms_per_second_max, s.backpressured_ms_per_second);
        vm.records_in_per_second += s.records_in_per_second;
        vm.records_out_per_second += s.records_out_per_second;
        vm.accumulated_busy_ms += s.accumulated_busy_ms;
        vm.num_records_in += s.num_records_in;
        vm.num_records_out += s.num_records_out;
        vm.pending_records += s.pending_records;
        busy_slots += s.busy_ms_per_second / 1000.0;
      }
      m.vertices.push_back(std::move(vm));
    }
  }
  const double tms = std::max(1, m.task_managers);
  const double cores = tms * tm.cpu_cores;
  m.tm_cpu_load_avg = std::min(1.0, (busy_slots + kIdleTaskManagerCpu * m.slots) / cores);
  const double heap = tm.base_heap_bytes + tm.heap_per_busy_slot_bytes * busy_slots / tms +
                      (tm.state_on_heap ? m.state_size_bytes / tms : 0.0);
  m.heap_used_bytes = std::min(heap, tm.heap_bytes);
  // GC: a floor proportional to allocation (busy work) and a steep rise once the heap fills.
  const double ratio = m.heap_used_bytes / tm.heap_bytes;
  const double pressure = std::max(0.0, ratio - 0.7);
  m.gc_time_ms_per_second = std::min(1000.0, 5.0 * busy_slots / tms + 4000.0 * pressure * pressure);
  return m;
}

}  // namespace trimtab::sim
