#include "cluster/volcano/session_adapter.h"

#include <map>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"

namespace trimtab::cluster::volcano {

using core::scheduling::Condition;
using core::scheduling::PodGroupOutcome;
using core::scheduling::QueueOutcome;
using runtime::At;
using runtime::Str;

namespace {

Json ConditionJson(const Condition& c) {
  Json out = {{"type", c.type}, {"status", c.status}};
  if (!c.reason.empty()) out["reason"] = c.reason;
  if (!c.message.empty()) out["message"] = c.message;
  if (!c.transition_id.empty()) out["transitionID"] = c.transition_id;
  if (!c.last_transition_time.empty()) out["lastTransitionTime"] = c.last_transition_time;
  return out;
}

// A status without what changes every session: the conditions' lastTransitionTime and
// transitionID (Volcano's job updater ignores them when deciding to write).
Json WithoutStamps(Json status) {
  if (!status.is_object()) return Json::object();
  if (status.contains("conditions") && status["conditions"].is_array()) {
    for (Json& c : status["conditions"]) {
      if (!c.is_object()) continue;
      c.erase("lastTransitionTime");
      c.erase("transitionID");
    }
  }
  for (const char* count : {"running", "succeeded", "failed"}) {
    if (status.contains(count) && status[count] == 0) status.erase(count);
  }
  if (status.contains("conditions") && status["conditions"].empty()) status.erase("conditions");
  return status;
}

}  // namespace

SessionInput BuildSessionInput(const runtime::ClusterSnapshot& snapshot,
                               const std::vector<kube::ObjectPtr>& pods,
                               const std::vector<kube::ObjectPtr>& pod_groups,
                               const std::vector<kube::ObjectPtr>& queues,
                               const std::vector<kube::ObjectPtr>& priority_classes) {
  SessionInput in;
  in.held.reserve(snapshot.nodes().size() + pods.size() + pod_groups.size() + queues.size() +
                  priority_classes.size());
  // Pod uid -> node of the pods the snapshot accounts on a node their object does not name yet
  // (assumed by the loop).
  std::map<std::string, std::string, std::less<>> placed;
  for (const runtime::NodeInfo& node : snapshot.nodes()) {
    in.held.push_back(node.node);
    in.refs.nodes.push_back(node.node.get());
    for (const kube::ObjectPtr& pod : node.pods) {
      if (At(*pod, {"spec", "nodeName"}).is_string() &&
          !At(*pod, {"spec", "nodeName"}).get_ref<const std::string&>().empty()) {
        continue;
      }
      placed[Str(*pod, {"metadata", "uid"})] = node.name;
    }
  }
  in.refs.pods.reserve(pods.size());
  for (const kube::ObjectPtr& pod : pods) {
    in.held.push_back(pod);
    const Json& node_name = At(*pod, {"spec", "nodeName"});
    if (placed.empty() || (node_name.is_string() && !node_name.get_ref<const std::string&>().empty())) {
      in.refs.pods.push_back(pod.get());
      continue;
    }
    auto it = placed.find(Str(*pod, {"metadata", "uid"}));
    if (it == placed.end()) {
      in.refs.pods.push_back(pod.get());
      continue;
    }
    Json& copy = in.assumed_copies.emplace_back(*pod);
    if (!copy.contains("spec") || !copy["spec"].is_object()) copy["spec"] = Json::object();
    copy["spec"]["nodeName"] = it->second;
    in.refs.pods.push_back(&copy);
  }
  auto add = [&](const std::vector<kube::ObjectPtr>& list, std::vector<const Json*>* refs) {
    refs->reserve(list.size());
    for (const kube::ObjectPtr& o : list) {
      in.held.push_back(o);
      refs->push_back(o.get());
    }
  };
  add(pod_groups, &in.refs.pod_groups);
  add(queues, &in.refs.queues);
  add(priority_classes, &in.refs.priority_classes);
  return in;
}

Json PodGroupStatus(const PodGroupOutcome& outcome) {
  Json conditions = Json::array();
  for (const Condition& c : outcome.conditions) conditions.push_back(ConditionJson(c));
  Json status = {{"phase", outcome.phase}};
  if (!conditions.empty()) status["conditions"] = std::move(conditions);
  if (outcome.running) status["running"] = outcome.running;
  if (outcome.succeeded) status["succeeded"] = outcome.succeeded;
  if (outcome.failed) status["failed"] = outcome.failed;
  return status;
}

std::optional<Json> PodGroupWithStatus(const Json& current, const PodGroupOutcome& outcome) {
  Json status = PodGroupStatus(outcome);
  if (WithoutStamps(At(current, {"status"})) == WithoutStamps(status)) return std::nullopt;
  Json updated = current;
  updated["status"] = std::move(status);
  return updated;
}

std::optional<Json> QueueAllocatedPatch(const Json& current, const QueueOutcome& outcome) {
  const Json& have = At(current, {"status", "allocated"});
  const Json want = outcome.allocated.is_object() ? outcome.allocated : Json::object();
  const Json have_map = have.is_object() ? have : Json::object();
  if (have_map == want) return std::nullopt;
  Json allocated = want;
  for (auto it = have_map.begin(); it != have_map.end(); ++it) {
    if (!want.contains(it.key())) allocated[it.key()] = nullptr;
  }
  return Json{{"status", {{"allocated", std::move(allocated)}}}};
}

std::optional<Json> PodScheduledPatch(const Json& pod, const std::string& reason,
                                      const std::string& message, const std::string& now) {
  Json conditions = At(pod, {"status", "conditions"});
  if (!conditions.is_array()) conditions = Json::array();
  Json condition = {{"type", "PodScheduled"},
                    {"status", "False"},
                    {"lastProbeTime", nullptr},
                    {"reason", reason},
                    {"message", message}};
  if (!runtime::SetCondition(&conditions, condition, now)) return std::nullopt;
  return Json{{"status", {{"conditions", std::move(conditions)}}}};
}

}  // namespace trimtab::cluster::volcano
