#include "operator/autoscaler/kube_event_handler.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

namespace trimtab::op {

void KubeAutoscalerEventHandler::Bind(const std::string& job_key,
                                      kube::EventObjectReference object) {
  std::lock_guard<std::mutex> lock(mu_);
  objects_[job_key] = std::move(object);
}

void KubeAutoscalerEventHandler::Unbind(const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  objects_.erase(job_key);
}

void KubeAutoscalerEventHandler::HandleEvent(const core::AutoscalerEvent& event,
                                             std::optional<Duration> dedup_interval) {
  kube::EventObjectReference object;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(event.job_key);
    if (it == objects_.end()) {
      ++failures_;
      spdlog::warn("autoscaler event {} for {}: no resource bound to the job key; dropped",
                   event.reason, event.job_key);
      return;
    }
    object = it->second;
  }
  StatusOr<Json> recorded = recorder_->Record(object,
                                              {.type = std::string(core::EventTypeName(event.type)),
                                               .reason = event.reason,
                                               .message = event.message,
                                               .key = event.message_key.value_or("")},
                                              dedup_interval);
  if (!recorded.ok()) {
    ++failures_;
    spdlog::warn("autoscaler event {} for {}: {}", event.reason, event.job_key,
                 recorded.status().ToString());
  }
}

}  // namespace trimtab::op
