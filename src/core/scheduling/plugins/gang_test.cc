// gang's job callbacks against minMember (B.2 of the notes): JobValid (enough valid pods),
// JobReady (ready >= minMember), JobPipelined (ready + pipelined >= minMember, Permit/Reject),
// JobStarving (ready + pipelined < minMember), for task states set one by one, plus its
// Preemptable filter (at most ready - minMember victims per job).
#include <gtest/gtest.h>

#include <vector>

#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

constexpr char kGangOnly[] = "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n";

TEST(GangPlugin, JobCallbacksFollowMinMember) {
  using S = TaskStatus;
  struct Case {
    const char* name;
    int min_member;
    std::vector<S> tasks;
    bool valid, ready, pipelined, starving;
  } cases[] = {
      {"all pending", 3, {S::kPending, S::kPending, S::kPending}, true, false, false, true},
      {"two of three allocated", 3, {S::kAllocated, S::kAllocated, S::kPending}, true, false, false, true},
      {"minMember reached", 2, {S::kRunning, S::kBound, S::kPending}, true, true, true, false},
      {"pipelined completes the gang", 3, {S::kRunning, S::kPipelined, S::kPipelined}, true, false, true, false},
      {"succeeded pods count as ready", 2, {S::kSucceeded, S::kRunning}, true, true, true, false},
      {"failed pods are not valid", 3, {S::kRunning, S::kFailed, S::kFailed}, false, false, false, true},
      {"too few pods at all", 4, {S::kPending, S::kPending}, false, false, false, true},
      {"releasing pods are not valid", 2, {S::kReleasing, S::kRunning}, false, false, false, true},
  };
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "16", "32Gi"));
    cluster.queues.push_back(TestQueue("default"));
    cluster.pod_groups.push_back(TestGroup("g", c.min_member));
    for (size_t i = 0; i < c.tasks.size(); ++i) {
      cluster.pods.push_back(TestPod("g-" + std::to_string(i), "g", "1"));
    }
    auto s = TestSession::Open(cluster, kGangOnly);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    for (size_t i = 0; i < c.tasks.size(); ++i) {
      TaskInfo& t = ssn.tasks()[(*s)->Task("g-" + std::to_string(i))];
      ssn.UpdateTaskStatus(t, c.tasks[i]);
    }
    const JobInfo& job = ssn.jobs()[0];
    EXPECT_EQ(ssn.JobValid(job).pass, c.valid) << c.name << ": " << ssn.JobValid(job).message;
    EXPECT_EQ(ssn.JobReady(job), c.ready) << c.name;
    EXPECT_EQ(ssn.JobPipelined(job), c.pipelined) << c.name;
    EXPECT_EQ(ssn.JobStarving(job), c.starving) << c.name;
  }
}

TEST(GangPlugin, PreemptableTakesOnlyTheSurplus) {
  struct Case {
    int min_member, running;
    size_t want;
  } cases[] = {{2, 4, 2}, {4, 4, 0}, {1, 3, 2}, {3, 2, 0}};
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "16", "32Gi"));
    cluster.queues.push_back(TestQueue("default"));
    cluster.pod_groups.push_back(TestGroup("victim", c.min_member, "default", "Running"));
    cluster.pod_groups.push_back(TestGroup("p", 1));
    for (int i = 0; i < c.running; ++i) {
      cluster.pods.push_back(TestPod("victim-" + std::to_string(i), "victim", "1", "n1"));
    }
    cluster.pods.push_back(TestPod("p-0", "p", "1"));
    auto s = TestSession::Open(cluster, kGangOnly);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    std::vector<int> candidates;
    for (int i = 0; i < c.running; ++i) candidates.push_back((*s)->Task("victim-" + std::to_string(i)));
    const TaskInfo& preemptor = ssn.tasks()[(*s)->Task("p-0")];
    EXPECT_EQ(ssn.Preemptable(preemptor, candidates).size(), c.want)
        << "minMember " << c.min_member << ", running " << c.running;
    EXPECT_EQ(ssn.Reclaimable(preemptor, candidates).size(), c.want);
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
