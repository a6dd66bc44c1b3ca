// DeploymentPass (internal to the FlinkDeployment controller): the state of one reconcile pass.
//
// Thread-safety: owned by the thread running the pass.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "adapters/flink/rest_client.h"
#include "api/flink_resources.h"
#include "operator/controller_shared/job_context.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {

struct DeploymentPass {
  Json object;                  // the resource as read; resourceVersion follows our writes
  api::FlinkDeployment resource;  // spec = the spec being reconciled (may be the last valid one)
  int64_t generation = 0;       // generation of that spec
  api::FlinkConfiguration config;  // effective configuration of resource.spec
  OperatorConfig options;
  ResourceMemory* memory = nullptr;
  std::unique_ptr<flink::FlinkRestClient> rest;  // set while the JobManager is READY
  JobContext job;               // for job_observer.h; refreshed by the controller
  api::ReconciliationState state_at_start = api::ReconciliationState::kUpgrading;
  bool validation_failed = false;
  std::optional<Duration> requeue;  // an explicit reschedule wish of this pass (min wins)
  std::string failure_reason;       // event reason of an upgrade failure

  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }
  api::FlinkDeploymentStatus& status() { return resource.status; }
  bool application() const { return resource.spec.job.has_value(); }
  void RequeueWithin(Duration d) { requeue = requeue ? std::min(*requeue, d) : d; }

  std::string ns_;
  std::string name_;
};

// An upgrade failure: the message goes to status.error and a Warning event with `reason`.
inline Status UpgradeFailure(DeploymentPass& p, std::string reason, std::string message) {
  p.failure_reason = std::move(reason);
  return FailedPreconditionError(std::move(message));
}

// A wait (the previous cluster is still terminating, a cancellation in progress): not an error,
// the pass ends and comes back after the progress-check interval.
inline constexpr char kWaitingMarker[] = "waiting: ";
inline Status Waiting(DeploymentPass& p, const std::string& what) {
  p.RequeueWithin(p.options.progress_check_interval);
  return UnavailableError(std::string(kWaitingMarker) + what);
}
inline bool IsWaiting(const Status& s) {
  return s.code() == StatusCode::kUnavailable && s.message().starts_with(kWaitingMarker);
}

}  // namespace trimtab::op
