// gang: all-or-nothing. JobValid (enough pods), JobReady / JobPipelined / JobStarving against
// minMember, unready jobs ordered first, victims limited to a job's surplus over minMember, and
// at session close the Unschedulable / Scheduled condition of every job.
#include <map>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

class GangPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "gang"; }

  void OnSessionOpen(Session& ssn) override {
    const std::vector<TaskInfo>& tasks = ssn.tasks();
    ssn.AddJobValidFn(name(), [&tasks](const JobInfo& job) {
      ValidateResult r;
      if (!CheckTaskValid(job, tasks)) {
        return ValidateResult{false, "NotEnoughPodsOfTask",
                              "Not enough valid pods of each task for gang-scheduling"};
      }
      const int valid = job.ValidTaskNum();
      if (valid < job.min_available) {
        return ValidateResult{false, "NotEnoughTasks",
                              "Not enough valid tasks for gang-scheduling, valid: " +
                                  std::to_string(valid) +
                                  ", min: " + std::to_string(job.min_available)};
      }
      return r;
    });
    // Per victim job, at most (ready - minMember) of its tasks, in candidate order.
    auto surplus = [&ssn](const TaskInfo&, const std::vector<int>& candidates) {
      std::vector<int> victims;
      std::map<int, int> occupied;
      for (int id : candidates) {
        const TaskInfo& t = ssn.tasks()[id];
        if (t.job < 0) continue;
        const JobInfo& job = ssn.jobs()[t.job];
        auto [it, fresh] = occupied.emplace(job.id, 0);
        if (fresh) it->second = job.ReadyTaskNum();
        if (it->second > job.min_available) {
          it->second--;
          victims.push_back(id);
        }
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    };
    ssn.AddPreemptableFn(name(), surplus);
    ssn.AddReclaimableFn(name(), surplus);
    ssn.AddUnifiedEvictableFn(name(), [](const EvictionContext&, const std::vector<int>& candidates) {
      return std::make_pair(candidates, static_cast<int>(kPermit));
    });
    ssn.AddJobOrderFn(name(), [](const JobInfo& l, const JobInfo& r) {
      const bool lr = l.IsReady(), rr = r.IsReady();
      if (lr == rr) return 0;
      return lr ? 1 : -1;
    });
    ssn.AddJobReadyFn(name(), [&tasks](const JobInfo& job) {
      return CheckTaskReady(job, tasks) && job.IsReady();
    });
    ssn.AddJobPipelinedFn(name(), [&tasks](const JobInfo& job) {
      return CheckTaskPipelined(job, tasks) && job.IsPipelined() ? kPermit : kReject;
    });
    ssn.AddJobStarvingFn(name(), [](const JobInfo& job) { return job.IsStarving(); });
  }

  void OnSessionClose(Session& ssn) override {
    const std::string now_text = ssn.NowRfc3339();
    for (JobInfo& job : ssn.jobs()) {
      if (job.tasks.empty()) continue;
      Condition c;
      c.status = "True";
      c.transition_id = ssn.uid();
      c.last_transition_time = now_text;
      if (!job.IsReady()) {
        if (SkipForReleasing(job, ssn.tasks())) continue;
        int schedulable = job.ReadyTaskNum();
        for (int id : job.tasks) {
          const TaskInfo& t = ssn.tasks()[id];
          if (t.status != TaskStatus::kPending) continue;
          TaskStatus s = t.has_last_tx ? t.last_tx_status : t.status;
          if (AllocatedStatus(s)) ++schedulable;
        }
        const int unready = job.min_available - schedulable;
        c.type = "Unschedulable";
        c.reason = "NotEnoughResources";
        c.message = std::to_string(unready) + "/" + std::to_string(job.tasks.size()) +
                    " tasks in gang unschedulable: " +
                    JobFitError(job, ssn.tasks(), ssn.node_names());
        if (ssn.logging()) ssn.Log("gang: " + job.key + ": " + c.message);
      } else {
        c.type = "Scheduled";
        c.reason = "tasks in gang are ready to be scheduled";
      }
      SetCondition(&job, std::move(c));
    }
  }

 private:
  // shouldSkipUnschedulableForReleasing: short only because scheduled pods are terminating.
  static bool SkipForReleasing(const JobInfo& job, const std::vector<TaskInfo>& tasks) {
    int releasing_scheduled = 0;
    for (int id : job.tasks) {
      if (tasks[id].status == TaskStatus::kReleasing && tasks[id].node >= 0) ++releasing_scheduled;
    }
    if (releasing_scheduled == 0) return false;
    if (job.Count(TaskStatus::kPending) > 0 || job.Count(TaskStatus::kPipelined) > 0) return false;
    return job.ScheduledTaskNum() + releasing_scheduled >= job.min_available;
  }

  static void SetCondition(JobInfo* job, Condition c) {
    for (Condition& existing : job->conditions) {
      if (existing.type == c.type) {
        existing = std::move(c);
        return;
      }
    }
    job->conditions.push_back(std::move(c));
  }
};

}  // namespace

PluginPtr NewGangPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new GangPlugin());
}

}  // namespace trimtab::core::scheduling
