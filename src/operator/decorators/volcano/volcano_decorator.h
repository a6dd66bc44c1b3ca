// volcano: the cluster's pods form one Volcano PodGroup (scheduling.volcano.sh/v1beta1, notes
// gang-scheduling.md §A.1), created before the JobManager Deployment and owned by it.
//
//   PodGroup podgroup-<cluster-id>  pre-created; spec.minMember and spec.minResources as
//                                   gang_size.h sizes them, spec.queue, spec.priorityClassName
//   pods                            annotation scheduling.k8s.io/group-name: podgroup-<cluster-id>
//                                   on every pod template this scheduler serves (the operator's
//                                   chain has already set their schedulerName)
//   references                      the Queue (cluster-scoped) and the PriorityClass, so the
//                                   operator warns when one is missing
//
// Configuration: the map option kubernetes.scheduler.<scheduler-name>.config (all optional):
//   queue              the Volcano queue (default "default", Volcano's own default); a
//                      DNS-1123 subdomain
//   priorityClassName  the job's priority class
//   minMember          an upper bound for minMember (>= 1; default: every member)
//   preemptable        "true" / "false": annotation volcano.sh/preemptable on the PodGroup
//                      and the pods
// Example: kubernetes.scheduler.volcano.config: "queue:analytics,priorityClassName:high"
//
// Thread-safety: immutable after construction.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "operator/decorators/decorator_registry.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op::decorators {

inline constexpr char kVolcanoDecoratorType[] = "volcano";
inline constexpr int kVolcanoDecoratorPriority = 100;
inline constexpr char kVolcanoApiVersion[] = "scheduling.volcano.sh/v1beta1";
inline constexpr char kVolcanoGroupAnnotation[] = "scheduling.k8s.io/group-name";
inline constexpr char kVolcanoPreemptableAnnotation[] = "volcano.sh/preemptable";
// How long the group may wait before Volcano's sla plugin admits it past queue limits (a Go
// duration such as "120s"; only a scheduler configuration with the sla plugin reads it).
inline constexpr char kVolcanoSlaWaitingTimeAnnotation[] = "volcano.sh/sla-waiting-time";
inline constexpr char kVolcanoDefaultQueue[] = "default";

struct VolcanoOptions {
  std::string queue = kVolcanoDefaultQueue;
  std::string priority_class_name;          // "" = none
  std::optional<int64_t> min_member;        // cap; nullopt = every member
  std::optional<bool> preemptable;
  std::optional<int64_t> sla_waiting_seconds;  // volcano.sh/sla-waiting-time on the group
};

class VolcanoDecorator final : public StepDecorator {
 public:
  VolcanoDecorator(DecoratorIdentity identity, VolcanoOptions options)
      : StepDecorator(std::move(identity)), options_(std::move(options)) {}

  Status Decorate(const DecoratorContext& context, DecoratedCluster* cluster) const override;
  std::optional<std::string> VolcanoQueue() const override { return options_.queue; }

 private:
  VolcanoOptions options_;
};

// config.cc: typed options from the option map (unknown fields rejected) and registration.
StatusOr<VolcanoOptions> ParseVolcanoOptions(const Json& config, const std::string& path);
Status RegisterVolcanoDecorator(DecoratorRegistry& registry);

}  // namespace trimtab::op::decorators
