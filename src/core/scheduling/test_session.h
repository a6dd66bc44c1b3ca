// Test-only helpers for the plugin and action unit tests: small builders of cluster objects and
// an opened Session over them with the plugins of a given config, so a test can call one
// extension point (ssn.JobReady, ssn.Reclaimable, ssn.ScoreNodes ...) on a known snapshot.
//
// Usage:
//   TestCluster c;
//   c.nodes.push_back(TestNode("n1", "4", "8Gi"));
//   c.pod_groups.push_back(TestGroup("g", 2));
//   c.pods.push_back(TestPod("g-0", "g", "1"));
//   auto s = OpenTestSession(c, "{actions: allocate, tiers: [{plugins: [{name: gang}]}]}");
//   ASSERT_TRUE(s.ok()) << s.status().message();
//   EXPECT_FALSE((*s)->ssn().JobReady((*s)->ssn().jobs()[0]));
//
// Thread-safety: test code, one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/scheduling/framework.h"
#include "core/scheduling/plugin_registry.h"
#include "core/scheduling/scheduler_config.h"

namespace trimtab::core::scheduling {

using TestCluster = ClusterObjects;

inline Json TestNode(const std::string& name, const std::string& cpu, const std::string& mem) {
  return Json{{"metadata", {{"name", name}}},
              {"status", {{"allocatable", {{"cpu", cpu}, {"memory", mem}}}}}};
}

// A pod of group `group` requesting `cpu` (and `mem` when given); bound to `node` and Running
// when `node` is not empty.
inline Json TestPod(const std::string& name, const std::string& group, const std::string& cpu,
                    const std::string& node = "", const std::string& mem = "",
                    int priority = 0) {
  Json requests = Json::object();
  if (!cpu.empty()) requests["cpu"] = cpu;
  if (!mem.empty()) requests["memory"] = mem;
  Json pod = {{"metadata",
               {{"name", name}, {"annotations", {{"scheduling.k8s.io/group-name", group}}}}},
              {"spec",
               {{"schedulerName", "volcano"},
                {"priority", priority},
                {"containers", Json::array({{{"name", "c"},
                                             {"resources", {{"requests", requests}}}}})}}}};
  if (!node.empty()) {
    pod["spec"]["nodeName"] = node;
    pod["status"] = {{"phase", "Running"}};
  }
  return pod;
}

inline Json TestGroup(const std::string& name, int min_member, const std::string& queue = "default",
                      const std::string& phase = "Inqueue") {
  return Json{{"metadata", {{"name", name}}},
              {"spec", {{"minMember", min_member}, {"queue", queue}}},
              {"status", {{"phase", phase}}}};
}

inline Json TestQueue(const std::string& name, Json spec = Json::object()) {
  return Json{{"metadata", {{"name", name}}}, {"spec", std::move(spec)}};
}

// A session opened over `cluster` with the plugins of `config_yaml` (volcano-scheduler.conf
// text); the actions are not run.
class TestSession {
 public:
  Session& ssn() { return *ssn_; }
  const SchedulerConfig& config() const { return config_; }

  static StatusOr<std::unique_ptr<TestSession>> Open(const TestCluster& cluster,
                                                     const std::string& config_yaml) {
    auto s = std::unique_ptr<TestSession>(new TestSession());
    TRIMTAB_ASSIGN_OR_RETURN(s->config_, ParseSchedulerConfig(config_yaml, "config"));
    SessionOptions options;
    TRIMTAB_ASSIGN_OR_RETURN(Snapshot snap, BuildSnapshot(cluster, options));
    for (const Tier& tier : s->config_.tiers) {
      for (const PluginOption& p : tier.plugins) {
        TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<Plugin> plugin,
                                 BuiltinPlugins().Create(p.name, p.arguments, p.name));
        s->plugins_.push_back(std::move(plugin));
      }
    }
    s->ssn_ = std::make_unique<Session>(s->config_, options, std::move(snap));
    TRIMTAB_RETURN_IF_ERROR(s->ssn_->OpenPlugins(s->plugins_));
    return s;
  }

  // The id of the task or job named `name` (-1 when none).
  int Task(const std::string& name) {
    for (const TaskInfo& t : ssn_->tasks()) {
      if (t.ref.name == name) return t.id;
    }
    return -1;
  }
  int Job(const std::string& name) {
    for (const JobInfo& j : ssn_->jobs()) {
      if (j.name == name) return j.id;
    }
    return -1;
  }

 private:
  TestSession() = default;
  SchedulerConfig config_;
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::unique_ptr<Session> ssn_;
};

}  // namespace trimtab::core::scheduling
