// drf: dominant resource fairness between jobs. A job's share is the largest fraction of the
// cluster total it holds in any dimension (pods included); jobs with the lower share go first;
// a victim may be taken when the preemptor's share after placing its task stays below (or
// within 1e-6 of) the victim job's share after losing the victim. Hierarchical DRF
// (enableHierarchy) is not implemented: the config is rejected.
#include <cmath>
#include <map>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

constexpr double kShareDelta = 0.000001;

class DrfPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "drf"; }

  void OnSessionOpen(Session& ssn) override {
    total_ = ssn.total_resource();
    dims_.clear();
    for (int d = 0; d < ssn.names().size(); ++d) {
      if (total_[d] >= kMinResource) dims_.push_back(d);
    }
    allocated_.assign(ssn.jobs().size(), Resources());
    share_.assign(ssn.jobs().size(), 0.0);
    for (const JobInfo& job : ssn.jobs()) {
      allocated_[job.id] = job.allocated;
      share_[job.id] = Share(job.allocated);
    }
    ssn.AddPreemptableFn(name(), [this, &ssn](const TaskInfo& preemptor,
                                              const std::vector<int>& candidates) {
      std::vector<int> victims;
      if (preemptor.job < 0) return std::make_pair(victims, static_cast<int>(kPermit));
      Resources lalloc = allocated_[preemptor.job];
      lalloc.Add(preemptor.resreq);
      const double ls = Share(lalloc);
      std::map<int, Resources> allocations;
      for (int id : candidates) {
        const TaskInfo& t = ssn.tasks()[id];
        if (t.job < 0) continue;
        auto [it, fresh] = allocations.emplace(t.job, Resources());
        if (fresh) it->second = allocated_[t.job];
        it->second.Sub(t.resreq);
        const double rs = Share(it->second);
        if (ls < rs || std::fabs(ls - rs) <= kShareDelta) victims.push_back(id);
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    });
    ssn.AddJobOrderFn(name(), [this](const JobInfo& l, const JobInfo& r) {
      const double ls = share_[l.id], rs = share_[r.id];
      if (ls == rs) return 0;
      return ls < rs ? -1 : 1;
    });
    ssn.AddEventHandler({[this](const TaskInfo& t) { Update(t, +1); },
                         [this](const TaskInfo& t) { Update(t, -1); }});
  }

  double Share(const Resources& allocated) const {
    double res = 0;
    for (int d : dims_) {
      const double s = total_[d] == 0 ? (allocated[d] == 0 ? 0 : 1) : allocated[d] / total_[d];
      if (s > res) res = s;
    }
    return res;
  }

 private:
  void Update(const TaskInfo& t, int sign) {
    if (t.job < 0) return;
    if (sign > 0) {
      allocated_[t.job].Add(t.resreq);
    } else {
      allocated_[t.job].Sub(t.resreq);
    }
    share_[t.job] = Share(allocated_[t.job]);
  }

  Resources total_;
  std::vector<int> dims_;
  std::vector<Resources> allocated_;
  std::vector<double> share_;
};

}  // namespace

PluginPtr NewDrfPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new DrfPlugin());
}

}  // namespace trimtab::core::scheduling
