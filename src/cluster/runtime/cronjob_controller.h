// CronJobController: kube-controller-manager's cronjob controller (v2).
//
// For each CronJob, at each time of spec.schedule (cron_schedule.h; UTC) after the last
// scheduled time (or its creation), unless suspended or later than startingDeadlineSeconds, it
// creates the Job "<cronjob>-<minutes since the epoch>" from spec.jobTemplate (labels and
// annotations, the scheduled-timestamp annotation, a controller reference); concurrencyPolicy
// Forbid skips a run while one is active, Replace deletes the active ones first. Status: active
// (references to unfinished Jobs), lastScheduleTime, lastSuccessfulTime. Finished Jobs beyond
// successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted, oldest first. Events
// SuccessfulCreate, SuccessfulDelete, JobAlreadyActive; an unparsable schedule or time zone:
// InvalidSchedule, nothing runs.
// Missed runs are not caught up: only the latest missed time runs (upstream's behaviour
// after a downtime, without its 100-misses warning).
//
// Threading: a Controller with one worker; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class CronJobController {
 public:
  CronJobController(const kube::KubeClient* client, InformerSet* informers,
                    EventRecorder* events, Clock* clock);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
