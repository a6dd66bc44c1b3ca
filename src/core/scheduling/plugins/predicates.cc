// predicates: the node filters the local cluster can check, in Volcano's order: the node's pod
// count (allocatable pods), then kube-scheduler's NodeUnschedulable, NodeAffinity (node
// selector and required node affinity) and TaintToleration, each of which ends the check at its
// first failure ("unresolvable": preemption cannot help). Arguments predicate.NodeAffinityEnable
// and predicate.TaintTolerationEnable switch those two off; Volcano's other predicate arguments
// (ports, volumes, pod affinity, topology spread, DRA, GPU sharing) are accepted and ignored,
// because the local cluster has none of those objects.
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

class PredicatesPlugin final : public Plugin {
 public:
  PredicatesPlugin(bool affinity, bool taints) : affinity_(affinity), taints_(taints) {}
  std::string_view name() const override { return "predicates"; }

  void OnSessionOpen(Session& ssn) override {
    ssn.AddPredicateFn(name(), [this](const TaskInfo& task, const NodeInfo& node,
                                      NodeFitError* err) {
      bool fit = true;
      if (node.allocatable[kPods] <= node.pod_count) {
        err->reasons.push_back("node(s) pod number exceeded");
        fit = false;
      }
      const PodPlacement& p = *task.placement;
      if (node.facts.unschedulable && !p.ToleratesUnschedulable()) {
        return Unresolvable(err, "node(s) were unschedulable");
      }
      if (affinity_ && !p.MatchesNodeAffinity(node.facts)) {
        return Unresolvable(err, "node(s) didn't match Pod's node affinity/selector");
      }
      if (taints_ && !node.facts.taints.empty()) {
        if (const Taint* t = p.FirstUntoleratedTaint(node.facts)) {
          return Unresolvable(err, "node(s) had untolerated taint {" + t->key + ": " + t->value + "}");
        }
      }
      return fit;
    });
  }

 private:
  static bool Unresolvable(NodeFitError* err, std::string reason) {
    err->reasons.push_back(std::move(reason));
    err->unresolvable = true;
    return false;
  }
  bool affinity_, taints_;
};

}  // namespace

PluginPtr NewPredicatesPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  bool affinity = true, taints = true;
  TRIMTAB_RETURN_IF_ERROR(a.Bool("predicate.NodeAffinityEnable", &affinity));
  TRIMTAB_RETURN_IF_ERROR(a.Bool("predicate.TaintTolerationEnable", &taints));
  a.Accept({"predicate.NodePortsEnable", "predicate.PodAffinityEnable",
            "predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable",
            "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable",
            "predicate.DynamicResourceAllocationEnable", "predicate.CacheEnable",
            "predicate.GPUSharingEnable", "predicate.GPUNumberEnable", "predicate.VGPUEnable",
            "predicate.ProportionalEnable", "predicate.resources",
            "predicate.resources.nvidia.com/gpu.cpu", "predicate.resources.nvidia.com/gpu.memory"});
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new PredicatesPlugin(affinity, taints));
}

}  // namespace trimtab::core::scheduling
