// DefaultScheduler: kube-scheduler's default profile reduced to what the local cluster needs.
// Serves spec.schedulerName "default-scheduler" and "". For each pending pod in turn (the loop's
// order: priority, then age) it filters every node with CheckNodeFit (node_fit.h), scores the
// feasible ones by LeastAllocated and picks the best (ties: the first by name); the pod is then
// accounted on that node before the next pod is considered. A pod that fits nowhere gets
// FitErrorMessage's text ("0/4 nodes are available: 4 Insufficient cpu.").
//
// No preemption, no inter-pod affinity / topology spread, no volumes or ports checks.
//
// Thread-safety: Schedule is called from the scheduling loop only; the object is stateless.
#pragma once

#include "cluster/runtime/scheduler.h"

namespace trimtab::cluster::runtime {

class DefaultScheduler final : public Scheduler {
 public:
  static constexpr std::string_view kName = "default-scheduler";

  std::string_view name() const override { return kName; }
  bool Serves(std::string_view scheduler_name) const override {
    return scheduler_name.empty() || scheduler_name == kName;
  }
  SchedulingDecision Schedule(const ClusterSnapshot& snapshot,
                              const std::vector<kube::ObjectPtr>& pending) override;
};

}  // namespace trimtab::cluster::runtime
