// coscheduling: the cluster's pods form one PodGroup of the scheduler-plugins coscheduling
// plugin (scheduling.x-k8s.io/v1alpha1, notes gang-scheduling.md §C), created before the
// JobManager Deployment and owned by it.
//
//   PodGroup podgroup-<cluster-id>  pre-created; spec.minMember and spec.minResources as
//                                   gang_size.h sizes them (coscheduling's PreFilter, like
//                                   Volcano's gang plugin, rejects a group with fewer pods than
//                                   minMember), spec.scheduleTimeoutSeconds when configured
//   pods                            LABEL scheduling.x-k8s.io/pod-group: podgroup-<cluster-id>
//                                   on every pod template this scheduler serves
//
// Configuration: kubernetes.scheduler.<scheduler-name>.config (all optional):
//   minMember               an upper bound for minMember (>= 1; default: every member)
//   scheduleTimeoutSeconds  how long placed pods wait for their siblings (>= 1)
// The plugin has no queues or group priority: `queue` and `priorityClassName` are unknown fields.
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

inline constexpr char kCoschedulingDecoratorType[] = "coscheduling";
inline constexpr int kCoschedulingDecoratorPriority = 100;
inline constexpr char kCoschedulingApiVersion[] = "scheduling.x-k8s.io/v1alpha1";
inline constexpr char kCoschedulingGroupLabel[] = "scheduling.x-k8s.io/pod-group";

struct CoschedulingOptions {
  std::optional<int64_t> min_member;                // cap; nullopt = every member
  std::optional<int64_t> schedule_timeout_seconds;  // nullopt = the plugin's default
};

class CoschedulingDecorator final : public StepDecorator {
 public:
  CoschedulingDecorator(DecoratorIdentity identity, CoschedulingOptions options)
      : StepDecorator(std::move(identity)), options_(options) {}

  Status Decorate(const DecoratorContext& context, DecoratedCluster* cluster) const override;

 private:
  CoschedulingOptions options_;
};

StatusOr<CoschedulingOptions> ParseCoschedulingOptions(const Json& config, const std::string& path);
Status RegisterCoschedulingDecorator(DecoratorRegistry& registry);

}  // namespace trimtab::op::decorators
