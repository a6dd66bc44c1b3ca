#include "standalone/rescale_api_realizer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

namespace trimtab::standalone {
namespace {

constexpr const char kSchedulerKey[] = "jobmanager.scheduler";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "{<vertex>: [1, 4], ...}" for the event message.
std::string Describe(const flink::ResourceRequirements& r) {
  std::string out = "{";
  for (const auto& [vertex, bounds] : r) {
    if (out.size() > 1) out += ", ";
    out += vertex + ": [" + std::to_string(bounds.lower) + ", " + std::to_string(bounds.upper) + "]";
  }
  return out + "}";
}

}  // namespace

void RescaleApiScalingRealizer::Bind(const std::string& job_key, RescaleTarget target) {
  std::lock_guard<std::mutex> lock(mu_);
  targets_[job_key] = std::move(target);
}

void RescaleApiScalingRealizer::Unbind(const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  targets_.erase(job_key);
  last_action_.erase(job_key);
  warned_config_.erase(job_key);
}

std::string RescaleApiScalingRealizer::LastAction(const std::string& job_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = last_action_.find(job_key);
  return it == last_action_.end() ? "" : it->second;
}

Status RescaleApiScalingRealizer::RealizeParallelismOverrides(
    const std::string& job_key, const core::ParallelismOverrides& overrides) {
  RescaleTarget target;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = targets_.find(job_key);
    if (it == targets_.end()) {
      return FailedPreconditionError("realize " + job_key + ": no job bound to the key");
    }
    target = it->second;
  }
  auto done = [&](std::string action) {
    std::lock_guard<std::mutex> lock(mu_);
    last_action_[job_key] = std::move(action);
    return Status::Ok();
  };
  if (overrides.empty()) return done("no overrides");
  auto scheduler = target.configuration.find(kSchedulerKey);
  if (scheduler == target.configuration.end() || Lower(scheduler->second) != "adaptive") {
    return FailedPreconditionError(
        "realize " + job_key + ": in-place rescaling needs the adaptive scheduler (" +
        kSchedulerKey + ": adaptive); the job runs with " +
        (scheduler == target.configuration.end() ? std::string("the default scheduler")
                                                 : "\"" + scheduler->second + "\""));
  }
  if (target.job_status != "RUNNING") {
    return FailedPreconditionError("realize " + job_key + ": a job in state " +
                                   target.job_status + " cannot be rescaled in place");
  }
  StatusOr<flink::ResourceRequirements> current =
      target.rest->GetResourceRequirements(target.job_id);
  if (!current.ok()) return current.status().WithContext("realize " + job_key);
  flink::ResourceRequirements next = *current;
  bool changed = false;
  for (auto& [vertex, bounds] : next) {
    auto o = overrides.find(vertex);
    if (o == overrides.end()) continue;
    const flink::ParallelismBounds wanted{1, o->second};
    if (!(bounds == wanted)) {
      bounds = wanted;
      changed = true;
    }
  }
  if (!changed) return done("requirements already match");
  if (Status put = target.rest->PutResourceRequirements(target.job_id, next); !put.ok()) {
    return put.WithContext("realize " + job_key);
  }
  const std::string message =
      "In-place scaling triggered, the new requirements is " + Describe(next) + ".";
  if (events_ != nullptr) {
    events_->HandleEvent({.job_key = job_key,
                          .type = core::EventType::kNormal,
                          .reason = "Scaling",
                          .message = message},
                         std::nullopt);
  }
  return done("in-place scaling triggered: " + Describe(next));
}

Status RescaleApiScalingRealizer::RealizeConfigOverrides(
    const std::string& job_key, const std::map<std::string, std::string>& overrides,
    const std::set<std::string>& /*removals*/) {
  if (overrides.empty()) return Status::Ok();
  std::string keys;
  for (const auto& [k, v] : overrides) keys += (keys.empty() ? "" : ", ") + k + "=" + v;
  std::lock_guard<std::mutex> lock(mu_);
  if (warned_config_[job_key] != keys) {
    warned_config_[job_key] = keys;
    spdlog::warn("autoscale {}: the Flink REST API cannot change the TaskManager configuration; "
                 "memory tuning's recommendation is not applied ({})",
                 job_key, keys);
  }
  return Status::Ok();
}

}  // namespace trimtab::standalone
