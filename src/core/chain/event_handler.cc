#include "core/chain/event_handler.h"

namespace trimtab::core {

std::string_view EventTypeName(EventType t) {
  return t == EventType::kWarning ? "Warning" : "Normal";
}

std::string EventDeduplicator::KeyOf(const AutoscalerEvent& event) {
  // Length-prefixed parts so that no two different tuples give the same key.
  std::string key;
  auto add = [&key](std::string_view part) {
    key += std::to_string(part.size());
    key += ':';
    key += part;
  };
  add(event.job_key);
  add(EventTypeName(event.type));
  add(event.reason);
  add(event.message_key ? *event.message_key : event.message);
  return key;
}

bool EventDeduplicator::IsRepeat(const AutoscalerEvent& event, TimePoint now,
                                 std::optional<Duration> interval) {
  if (!interval) return false;
  std::string key = KeyOf(event);
  auto it = last_seen_.find(key);
  bool repeat = it != last_seen_.end() && now - it->second < *interval;
  last_seen_[key] = now;
  return repeat;
}

void InMemoryEventHandler::HandleEvent(const AutoscalerEvent& event,
                                       std::optional<Duration> dedup_interval) {
  TimePoint now = clock_->Now();
  std::lock_guard<std::mutex> lock(mu_);
  if (dedup_.IsRepeat(event, now, dedup_interval)) {
    std::string key = EventDeduplicator::KeyOf(event);
    for (auto it = events_.rbegin(); it != events_.rend(); ++it) {
      if (EventDeduplicator::KeyOf(it->event) == key) {
        it->event.message = event.message;
        ++it->count;
        it->last_time = now;
        return;
      }
    }
  }
  events_.push_back(RecordedEvent{.event = event, .count = 1, .first_time = now, .last_time = now});
}

std::vector<RecordedEvent> InMemoryEventHandler::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::vector<RecordedEvent> InMemoryEventHandler::EventsWithReason(std::string_view reason) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RecordedEvent> out;
  for (const RecordedEvent& e : events_) {
    if (e.event.reason == reason) out.push_back(e);
  }
  return out;
}

}  // namespace trimtab::core
