// EventRecorder: Kubernetes v1 Events on FlinkDeployments / FlinkSessionJobs with upstream's
// reasons and naming (notes §B.11): the event is named "<component>.<hash>" where the hash covers
// the message key (or reason + message), type, kind, name and uid, so a repeated event bumps
// `count` and `lastTimestamp` of the existing one instead of creating another.
//
// Recording never fails the caller: API errors are logged and the event is dropped. A 403 (the
// operator may not write events: a Role without `events`) is logged too, as one warning per
// kPermissionDeniedLogInterval with the number of events dropped meanwhile, so a missing verb
// shows up in the log without flooding it.
//
// Usage:
//   events.Record(InvolvedObjectOf(object), EventType::kWarning, reasons::kValidationError, msg);
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

#include "adapters/kube/kube_client.h"
#include "common/clock.h"

namespace trimtab::op {

enum class EventType { kNormal, kWarning };

// Upstream EventRecorder.Reason values (and the free-form reasons it also uses).
namespace reasons {
inline constexpr char kSuspended[] = "Suspended";
inline constexpr char kSpecChanged[] = "SpecChanged";
inline constexpr char kRollback[] = "Rollback";
inline constexpr char kSubmit[] = "Submit";
inline constexpr char kJobStatusChanged[] = "JobStatusChanged";
inline constexpr char kSavepointError[] = "SavepointError";
// Normal: a savepoint the operator triggered completed (trimtab; upstream records a
// FlinkStateSnapshot instead).
inline constexpr char kSavepointCompleted[] = "SavepointCompleted";
inline constexpr char kCheckpointError[] = "CheckpointError";
inline constexpr char kCleanup[] = "Cleanup";
inline constexpr char kCleanupFailed[] = "CleanupFailed";
inline constexpr char kMissing[] = "Missing";
inline constexpr char kValidationError[] = "ValidationError";
inline constexpr char kRecoverDeployment[] = "RecoverDeployment";
inline constexpr char kScaling[] = "Scaling";
inline constexpr char kAutoscalerError[] = "AutoscalerError";
inline constexpr char kUnsupportedFlinkVersion[] = "UnsupportedFlinkVersion";
inline constexpr char kJobException[] = "JobException";
inline constexpr char kError[] = "Error";
inline constexpr char kUpgradeFailed[] = "UpgradeFailed";
inline constexpr char kCheckpointNotFound[] = "CheckpointNotFound";
// trimtab: one summary per autoscaler decision that changed parallelism overrides.
inline constexpr char kScalingDecision[] = "ScalingDecision";
// FlinkStateSnapshot: a savepoint not disposed on deletion; a snapshot whose job went away.
inline constexpr char kSnapshotError[] = "SnapshotError";
inline constexpr char kSnapshotAbandoned[] = "SnapshotAbandoned";
// trimtab: gang scheduling (docs/operator.md "Schedulers and PodGroups").
inline constexpr char kNoPodGroup[] = "NoPodGroup";  // Normal: a scheduler name has no decorator
inline constexpr char kSchedulingReferenceMissing[] = "SchedulingReferenceMissing";  // Warning
}  // namespace reasons

// Upstream EventRecorder.Component values (event source.component).
namespace components {
inline constexpr char kOperator[] = "Operator";
inline constexpr char kJobManagerDeployment[] = "JobManagerDeployment";
inline constexpr char kJob[] = "Job";
inline constexpr char kSnapshot[] = "Snapshot";
}  // namespace components

struct InvolvedObject {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_name;
  std::string uid;
  std::string resource_version;
};
InvolvedObject InvolvedObjectOf(const Json& object);

class EventRecorder {
 public:
  // `client` may be null (events are then only counted).
  EventRecorder(const kube::KubeClient* client, Clock* clock,
                std::string reporting_component = "trimtab-operator");

  // `message_key`, when not empty, replaces the message in the event's identity so that changing
  // messages of one kind of event update one Event.
  void Record(const InvolvedObject& object, EventType type, std::string_view reason,
              std::string_view message, std::string_view component = components::kOperator,
              std::string_view message_key = "");

  int64_t RecordedCountForTest() const { return recorded_.load(); }

  // "<component in lower case>.<31-bit Java String.hashCode of the identity>".
  static std::string EventName(const InvolvedObject& object, EventType type,
                               std::string_view reason, std::string_view message,
                               std::string_view component, std::string_view message_key);

 private:
  const kube::KubeClient* client_;
  Clock* clock_;
  std::string reporting_component_;
  std::atomic<int64_t> recorded_{0};
  // PermissionDenied drops: the last time one was logged and how many were not logged since.
  std::atomic<int64_t> denied_logged_ms_{-1};
  std::atomic<int64_t> denied_unlogged_{0};
};

// Minimum time between two warnings about events the API server refused with 403.
inline constexpr std::chrono::minutes kPermissionDeniedLogInterval{1};

}  // namespace trimtab::op
