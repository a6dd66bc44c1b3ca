// FlinkSessionJobController: one reconcile pass of a FlinkSessionJob, a job submitted to the
// session cluster named by spec.deploymentName (upstream FlinkSessionJobController and
// SessionJobReconciler, notes §B.1-§B.8, §B.13):
//
//   read the job and its session FlinkDeployment -> deletion (cancel or stop-with-savepoint, then
//   the finalizer) or: finalizer -> observe the job over the session's REST API -> validate
//   against the session cluster -> write the status -> reconcile: first submission (jar fetched
//   from jarURI, POST /jars/upload, /jars/:id/run with a job id persisted beforehand), spec
//   changes through the same upgrade-mode rules as applications (savepoint: stop-with-savepoint;
//   stateless / cancel: cancel; never last-state), suspend/resume, snapshots.
//
// The session cluster must be READY before anything is submitted or changed; until then the job
// is rescheduled every reconcile interval.
//
// Thread-safety: Reconcile() may run concurrently for different resources.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "operator/controller_shared/controller_deps.h"
#include "operator/controller_shared/job_context.h"
#include "operator/controller_shared/status_recorder.h"
#include "operator/decisions/upgrade_mode.h"

namespace trimtab::op {

struct SessionJobPass;

class FlinkSessionJobController {
 public:
  explicit FlinkSessionJobController(ControllerDeps deps);
  ~FlinkSessionJobController();

  StatusOr<ReconcileResult> Reconcile(const std::string& ns, const std::string& name);

 private:
  StatusOr<ReconcileResult> RunPass(SessionJobPass& p);
  StatusOr<ReconcileResult> Cleanup(SessionJobPass& p);
  Status WriteStatus(SessionJobPass& p);
  Status Observe(SessionJobPass& p);
  Status ReconcileSpec(SessionJobPass& p);
  Status Submit(SessionJobPass& p, const std::string& savepoint_path);
  // Stops the job per the suspend mode; *async when the cancellation is still in progress.
  Status Suspend(SessionJobPass& p, SuspendMode mode, bool* async);
  ReconcileResult Reschedule(const SessionJobPass& p) const;
  ResourceMemory* MemoryFor(const std::string& uid);

  ControllerDeps deps_;
  StatusRecorder status_recorder_;
  std::mutex memory_mu_;
  std::map<std::string, std::unique_ptr<ResourceMemory>> memory_;  // guarded by memory_mu_
};

}  // namespace trimtab::op
