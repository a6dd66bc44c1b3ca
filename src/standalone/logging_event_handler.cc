#include "standalone/logging_event_handler.h"

#include <spdlog/spdlog.h>

namespace trimtab::standalone {

void LoggingEventHandler::HandleEvent(const core::AutoscalerEvent& event,
                                      std::optional<Duration> dedup_interval) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (dedup_.IsRepeat(event, clock_->Now(), dedup_interval)) return;
  }
  const auto level =
      event.type == core::EventType::kWarning ? spdlog::level::warn : spdlog::level::info;
  spdlog::log(level, "event {} {} {}: {}", event.job_key, core::EventTypeName(event.type),
              event.reason, event.message);
}

}  // namespace trimtab::standalone
