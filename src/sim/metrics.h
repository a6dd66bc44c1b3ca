// The metrics a simulated job reports, in the shape the autoscaler's collector produces from
// Flink's REST API (reference notes flink-rest-and-sim.md §2): per subtask and per vertex
// busy / idle / backpressured ms per second (60-s window, 5-s updates), numRecordsIn/Out
// PerSecond (MeterView: 60-s trailing rates that ramp from zero after a restart),
// pendingRecords for sources, and job-level TaskManager CPU, heap, GC, slots and checkpoints.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"
#include "core/scaling_types.h"

namespace trimtab::sim {

enum class JobState {
  kRunning,     // tasks run; metrics are available
  kRestarting,  // rescale or failover in progress; no running tasks, vertex metrics absent
};

std::string_view JobStateName(JobState s);  // "RUNNING", "RESTARTING"

struct SubtaskMetrics {
  double busy_ms_per_second = 0;           // 1000 - min(1000, idle + backpressured)
  double idle_ms_per_second = 0;
  double backpressured_ms_per_second = 0;  // soft backpressure (hard is always 0 here)
  double records_in_per_second = 0;        // MeterView over 60 s
  double records_out_per_second = 0;
  double num_records_in = 0;               // counters since task start
  double num_records_out = 0;
  double accumulated_busy_ms = 0;          // since task start
  double accumulated_idle_ms = 0;
  double accumulated_backpressured_ms = 0;
  double pending_records = 0;              // sources: records not yet read from its partitions
  int assigned_partitions = 0;             // sources: partitions this reader owns
};

struct VertexMetrics {
  core::VertexId id;
  std::string name;
  bool is_source = false;
  int parallelism = 0;
  int max_parallelism = 0;
  int partitions = 0;  // sources only
  // Aggregates over subtasks as the collector asks for them (avg / max / sum).
  double busy_ms_per_second_avg = 0;
  double busy_ms_per_second_max = 0;
  double idle_ms_per_second_avg = 0;
  double backpressured_ms_per_second_avg = 0;
  double backpressured_ms_per_second_max = 0;
  double records_in_per_second = 0;   // sum
  double records_out_per_second = 0;  // sum
  double accumulated_busy_ms = 0;     // sum
  double num_records_in = 0;          // sum
  double num_records_out = 0;         // sum
  double pending_records = 0;         // sum; sources only
  std::vector<SubtaskMetrics> subtasks;
};

struct JobMetrics {
  double time_seconds = 0;  // simulation time of the snapshot
  JobState state = JobState::kRunning;
  double state_time_seconds = 0;  // time in the current state (Flink's <state>Time)
  std::vector<VertexMetrics> vertices;  // topological order; empty while restarting
  // Resources.
  int slots = 0;           // slots in use = max parallelism over vertices (slot sharing)
  int task_managers = 0;   // ceil(slots / slots per TaskManager)
  int slots_per_task_manager = 0;
  double tm_cpu_load_avg = 0;   // Status.JVM.CPU.Load averaged over TaskManagers (0..1)
  double heap_used_bytes = 0;   // per TaskManager, average
  double heap_max_bytes = 0;    // per TaskManager
  double gc_time_ms_per_second = 0;
  // Job counters and checkpoints.
  int64_t num_restarts = 0;
  int64_t num_rescales = 0;
  int64_t completed_checkpoints = 0;
  double last_checkpoint_duration_seconds = 0;
  double last_checkpoint_size_bytes = 0;
  double state_size_bytes = 0;
};

Json JobMetricsToJson(const JobMetrics& m);

}  // namespace trimtab::sim
