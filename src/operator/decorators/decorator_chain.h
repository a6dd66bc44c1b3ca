// DecoratorChain: the pod decoration chain of one Flink cluster, built from its Flink
// configuration (docs/operator.md "Schedulers and PodGroups"):
//
//   kubernetes.scheduler-name               scheduler of every pod ("" / absent = the default
//                                           scheduler: nothing changes)
//   kubernetes.jobmanager.scheduler-name    JobManager pods; falls back to the global key
//   kubernetes.taskmanager.scheduler-name   TaskManager pods; falls back to the global key
//   kubernetes.scheduler.<name>.config      FLIP-250's per-scheduler option map
//                                           ("queue:q1,priorityClassName:high"), the
//                                           configuration of that scheduler's decorator
//   kubernetes.operator.scheduler.decorators  operator option: scheduler name -> decorator type
//                                           (Flink map syntax, default "volcano:volcano"; e.g.
//                                           "volcano:volcano,scheduler-plugins-scheduler:coscheduling")
//
// A run (1) sets spec.schedulerName of the JobManager and TaskManager pod templates, then
// (2) runs one decorator per distinct scheduler name of the cluster's pods that the decorator map
// names, in priority order (ties by name), each told which of the two pod kinds it serves.
// Scheduler names the map does not name get no decorator (no PodGroup); the caller reports them
// (undecorated_schedulers) as a Normal event.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(DecoratorChain chain, DecoratorChain::Create(registry, conf));
//   DecoratedCluster pods{.job_manager_pod_template = jm, .task_manager_pod_template = tm};
//   TRIMTAB_RETURN_IF_ERROR(chain.Run(context, &pods));
//
// Thread-safety: Run is const; a chain may serve concurrent runs.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/flink_spec.h"
#include "common/status.h"
#include "operator/decorators/decorator_registry.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op::decorators {

inline constexpr char kSchedulerNameKey[] = "kubernetes.scheduler-name";
inline constexpr char kJobManagerSchedulerNameKey[] = "kubernetes.jobmanager.scheduler-name";
inline constexpr char kTaskManagerSchedulerNameKey[] = "kubernetes.taskmanager.scheduler-name";
inline constexpr char kDecoratorsKey[] = "kubernetes.operator.scheduler.decorators";
inline constexpr char kDefaultDecorators[] = "volcano:volcano";

// "kubernetes.scheduler.<scheduler>.config".
std::string SchedulerConfigKey(std::string_view scheduler);

struct SchedulerSettings {
  std::string job_manager;   // "" = the default scheduler
  std::string task_manager;  // "" = the default scheduler
  std::map<std::string, std::string> decorators;  // scheduler name -> decorator type
};

// Reads the keys above. Errors name the key (a malformed decorator map).
StatusOr<SchedulerSettings> ReadSchedulerSettings(const api::FlinkConfiguration& conf);

class DecoratorChain {
 public:
  // Errors name the key and field: a malformed map, a decorator type the registry does not know,
  // a decorator configuration its factory rejects.
  static StatusOr<DecoratorChain> Create(const DecoratorRegistry& registry,
                                         const api::FlinkConfiguration& conf);

  DecoratorChain() = default;
  DecoratorChain(DecoratorChain&&) = default;
  DecoratorChain& operator=(DecoratorChain&&) = default;

  // Runs the chain. `context`'s scheduler fields are filled per decorator; the rest is as given.
  // REQUIRES: cluster != nullptr.
  Status Run(const DecoratorContext& context, DecoratedCluster* cluster) const;

  const SchedulerSettings& settings() const { return settings_; }
  // Scheduler names of this cluster's pods that no decorator serves, sorted.
  const std::vector<std::string>& undecorated_schedulers() const { return undecorated_; }
  // The Volcano queue of the TaskManagers' decorator, if it puts them in one.
  std::optional<std::string> TaskManagerVolcanoQueue() const;
  bool empty() const { return steps_.empty(); }
  // "volcano(100) for volcano [jobmanager, taskmanager]", or "(empty)".
  std::string Describe() const;

 private:
  struct Step {
    std::unique_ptr<StepDecorator> decorator;
    std::string scheduler;
  };
  SchedulerSettings settings_;
  std::vector<Step> steps_;
  std::vector<std::string> undecorated_;
};

}  // namespace trimtab::op::decorators
