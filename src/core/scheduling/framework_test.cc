// The tier and vote rules of framework.h with stand-in plugins whose callbacks return fixed
// answers: how JobReady/Allocatable/Preemptive (AND), Overused (OR), JobPipelined and
// JobEnqueueable (Reject / Permit per tier), JobStarving (first tier) and Preemptable /
// Reclaimable (victim sets per tier) combine, and that a switched-off plugin does not count.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {
namespace {

// What one stand-in plugin answers; unset answers register nothing.
struct Answers {
  std::optional<bool> ready, starving, overused, allocatable;
  std::optional<int> pipelined;
  std::optional<std::pair<std::vector<int>, int>> victims;  // Preemptable and Reclaimable
};

class StandIn final : public Plugin {
 public:
  StandIn(std::string name, Answers a) : name_(std::move(name)), a_(std::move(a)) {}
  std::string_view name() const override { return name_; }
  void OnSessionOpen(Session& ssn) override {
    const Answers a = a_;
    if (a.ready) ssn.AddJobReadyFn(name_, [a](const JobInfo&) { return *a.ready; });
    if (a.starving) ssn.AddJobStarvingFn(name_, [a](const JobInfo&) { return *a.starving; });
    if (a.overused) ssn.AddOverusedFn(name_, [a](const QueueInfo&) { return *a.overused; });
    if (a.allocatable) {
      auto fn = [a](const QueueInfo&, const TaskInfo&) { return *a.allocatable; };
      ssn.AddAllocatableFn(name_, fn);
      ssn.AddPreemptiveFn(name_, fn);
    }
    if (a.pipelined) {
      auto fn = [a](const JobInfo&) { return *a.pipelined; };
      ssn.AddJobPipelinedFn(name_, fn);
      ssn.AddJobEnqueueableFn(name_, fn);
    }
    if (a.victims) {
      auto fn = [a](const TaskInfo&, const std::vector<int>&) { return *a.victims; };
      ssn.AddPreemptableFn(name_, fn);
      ssn.AddReclaimableFn(name_, fn);
    }
  }

 private:
  std::string name_;
  Answers a_;
};

struct Verdicts {
  bool ready, starving, overused, allocatable, preemptive, pipelined, enqueueable;
  std::vector<int> preemptable, reclaimable;
};

// tiers[t] lists (plugin name, answers); `off` names plugins whose every switch is false.
Verdicts Combine(const std::vector<std::vector<std::pair<std::string, Answers>>>& tiers,
             const std::vector<std::string>& off = {}) {
  SchedulerConfig config;
  config.actions = {"allocate"};
  std::vector<std::unique_ptr<Plugin>> plugins;
  for (const auto& tier : tiers) {
    Tier t;
    for (const auto& [name, answers] : tier) {
      PluginOption p;
      p.name = name;
      if (std::find(off.begin(), off.end(), name) != off.end()) {
        p.enable_job_ready = p.enable_job_starving = p.enable_overused = false;
        p.enable_allocatable = p.enable_preemptive = p.enable_job_pipelined = false;
        p.enable_job_enqueued = p.enable_preemptable = p.enable_reclaimable = false;
      }
      t.plugins.push_back(p);
      plugins.push_back(std::make_unique<StandIn>(name, answers));
    }
    config.tiers.push_back(t);
  }
  Session ssn(config, SessionOptions{}, Snapshot{});
  EXPECT_TRUE(ssn.OpenPlugins(plugins).ok());
  JobInfo job;
  QueueInfo queue;
  TaskInfo task;
  const std::vector<int> candidates = {1, 2, 3, 4};
  return {ssn.JobReady(job),          ssn.JobStarving(job),
          ssn.Overused(queue),        ssn.Allocatable(queue, task),
          ssn.Preemptive(queue, task), ssn.JobPipelined(job),
          ssn.JobEnqueueable(job),    ssn.Preemptable(task, candidates),
          ssn.Reclaimable(task, candidates)};
}

Answers Bools(bool v) {
  Answers a;
  a.ready = a.starving = a.overused = a.allocatable = v;
  return a;
}
Answers Vote(int v) {
  Answers a;
  a.pipelined = v;
  return a;
}
Answers Victims(std::vector<int> v, int vote = kPermit) {
  Answers a;
  a.victims = std::make_pair(std::move(v), vote);
  return a;
}

TEST(FrameworkVotes, BooleanPoints) {
  struct Case {
    const char* name;
    std::vector<std::vector<std::pair<std::string, Answers>>> tiers;
    std::vector<std::string> off;
    bool ready, starving, overused, allocatable;
  } cases[] = {
      {"no plugin", {}, {}, true, false, false, true},
      {"all true", {{{"a", Bools(true)}, {"b", Bools(true)}}}, {}, true, true, true, true},
      {"one false in tier 1", {{{"a", Bools(true)}, {"b", Bools(false)}}}, {}, false, false, true, false},
      // JobStarving asks only the first tier that has a provider; the others AND/OR everything.
      {"false in tier 2", {{{"a", Bools(true)}}, {{"b", Bools(false)}}}, {}, false, true, true, false},
      {"switched off", {{{"a", Bools(true)}, {"b", Bools(false)}}}, {"b"}, true, true, true, true},
      {"only provider off", {{{"a", Bools(true)}}}, {"a"}, true, false, false, true},
  };
  for (const Case& c : cases) {
    const Verdicts v = Combine(c.tiers, c.off);
    EXPECT_EQ(v.ready, c.ready) << c.name;
    EXPECT_EQ(v.starving, c.starving) << c.name;
    EXPECT_EQ(v.overused, c.overused) << c.name;
    EXPECT_EQ(v.allocatable, c.allocatable) << c.name;
    EXPECT_EQ(v.preemptive, c.allocatable) << c.name;
  }
}

TEST(FrameworkVotes, PermitRejectPerTier) {
  struct Case {
    const char* name;
    std::vector<std::vector<std::pair<std::string, Answers>>> tiers;
    bool want;
  } cases[] = {
      {"nothing", {}, true},
      {"abstain only", {{{"a", Vote(kAbstain)}}}, true},
      {"permit", {{{"a", Vote(kPermit)}}}, true},
      {"reject", {{{"a", Vote(kReject)}}}, false},
      {"permit then reject in one tier", {{{"a", Vote(kPermit)}, {"b", Vote(kReject)}}}, false},
      {"tier with a permit is final", {{{"a", Vote(kPermit)}}, {{"b", Vote(kReject)}}}, true},
      {"abstaining tier 1 asks tier 2", {{{"a", Vote(kAbstain)}}, {{"b", Vote(kReject)}}}, false},
      {"reject in tier 1 wins", {{{"a", Vote(kReject)}}, {{"b", Vote(kPermit)}}}, false},
  };
  for (const Case& c : cases) {
    const Verdicts v = Combine(c.tiers);
    EXPECT_EQ(v.pipelined, c.want) << c.name;
    EXPECT_EQ(v.enqueueable, c.want) << c.name;
  }
}

TEST(FrameworkVotes, VictimSetsPerTier) {
  struct Case {
    const char* name;
    std::vector<std::vector<std::pair<std::string, Answers>>> tiers;
    std::vector<std::string> off;
    std::vector<int> want;
  } cases[] = {
      {"no plugin", {}, {}, {}},
      {"intersection within a tier",
       {{{"a", Victims({1, 2, 3})}, {"b", Victims({2, 3, 4})}}}, {}, {2, 3}},
      {"first tier with victims is final",
       {{{"a", Victims({1})}}, {{"b", Victims({2})}}}, {}, {1}},
      {"an empty answer ends the tier; the next tier decides",
       {{{"a", Victims({})}, {"b", Victims({1})}}, {{"c", Victims({3, 4})}}}, {}, {3, 4}},
      {"an empty intersection starts afresh with the next plugin (Volcano's nil set)",
       {{{"a", Victims({1})}, {"b", Victims({2})}, {"c", Victims({3, 4})}}}, {}, {3, 4}},
      {"abstaining plugins do not take part",
       {{{"a", Victims({9}, kAbstain)}, {"b", Victims({1, 2})}}}, {}, {1, 2}},
      {"a switched-off plugin does not take part",
       {{{"a", Victims({1})}, {"b", Victims({2})}}}, {"a"}, {2}},
      {"nothing anywhere", {{{"a", Victims({})}}, {{"b", Victims({})}}}, {}, {}},
  };
  for (const Case& c : cases) {
    const Verdicts v = Combine(c.tiers, c.off);
    EXPECT_EQ(v.preemptable, c.want) << c.name;
    EXPECT_EQ(v.reclaimable, c.want) << c.name;
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
