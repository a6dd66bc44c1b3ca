// VolcanoScheduler: Volcano's scheduler inside `trimtab local`, on the runtime's scheduler seam
// (cluster/runtime/scheduler.h). It serves pods whose spec.schedulerName is one of its names
// ("volcano" by default) and places them with the same session engine as `trimtab eval
// schedule` (core/scheduling): gangs admitted whole through PodGroups, Queues with their
// shares and limits, job priority, preemption and reclaim as the configuration says.
//
// Start():
//   1. installs the PodGroup and Queue CRDs when absent and creates the `root` and default
//      queues, as vc-scheduler does at start (volcano_crds.h);
//   2. watches PodGroups, Queues and PriorityClasses (own informers; a change asks the loop for
//      a cycle) and starts the queue controller (queue_controller.h) and the status writer
//      (status_writer.h).
// Every `schedule_period` (Schedule; the loop calls it every cycle, pending pods or not; a call
// sooner than a period after the last session only asks for the next one, as Volcano opens a
// session every second whatever happens in between):
//   1. ClusterObjects from the snapshot, the runtime's pod cache (every pod) and its own caches;
//   2. RunSession with the configuration;
//   3. the binds go back to the loop as bindings, one binding group per gang (it POSTs
//      pods/binding, a gang's in order, gangs at once, and records Scheduled);
//      pipelined and unplaced pods are in neither list, so they stay pending without the
//      loop's back-off and the next session sees the whole gang again;
//   4. everything else (PodGroup status and events, Queue status.allocated, PodScheduled=False
//      on pending pods with the gang's message, evictions) goes to the status writer.
// A session that fails (an object it cannot read) changes nothing; its error is logged once per
// distinct message.
//
// Thread-safety: the loop calls Start/Schedule/Stop from its one thread; stats() from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/runtime/informer_set.h"
#include "cluster/runtime/runtime.h"
#include "cluster/runtime/scheduler.h"
#include "core/scheduling/scheduler_config.h"

namespace trimtab::cluster::volcano {

class QueueController;
class VolcanoStatusWriter;

struct VolcanoSchedulerOptions {
  // spec.schedulerName values served (Volcano's --scheduler-name); the first names the events'
  // source. Must not be empty.
  std::vector<std::string> scheduler_names = {"volcano"};
  // The queue of PodGroups that name none, created at start (--default-queue).
  std::string default_queue = "default";
  // volcano-scheduler.conf; default: core::scheduling::DefaultSchedulerConfig().
  core::scheduling::SchedulerConfig config = core::scheduling::DefaultSchedulerConfig();
  // Time between sessions (--schedule-period), on the runtime clock.
  Duration schedule_period = std::chrono::seconds(1);
  // How long Start waits for the CRDs to be served and the informers' first LIST.
  std::chrono::milliseconds sync_timeout{30000};
};

// What the sessions cost so far (wall time on the steady clock; benchmarks and logs).
struct VolcanoSessionStats {
  int64_t sessions = 0;
  int64_t binds = 0;              // bindings handed to the loop
  double build_seconds = 0;       // ClusterObjects from the caches
  double session_seconds = 0;     // RunSession
  double apply_seconds = 0;       // handing the rest to the status writer
  double max_cycle_seconds = 0;   // the longest Schedule() call
};

class VolcanoScheduler final : public runtime::Scheduler {
 public:
  explicit VolcanoScheduler(VolcanoSchedulerOptions options);
  ~VolcanoScheduler() override;

  std::string_view name() const override { return options_.scheduler_names.front(); }
  bool Serves(std::string_view scheduler_name) const override;
  Status Start(const runtime::SchedulerContext& context) override;
  void Stop() override;
  runtime::SchedulingDecision Schedule(const runtime::ClusterSnapshot& snapshot,
                                       const std::vector<kube::ObjectPtr>& pending) override;
  bool RunsWithoutPending() const override { return true; }
  // Until a period after the last session.
  Duration NextCycleIn(TimePoint now) const override;

  VolcanoSessionStats stats() const;

 private:
  const VolcanoSchedulerOptions options_;
  runtime::SchedulerContext context_;
  std::unique_ptr<runtime::InformerSet> informers_;
  std::unique_ptr<QueueController> queue_controller_;
  std::unique_ptr<VolcanoStatusWriter> writer_;
  std::string last_error_;  // the last session error logged (loop thread only)
  int64_t sessions_ = 0;
  TimePoint last_session_{};  // when the last session ran (loop thread only)
  mutable std::mutex stats_mu_;
  VolcanoSessionStats stats_;  // guarded by stats_mu_
};

// A RuntimeOptions::schedulers entry. Fails when `options` are unusable (no scheduler name).
runtime::SchedulerFactory VolcanoSchedulerFactory(VolcanoSchedulerOptions options);

}  // namespace trimtab::cluster::volcano
