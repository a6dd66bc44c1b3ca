// priority: higher pod priority first among tasks, higher job priority first among jobs;
// victims of another job only from a job of strictly lower priority, of the same job only tasks
// of strictly lower task priority; a job starves while fewer than all its tasks are placed.
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

class PriorityPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "priority"; }

  void OnSessionOpen(Session& ssn) override {
    ssn.AddTaskOrderFn(name(), [](const TaskInfo& l, const TaskInfo& r) {
      if (l.priority == r.priority) return 0;
      return l.priority > r.priority ? -1 : 1;
    });
    ssn.AddJobOrderFn(name(), [](const JobInfo& l, const JobInfo& r) {
      if (l.priority == r.priority) return 0;
      return l.priority > r.priority ? -1 : 1;
    });
    ssn.AddPreemptableFn(name(), [&ssn](const TaskInfo& preemptor,
                                        const std::vector<int>& candidates) {
      std::vector<int> victims;
      if (preemptor.job < 0) return std::make_pair(victims, static_cast<int>(kPermit));
      const JobInfo& pj = ssn.jobs()[preemptor.job];
      for (int id : candidates) {
        const TaskInfo& t = ssn.tasks()[id];
        if (t.job < 0) continue;
        const JobInfo& vj = ssn.jobs()[t.job];
        if (vj.id != pj.id) {
          if (vj.priority < pj.priority) victims.push_back(id);
        } else if (t.priority < preemptor.priority) {
          victims.push_back(id);
        }
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    });
    ssn.AddUnifiedEvictableFn(name(), [&ssn](const EvictionContext& ctx,
                                             const std::vector<int>& candidates) {
      if (ctx.reclaim) return std::make_pair(candidates, static_cast<int>(kPermit));
      std::vector<int> victims;
      const int32_t preemptor_priority = ssn.jobs()[ctx.job].priority;
      for (int id : candidates) {
        const TaskInfo& t = ssn.tasks()[id];
        if (t.job >= 0 && ssn.jobs()[t.job].priority < preemptor_priority) victims.push_back(id);
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    });
    ssn.AddJobStarvingFn(name(), [](const JobInfo& job) {
      return job.ReadyTaskNum() + job.WaitingTaskNum() < static_cast<int>(job.tasks.size());
    });
  }
};

}  // namespace

PluginPtr NewPriorityPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new PriorityPlugin());
}

}  // namespace trimtab::core::scheduling
