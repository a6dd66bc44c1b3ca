// The operator's Events: upstream's reasons and components (notes §B.11), and how the operator
// configures the one EventRecorder (adapters/kube/event_recorder.h) for FlinkDeployments,
// FlinkSessionJobs and FlinkStateSnapshots: Events named "<component>.<hash>" where the hash covers
// the message key (or reason + message), type, kind, name and uid, so a repeated event bumps
// `count` and `lastTimestamp` of the existing one instead of creating another; every event is
// logged; recording never fails the caller (API errors are logged and the event is dropped; a
// 403, a Role without `events`, is logged once per kube::kPermissionDeniedLogInterval with the
// number of events dropped meanwhile). The autoscaler's Events on the same resources use the
// same naming.
//
// Usage:
//   EventRecorder events(OperatorEventOptions(client, clock));
//   RecordEvent(&events, InvolvedObjectOf(object), EventType::kWarning,
//               reasons::kValidationError, msg);
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "adapters/kube/event_recorder.h"
#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "common/json.h"

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

using EventRecorder = kube::EventRecorder;
using InvolvedObject = kube::EventObjectReference;
inline InvolvedObject InvolvedObjectOf(const Json& object) {
  return kube::EventObjectReferenceOf(object);
}

inline const char* EventTypeName(EventType t) {
  return t == EventType::kWarning ? "Warning" : "Normal";
}

// The operator's recorder configuration (see above). `client` may be null (events are then only
// logged).
inline kube::EventRecorderOptions OperatorEventOptions(const kube::KubeClient* client,
                                                       const Clock* clock,
                                                       std::string reporting_instance = "") {
  return {.client = client,
          .clock = clock,
          .component = components::kOperator,
          .reporting_component = "trimtab-operator",
          .reporting_instance = std::move(reporting_instance),
          .naming = kube::EventNaming::kComponentHash,
          .log_events = true};
}

// Posts an event about `object`. `message_key`, when not empty, replaces the message in the
// event's identity so that changing messages of one kind of event update one Event.
inline void RecordEvent(EventRecorder* events, const InvolvedObject& object, EventType type,
                        std::string_view reason, std::string_view message,
                        std::string_view component = components::kOperator,
                        std::string_view message_key = "") {
  events->Post(object, {.type = EventTypeName(type),
                        .reason = std::string(reason),
                        .message = std::string(message),
                        .key = std::string(message_key),
                        .component = std::string(component)});
}

}  // namespace trimtab::op
