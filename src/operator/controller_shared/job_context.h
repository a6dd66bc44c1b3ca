// JobContext: what the job-level observers and snapshot logic (job_observer.h) need to know
// about the resource being reconciled, shared by the FlinkDeployment (application) and the
// FlinkSessionJob controllers. Built once per pass by the controller.
//
// Thread-safety: used by one reconcile pass at a time.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "adapters/flink/rest_client.h"
#include "api/flink_resources.h"
#include "common/clock.h"
#include "operator/controller_shared/events.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {

// What the controller remembers about a resource between passes (in memory; lost on restart,
// which only means an extra event or an earlier periodic snapshot).
struct ResourceMemory {
  std::optional<TimePoint> last_periodic_savepoint;
  std::optional<TimePoint> last_periodic_checkpoint;
  int64_t last_exception_timestamp = 0;
  int64_t spec_changed_event_generation = -1;
  std::optional<TimePoint> cleanup_started;
  std::optional<TimePoint> cluster_deletion_started;
  std::string last_validation_error;
};

struct JobContext {
  api::ObjectMeta meta;
  InvolvedObject involved;
  bool session_job = false;
  api::CommonStatus* status = nullptr;
  // The job of the spec being reconciled (after validation fallback / autoscaler overrides).
  const api::JobSpec* job = nullptr;
  std::optional<api::FlinkVersion> flink_version;
  // Effective configuration of the spec being reconciled (for savepoint dir, formats).
  api::FlinkConfiguration config;
  OperatorConfig options;
  // Set when the cluster's REST API is usable (JobManager READY).
  const flink::FlinkRestClient* rest = nullptr;
  Clock* clock = nullptr;
  EventRecorder* events = nullptr;
  ResourceMemory* memory = nullptr;
  // Set by the observer when the REST API timed out (the JobManager is looked at again).
  bool rest_timed_out = false;
  // Set by the observer when the JobManager answered but does not know the job (a restarted
  // JobManager whose job was globally terminated, or a job that was never submitted).
  bool job_missing = false;

  TimePoint Now() const { return clock->Now(); }
  void Event(EventType type, std::string_view reason, std::string_view message,
             std::string_view component = components::kOperator,
             std::string_view message_key = "") const {
    RecordEvent(events, involved, type, reason, message, component, message_key);
  }
};

}  // namespace trimtab::op
