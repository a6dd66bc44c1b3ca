#include "cluster/runtime/default_scheduler.h"

#include <nlohmann/json.hpp>

#include "cluster/runtime/node_fit.h"
#include "cluster/runtime/object_util.h"

namespace trimtab::cluster::runtime {

SchedulingDecision DefaultScheduler::Schedule(const ClusterSnapshot& snapshot,
                                              const std::vector<kube::ObjectPtr>& pending) {
  SchedulingDecision decision;
  ClusterSnapshot state = snapshot;
  for (const kube::ObjectPtr& shared : pending) {
    const Json& pod = *shared;
    std::map<std::string, std::vector<std::string>> reasons;
    const NodeInfo* best = nullptr;
    int64_t best_score = -1;
    for (const NodeInfo& node : state.nodes()) {
      std::vector<std::string> why = CheckNodeFit(pod, node);
      if (!why.empty()) {
        reasons[node.name] = std::move(why);
        continue;
      }
      int64_t score = LeastAllocatedScore(pod, node);
      if (score > best_score) {
        best = &node;
        best_score = score;
      }
    }
    const std::string ns = Str(pod, {"metadata", "namespace"});
    const std::string name = Str(pod, {"metadata", "name"});
    const std::string uid = Str(pod, {"metadata", "uid"});
    if (!best) {
      decision.unschedulable.push_back(PodUnschedulableDecision{
          .ns = ns,
          .name = name,
          .uid = uid,
          .message = FitErrorMessage(state.nodes().size(), reasons)});
      continue;
    }
    std::string node_name = best->name;
    state.Assume(shared, node_name);
    decision.bindings.push_back(
        PodBindingDecision{.ns = ns, .name = name, .uid = uid, .node = std::move(node_name)});
  }
  return decision;
}

}  // namespace trimtab::cluster::runtime
