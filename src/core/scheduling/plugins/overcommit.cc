// overcommit: cluster-wide admission. idle = total x overcommit-factor - what the nodes use;
// a group with minResources is admitted while the minResources of the groups already admitted
// (Inqueue, and the unplaced part of Running ones) plus its own fit in idle on the dimensions
// it asks for. overcommit-factor defaults to 1.2; a value below 1.0 is replaced by 1.2.
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

constexpr double kDefaultFactor = 1.2;

class OvercommitPlugin final : public Plugin {
 public:
  explicit OvercommitPlugin(double factor) : factor_(factor) {}
  std::string_view name() const override { return "overcommit"; }

  void OnSessionOpen(Session& ssn) override {
    Resources used;
    for (const NodeInfo& n : ssn.nodes()) used.Add(n.used);
    idle_ = ssn.total_resource();
    idle_.Multi(factor_).Sub(used);
    inqueue_ = Resources();
    for (const JobInfo& job : ssn.jobs()) {
      if (!job.has_min_resources) continue;
      if (job.phase == PodGroupPhase::kInqueue) {
        inqueue_.Add(job.min_resources);
      } else if (ReservesMinResources(job)) {
        inqueue_.Add(InqueueResource(job, job.allocated));
      }
    }
    if (ssn.logging()) {
      ssn.Log("overcommit: factor " + std::to_string(factor_) + ", idle <" + ssn.Res(idle_) +
              "> (total x factor - used), inqueue <" + ssn.Res(inqueue_) + ">");
    }
    ssn.AddJobEnqueueableFn(name(), [this, &ssn](const JobInfo& job) {
      if (!job.has_min_resources) return static_cast<int>(kPermit);
      Resources r = inqueue_;
      r.Add(job.min_resources);
      std::vector<std::string> failed;
      if (r.LessEqualOnRequested(idle_, job.min_resources, ssn.names(), &failed)) {
        return static_cast<int>(kPermit);
      }
      std::string msg = "resource in cluster is overused";
      for (size_t i = 0; i < failed.size(); ++i) {
        msg += (i == 0 ? ": overused " : ", overused ") + failed[i];
      }
      ssn.jobs()[job.id].events.push_back({"Normal", "Unschedulable", msg});
      if (ssn.logging()) {
        ssn.Log("overcommit: " + job.key + " rejected: " + msg + " (inqueue <" + ssn.Res(inqueue_) +
                "> + minResources <" + ssn.Res(job.min_resources) + "> > idle <" +
                ssn.Res(idle_) + ">)");
      }
      return static_cast<int>(kReject);
    });
    ssn.AddJobEnqueuedFn(name(), [this](const JobInfo& job) {
      if (job.has_min_resources) inqueue_.Add(job.min_resources);
    });
  }

 private:
  double factor_;
  Resources idle_, inqueue_;
};

}  // namespace

PluginPtr NewOvercommitPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  double factor = kDefaultFactor;
  TRIMTAB_RETURN_IF_ERROR(a.Float("overcommit-factor", &factor));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  if (factor < 1.0) factor = kDefaultFactor;  // Volcano replaces it (with a warning)
  return std::unique_ptr<Plugin>(new OvercommitPlugin(factor));
}

}  // namespace trimtab::core::scheduling
