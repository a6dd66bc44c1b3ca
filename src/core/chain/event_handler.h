// AutoscalerEventHandler: where the autoscaler reports what it did (upstream
// AutoScalerEventHandler, notes §C.12): structured events with a type, a reason from a small
// fixed set (kReason* below) and a message. The operator turns them into Kubernetes Events on the
// resource, the standalone autoscaler logs or stores them.
//
// Deduplication follows upstream: an event is identified by (job key, type, reason, message key
// or message); a repeat of the same event within the dedup interval does not create a new event
// but updates the existing one (message and count). No interval means every event is new.
// EventDeduplicator implements that rule once, for every handler.
//
// Thread-safety: InMemoryEventHandler is safe for concurrent use; EventDeduplicator is not.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"

namespace trimtab::core {

// Event reasons (upstream names).
inline constexpr const char kReasonScalingReport[] = "ScalingReport";
inline constexpr const char kReasonScalingVetoed[] = "ScalingVetoed";
inline constexpr const char kReasonIneffectiveScaling[] = "IneffectiveScaling";
inline constexpr const char kReasonScalingLimited[] = "ScalingLimited";
inline constexpr const char kReasonMemoryPressure[] = "MemoryPressure";
inline constexpr const char kReasonResourceQuotaReached[] = "ResourceQuotaReached";
inline constexpr const char kReasonAutoscalerError[] = "AutoscalerError";
// trimtab: a scaling the cluster could not schedule was reverted (issue 28).
inline constexpr const char kReasonScalingReverted[] = "ScalingReverted";

enum class EventType { kNormal, kWarning };
std::string_view EventTypeName(EventType t);  // "Normal" | "Warning"

struct AutoscalerEvent {
  std::string job_key;
  EventType type = EventType::kNormal;
  std::string reason;
  std::string message;
  // Identifies "the same event" instead of the message when set (e.g. a hash of the parallelism
  // changes, so that a report whose numbers moved slightly still counts as a repeat).
  std::optional<std::string> message_key;
};

// A stored event after deduplication.
struct RecordedEvent {
  AutoscalerEvent event;
  int count = 1;
  TimePoint first_time;
  TimePoint last_time;
};

class AutoscalerEventHandler {
 public:
  virtual ~AutoscalerEventHandler() = default;
  // Reports `event`. With `dedup_interval`, a repeat within the interval of the previous
  // occurrence updates that occurrence instead of creating a new one.
  virtual void HandleEvent(const AutoscalerEvent& event,
                           std::optional<Duration> dedup_interval) = 0;
};

// The deduplication rule shared by handlers.
class EventDeduplicator {
 public:
  // The identity of an event: job key, type, reason and message key (or message).
  static std::string KeyOf(const AutoscalerEvent& event);

  // Returns true when `event` at `now` repeats an event seen within `interval` (and records the
  // new time); false when it is new (and remembers it). Without an interval: always false.
  bool IsRepeat(const AutoscalerEvent& event, TimePoint now, std::optional<Duration> interval);

 private:
  std::map<std::string, TimePoint> last_seen_;
};

// Keeps events in memory: the standalone default next to logging, and the fake in tests.
class InMemoryEventHandler final : public AutoscalerEventHandler {
 public:
  // `clock` must outlive the handler.
  explicit InMemoryEventHandler(const Clock* clock) : clock_(clock) {}

  void HandleEvent(const AutoscalerEvent& event, std::optional<Duration> dedup_interval) override;

  // Recorded events in order of first occurrence.
  std::vector<RecordedEvent> Events() const;
  std::vector<RecordedEvent> EventsWithReason(std::string_view reason) const;

 private:
  const Clock* clock_;
  mutable std::mutex mu_;
  EventDeduplicator dedup_;             // guarded by mu_
  std::vector<RecordedEvent> events_;   // guarded by mu_
};

}  // namespace trimtab::core
