// ClusterState::RefreshMetrics: one MetricFetcher round (metric_store.h) over the JobManager,
// the TaskManagers and every job's subtasks, from the job models' current snapshots.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "cluster/flink/cluster_state.h"
#include "sim/key_groups.h"

namespace trimtab::sim::flink {

namespace {

constexpr double kRecordBytes = 100;                 // serialized record size for numBytes*
constexpr double kIdleCpuPerSlot = 0.02;             // cores an idle slot uses
constexpr double kBaseHeapFraction = 0.15;           // heap used by an idle TaskManager
constexpr double kHeapPerBusySlotFraction = 0.2;     // extra heap of a fully busy slot
constexpr int64_t kJobManagerHeapBytes = 469762048;  // heap of a 1600m JobManager

std::string Long(double v) { return std::to_string(std::llround(v)); }
std::string Long(int64_t v) { return std::to_string(v); }

void PutJobStatusMetrics(const FlinkJob& job, int64_t now, const FlinkVersion& version, MetricMap* m) {
  const JobStatus st = job.status();
  const auto since = [&](JobStatus s) { return st == s ? now - job.status_timestamp(s) : 0; };
  (*m)["numRestarts"] = Long(job.num_restarts());
  if (!version.AtLeast(2, 0)) (*m)["fullRestarts"] = Long(job.num_restarts());
  if (version.AtLeast(2, 0)) (*m)["numRescales"] = Long(job.num_rescales());
  const bool running = st == JobStatus::kRunning;
  (*m)["uptime"] = Long(running ? now - job.status_timestamp(JobStatus::kRunning) : IsTerminal(st) ? -1 : 0);
  int64_t down = 0;
  if (st == JobStatus::kRestarting || st == JobStatus::kFailing) down = now - job.status_timestamp(st);
  if (IsTerminal(st)) down = -1;
  (*m)["downtime"] = Long(down);
  for (JobStatus s : {JobStatus::kInitializing, JobStatus::kCreated, JobStatus::kRunning, JobStatus::kRestarting,
                      JobStatus::kCancelling, JobStatus::kFailing}) {
    std::string name(JobStatusName(s));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    (*m)[name + "Time"] = Long(since(s));
  }
  if (!job.settings().checkpoints.enabled) return;
  const CheckpointStats& cs = job.checkpoint_stats();
  const std::optional<CheckpointRecord>& last = cs.latest_completed;
  (*m)["lastCheckpointDuration"] = Long(last ? last->end_ms - last->trigger_ms : -1);
  (*m)["lastCheckpointSize"] = Long(last ? last->state_bytes : -1);
  (*m)["lastCheckpointFullSize"] = Long(last ? last->state_bytes : -1);
  (*m)["lastCompletedCheckpointId"] = Long(last ? last->id : -1);
  (*m)["lastCheckpointCompletedTimestamp"] = Long(last ? last->end_ms : -1);
  (*m)["lastCheckpointExternalPath"] = last ? last->external_path : "n/a";
  (*m)["lastCheckpointRestoreTimestamp"] = Long(cs.latest_restored ? cs.latest_restored->restore_ms : -1);
  (*m)["numberOfInProgressCheckpoints"] = Long(cs.in_progress);
  (*m)["numberOfCompletedCheckpoints"] = Long(cs.completed);
  (*m)["numberOfFailedCheckpoints"] = Long(cs.failed);
  (*m)["totalNumberOfCheckpoints"] = Long(cs.total);
}

}  // namespace

void ClusterState::RefreshMetrics() {
  const int64_t now = now_ms();
  const double elapsed = metrics_.fetched_ms < 0 ? 0.0 : static_cast<double>(now - metrics_.fetched_ms) / 1000.0;
  const FlinkVersion& version = options_.settings.version;
  MetricSnapshot snap;
  snap.fetched_ms = now;
  std::map<std::string, double> tm_busy;   // sum of busy fractions of the subtasks per TaskManager
  std::map<std::string, double> tm_state;  // on-heap state bytes per TaskManager
  int running_jobs = 0;

  for (const std::unique_ptr<FlinkJob>& job : jobs_) {
    JobMetricsSnapshot& jm = snap.jobs[job->id()];
    PutJobStatusMetrics(*job, now, version, &jm.job);
    if (!IsTerminal(job->status())) ++running_jobs;
    const JobModel* model = job->model();
    if (!model || !job->tasks_running()) continue;
    const JobMetrics metrics = model->Snapshot();
    if (metrics.vertices.size() != job->vertices().size()) continue;
    const std::vector<VertexId>& sources = model->source_ids();
    const int slots = std::max(1, job->required_slots());
    const double state_per_slot = metrics.state_size_bytes / slots;
    for (int i = 0; i < slots; ++i) {
      if (const TaskManagerInfo* tm = job->SubtaskTaskManager(i)) tm_state[tm->id] += state_per_slot;
    }
    const int64_t init_ms = std::max<int64_t>(0, job->task_state_timestamp(ExecutionState::kRunning) -
                                                     job->task_state_timestamp(ExecutionState::kInitializing));
    for (size_t vi = 0; vi < metrics.vertices.size(); ++vi) {
      const VertexMetrics& vm = metrics.vertices[vi];
      const JobVertexView& view = job->vertices()[vi];
      const std::string op = view.metric_name + ".";
      int source_index = -1;
      for (size_t s = 0; s < sources.size(); ++s) {
        if (sources[s] == view.spec_id) source_index = static_cast<int>(s);
      }
      const std::vector<PartitionOffsets>* parts = source_index >= 0 ? &model->partitions(source_index) : nullptr;
      std::vector<MetricMap>& subtasks = jm.subtasks[view.id];
      subtasks.resize(vm.subtasks.size());
      for (size_t i = 0; i < vm.subtasks.size(); ++i) {
        const SubtaskMetrics& s = vm.subtasks[i];
        MetricMap& m = subtasks[i];
        m["numRecordsIn"] = Long(s.num_records_in);
        m["numRecordsOut"] = Long(s.num_records_out);
        m["numRecordsInPerSecond"] = JavaDoubleString(s.records_in_per_second);
        m["numRecordsOutPerSecond"] = JavaDoubleString(s.records_out_per_second);
        m["numBytesIn"] = Long(s.num_records_in * kRecordBytes);
        m["numBytesOut"] = Long(s.num_records_out * kRecordBytes);
        m["numBytesInPerSecond"] = JavaDoubleString(s.records_in_per_second * kRecordBytes);
        m["numBytesOutPerSecond"] = JavaDoubleString(s.records_out_per_second * kRecordBytes);
        m["busyTimeMsPerSecond"] = JavaDoubleString(s.busy_ms_per_second);
        m["idleTimeMsPerSecond"] = Long(s.idle_ms_per_second);
        m["backPressuredTimeMsPerSecond"] = Long(s.backpressured_ms_per_second);
        m["softBackPressuredTimeMsPerSecond"] = Long(s.backpressured_ms_per_second);
        m["hardBackPressuredTimeMsPerSecond"] = "0";
        m["accumulateBusyTimeMs"] = JavaDoubleString(std::round(s.accumulated_busy_ms));
        m["accumulateIdleTimeMs"] = Long(s.accumulated_idle_ms);
        m["accumulateBackPressuredTimeMs"] = Long(s.accumulated_backpressured_ms);
        m["isBackPressured"] = s.backpressured_ms_per_second > 500 ? "true" : "false";
        m["maxSoftBackPressureTimeMs"] = Long(std::min(1000.0, s.backpressured_ms_per_second));
        m["maxHardBackPressureTimeMs"] = "0";
        m["initializationTime"] = Long(init_ms);
        m["checkpointStartDelayNanos"] = Long(s.backpressured_ms_per_second * 1e5);
        m[op + "numRecordsIn"] = m["numRecordsIn"];
        m[op + "numRecordsOut"] = m["numRecordsOut"];
        m[op + "numRecordsInPerSecond"] = m["numRecordsInPerSecond"];
        m[op + "numRecordsOutPerSecond"] = m["numRecordsOutPerSecond"];
        const std::string watermark = Long(now - 5000);
        if (view.source) {
          m["currentInputWatermark"] = Long(std::numeric_limits<int64_t>::min());
          m[op + "currentOutputWatermark"] = watermark;
          m[op + "numRecordsInErrors"] = "0";
          const double rate = std::max(1.0, model->source_rate(source_index));
          m[op + "currentEmitEventTimeLag"] = Long(s.pending_records / rate * 1000.0);
          m[op + "sourceIdleTime"] = Long(s.records_in_per_second > 0 ? 0 : now - job->running_since_ms());
          if (s.num_records_in > 0 && s.assigned_partitions > 0) m[op + "pendingRecords"] = Long(s.pending_records);
          const std::string topic = SanitizeMetricName(view.spec_id);
          for (size_t p = 0; parts && p < parts->size(); ++p) {
            if (KafkaPartitionOwner(view.spec_id, static_cast<int>(p), view.parallelism) != static_cast<int>(i)) continue;
            const std::string prefix = op + "KafkaSourceReader.topic." + topic + ".partition." + std::to_string(p) + ".";
            m[prefix + "currentOffset"] = Long((*parts)[p].read);
            m[prefix + "committedOffset"] = Long((*parts)[p].committed);
          }
          m[op + "KafkaSourceReader.commitsSucceeded"] = Long(model->completed_checkpoints());
          m[op + "KafkaSourceReader.commitsFailed"] = "0";
        } else {
          m["currentInputWatermark"] = watermark;
          m[op + "currentInputWatermark"] = watermark;
          m[op + "currentOutputWatermark"] = watermark;
        }
        if (const TaskManagerInfo* tm = job->SubtaskTaskManager(static_cast<int>(i))) {
          tm_busy[tm->id] += s.busy_ms_per_second / 1000.0;
        }
      }
    }
  }

  const TaskManagerSettings& tms = options_.settings.task_manager;
  const double heap_max = static_cast<double>(tms.HeapMax());
  for (const SlotPool::TaskManager& tm : slots_.task_managers()) {
    const std::string& id = tm.info.id;
    const double busy = tm_busy[id];
    int used_slots = 0;
    for (const std::string& o : tm.owners) used_slots += o.empty() ? 0 : 1;
    const double heap = std::min(heap_max, heap_max * (kBaseHeapFraction + kHeapPerBusySlotFraction * busy) + tm_state[id]);
    const double load = std::min(1.0, (busy + kIdleCpuPerSlot * static_cast<double>(tm.owners.size())) / tms.cpu);
    const double pressure = std::max(0.0, heap / heap_max - 0.7);
    const double gc = std::min(1000.0, 5.0 * busy + 4000.0 * pressure * pressure);
    TaskManagerCounters& c = tm_counters_[id];
    c.gc_time_ms += gc * elapsed;
    c.gc_count += elapsed * (0.2 + busy);
    c.cpu_time_ns += load * tms.cpu * elapsed * 1e9;
    MetricMap& m = snap.taskmanagers[id];
    m["Status.JVM.CPU.Load"] = JavaDoubleString(load);
    m["Status.JVM.CPU.Time"] = Long(c.cpu_time_ns);
    m["Status.JVM.Memory.Heap.Used"] = Long(heap);
    m["Status.JVM.Memory.Heap.Committed"] = Long(heap_max);
    m["Status.JVM.Memory.Heap.Max"] = Long(heap_max);
    m["Status.JVM.Memory.NonHeap.Used"] = Long(static_cast<double>(tms.metaspace) * 0.6);
    m["Status.JVM.Memory.NonHeap.Committed"] = Long(static_cast<double>(tms.metaspace) * 0.7);
    m["Status.JVM.Memory.NonHeap.Max"] = "-1";
    m["Status.JVM.Memory.Metaspace.Used"] = Long(static_cast<double>(tms.metaspace) * 0.4);
    m["Status.JVM.Memory.Metaspace.Committed"] = Long(static_cast<double>(tms.metaspace) * 0.45);
    m["Status.JVM.Memory.Metaspace.Max"] = Long(tms.metaspace);
    m["Status.JVM.Memory.Direct.Count"] = Long(static_cast<int64_t>(32 + 8 * used_slots));
    m["Status.JVM.Memory.Direct.MemoryUsed"] = Long(tms.network + tms.framework_off_heap / 4);
    m["Status.JVM.Memory.Direct.TotalCapacity"] = Long(tms.network + tms.framework_off_heap / 4);
    const int64_t managed_used = tm.owners.empty() ? 0 : tms.managed * used_slots / static_cast<int64_t>(tm.owners.size());
    m["Status.Flink.Memory.Managed.Used"] = Long(options_.settings.checkpoints.state_backend == "rocksdb" ? managed_used : 0);
    m["Status.Flink.Memory.Managed.Total"] = Long(tms.managed);
    m["Status.JVM.GarbageCollector.G1_Young_Generation.Count"] = Long(c.gc_count);
    m["Status.JVM.GarbageCollector.G1_Young_Generation.Time"] = Long(c.gc_time_ms);
    m["Status.JVM.GarbageCollector.G1_Old_Generation.Count"] = "0";
    m["Status.JVM.GarbageCollector.G1_Old_Generation.Time"] = "0";
    if (version.AtLeast(1, 19)) {
      m["Status.JVM.GarbageCollector.G1_Young_Generation.TimeMsPerSecond"] = Long(gc);
      m["Status.JVM.GarbageCollector.G1_Old_Generation.TimeMsPerSecond"] = "0";
      m["Status.JVM.GarbageCollector.All.Count"] = Long(c.gc_count);
      m["Status.JVM.GarbageCollector.All.Time"] = Long(c.gc_time_ms);
      m["Status.JVM.GarbageCollector.All.TimeMsPerSecond"] = Long(gc);
    }
    m["Status.JVM.Threads.Count"] = Long(static_cast<int64_t>(60 + 12 * used_slots));
    m["Status.JVM.ClassLoader.ClassesLoaded"] = "9000";
    m["Status.JVM.ClassLoader.ClassesUnloaded"] = "0";
    m["Status.Shuffle.Netty.TotalMemory"] = Long(tms.network);
    m["Status.Shuffle.Netty.UsedMemory"] = Long(static_cast<double>(tms.network) * std::min(1.0, 0.05 + busy / 4));
    m["Status.Shuffle.Netty.AvailableMemory"] =
        Long(static_cast<double>(tms.network) * (1.0 - std::min(1.0, 0.05 + busy / 4)));
  }

  MetricMap& jmm = snap.jobmanager;
  jmm["taskSlotsTotal"] = Long(static_cast<int64_t>(slots_.total_slots()));
  jmm["taskSlotsAvailable"] = Long(static_cast<int64_t>(slots_.free_slots()));
  jmm["numRegisteredTaskManagers"] = Long(static_cast<int64_t>(slots_.task_managers().size()));
  jmm["numPendingTaskManagers"] =
      Long(static_cast<int64_t>(std::max(0, DesiredTaskManagers() - static_cast<int>(slots_.task_managers().size()))));
  jmm["numRunningJobs"] = Long(static_cast<int64_t>(running_jobs));
  jmm["Status.JVM.Memory.Heap.Used"] = Long(kJobManagerHeapBytes / 3 + 1024 * static_cast<int64_t>(jobs_.size()));
  jmm["Status.JVM.Memory.Heap.Committed"] = Long(kJobManagerHeapBytes);
  jmm["Status.JVM.Memory.Heap.Max"] = Long(kJobManagerHeapBytes);
  jmm["Status.JVM.CPU.Load"] = JavaDoubleString(0.01);
  jmm["Status.JVM.Threads.Count"] = "72";
  metrics_ = std::move(snap);
}

}  // namespace trimtab::sim::flink
