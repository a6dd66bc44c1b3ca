#include "sim/metrics.h"

#include <nlohmann/json.hpp>

namespace trimtab::sim {

std::string_view JobStateName(JobState s) {
  return s == JobState::kRunning ? "RUNNING" : "RESTARTING";
}

namespace {

Json SubtaskToJson(const SubtaskMetrics& s, bool source) {
  Json j = Json::object();
  j["busyTimeMsPerSecond"] = s.busy_ms_per_second;
  j["idleTimeMsPerSecond"] = s.idle_ms_per_second;
  j["backPressuredTimeMsPerSecond"] = s.backpressured_ms_per_second;
  j["numRecordsInPerSecond"] = s.records_in_per_second;
  j["numRecordsOutPerSecond"] = s.records_out_per_second;
  j["numRecordsIn"] = s.num_records_in;
  j["numRecordsOut"] = s.num_records_out;
  j["accumulateBusyTimeMs"] = s.accumulated_busy_ms;
  j["accumulateIdleTimeMs"] = s.accumulated_idle_ms;
  j["accumulateBackPressuredTimeMs"] = s.accumulated_backpressured_ms;
  if (source) {
    j["pendingRecords"] = s.pending_records;
    j["assignedPartitions"] = s.assigned_partitions;
  }
  return j;
}

}  // namespace

Json JobMetricsToJson(const JobMetrics& m) {
  Json j = Json::object();
  j["time"] = m.time_seconds;
  j["state"] = std::string(JobStateName(m.state));
  j["stateTime"] = m.state_time_seconds;
  Json vertices = Json::array();
  for (const VertexMetrics& v : m.vertices) {
    Json vj = Json::object();
    vj["id"] = v.id;
    vj["name"] = v.name;
    vj["parallelism"] = v.parallelism;
    vj["maxParallelism"] = v.max_parallelism;
    if (v.is_source) {
      vj["partitions"] = v.partitions;
      vj["pendingRecords"] = v.pending_records;
    }
    vj["busyTimeMsPerSecond"] = {{"avg", v.busy_ms_per_second_avg}, {"max", v.busy_ms_per_second_max}};
    vj["idleTimeMsPerSecond"] = {{"avg", v.idle_ms_per_second_avg}};
    vj["backPressuredTimeMsPerSecond"] = {{"avg", v.backpressured_ms_per_second_avg},
                                          {"max", v.backpressured_ms_per_second_max}};
    vj["numRecordsInPerSecond"] = v.records_in_per_second;
    vj["numRecordsOutPerSecond"] = v.records_out_per_second;
    vj["numRecordsIn"] = v.num_records_in;
    vj["numRecordsOut"] = v.num_records_out;
    vj["accumulateBusyTimeMs"] = v.accumulated_busy_ms;
    Json subtasks = Json::array();
    for (const SubtaskMetrics& s : v.subtasks) subtasks.push_back(SubtaskToJson(s, v.is_source));
    vj["subtasks"] = std::move(subtasks);
    vertices.push_back(std::move(vj));
  }
  j["vertices"] = std::move(vertices);
  j["slots"] = m.slots;
  j["taskManagers"] = m.task_managers;
  j["slotsPerTaskManager"] = m.slots_per_task_manager;
  j["Status.JVM.CPU.Load"] = m.tm_cpu_load_avg;
  j["Status.JVM.Memory.Heap.Used"] = m.heap_used_bytes;
  j["Status.JVM.Memory.Heap.Max"] = m.heap_max_bytes;
  j["Status.JVM.GarbageCollector.All.TimeMsPerSecond"] = m.gc_time_ms_per_second;
  j["numRestarts"] = m.num_restarts;
  j["numRescales"] = m.num_rescales;
  j["numberOfCompletedCheckpoints"] = m.completed_checkpoints;
  j["lastCheckpointDuration"] = m.last_checkpoint_duration_seconds * 1000.0;
  j["lastCheckpointSize"] = m.last_checkpoint_size_bytes;
  j["stateSize"] = m.state_size_bytes;
  return j;
}

}  // namespace trimtab::sim
