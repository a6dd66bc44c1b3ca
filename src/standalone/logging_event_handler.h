// LoggingEventHandler: the standalone autoscaler's AutoscalerEventHandler (upstream's LOGGING
// event handler): every event becomes one log line, "event <job key> <type> <reason>: <message>"
// (Warning events at warning level), repeats within the dedup interval are counted and not
// logged again (core/chain/event_handler.h's rule).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <mutex>

#include "common/clock.h"
#include "core/chain/event_handler.h"

namespace trimtab::standalone {

class LoggingEventHandler final : public core::AutoscalerEventHandler {
 public:
  // `clock` must outlive the handler.
  explicit LoggingEventHandler(const Clock* clock) : clock_(clock) {}
  void HandleEvent(const core::AutoscalerEvent& event,
                   std::optional<Duration> dedup_interval) override;

 private:
  const Clock* clock_;
  std::mutex mu_;
  core::EventDeduplicator dedup_;  // guarded by mu_
};

}  // namespace trimtab::standalone
