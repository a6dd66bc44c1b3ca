// KubeAutoscalerEventHandler: the autoscaler's events (core/chain/event_handler.h) as Kubernetes
// Events on the FlinkDeployment / FlinkSessionJob (upstream KubernetesAutoScalerEventHandler,
// notes §C.12), written by kube::EventRecorder. The operator's recorder names them as it names
// its own Events ("<component>.<hash>" of type, reason, message key or message and the object),
// so a repeat bumps the existing Event's count whatever the interval; a recorder with client-go
// naming deduplicates within the interval instead.
//
// Events name a job key ("<namespace>/<name>"); Bind() tells the handler which object that is
// (the operator binds before each cycle, since it knows the resource's kind and uid).
//
// Usage:
//   KubeAutoscalerEventHandler events(&recorder);
//   events.Bind("ns/orders", {.api_version = "flink.apache.org/v1beta1",
//                             .kind = "FlinkDeployment", .namespace_name = "ns",
//                             .name = "orders", .uid = uid});
//   events.HandleEvent(event, std::chrono::minutes(30));
//
// Failures to write an Event are logged as warnings and counted (failures()); they never fail a
// cycle. Thread-safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "adapters/kube/event_recorder.h"
#include "core/chain/event_handler.h"

namespace trimtab::op {

class KubeAutoscalerEventHandler final : public core::AutoscalerEventHandler {
 public:
  // `recorder` must outlive the handler.
  explicit KubeAutoscalerEventHandler(const kube::EventRecorder* recorder) : recorder_(recorder) {}

  void Bind(const std::string& job_key, kube::EventObjectReference object);
  void Unbind(const std::string& job_key);

  void HandleEvent(const core::AutoscalerEvent& event,
                   std::optional<Duration> dedup_interval) override;

  int64_t failures() const { return failures_.load(); }

 private:
  const kube::EventRecorder* recorder_;
  std::mutex mu_;
  std::map<std::string, kube::EventObjectReference> objects_;  // guarded by mu_
  std::atomic<int64_t> failures_{0};
};

}  // namespace trimtab::op
