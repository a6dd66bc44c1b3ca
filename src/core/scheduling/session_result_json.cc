#include "core/scheduling/session_result_json.h"

#include <map>

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling {
namespace {

std::string Key(const PodRef& p) { return p.ns + "/" + p.name; }

Json PodJson(const PodRef& p) {
  Json j = {{"pod", Key(p)}};
  if (!p.uid.empty()) j["uid"] = p.uid;
  return j;
}

}  // namespace

Json SessionResultToJson(const SessionResult& result) {
  Json out = Json::object();
  Json binds = Json::array();
  for (const Bind& b : result.binds) {
    Json j = PodJson(b.pod);
    j["node"] = b.node;
    binds.push_back(std::move(j));
  }
  out["binds"] = std::move(binds);
  Json pipelined = Json::array();
  for (const PodRef& p : result.pipelined) pipelined.push_back(PodJson(p));
  out["pipelined"] = std::move(pipelined);
  Json evictions = Json::array();
  for (const Eviction& e : result.evictions) {
    Json j = PodJson(e.pod);
    j["node"] = e.node;
    j["action"] = e.action;
    j["preemptor"] = e.preemptor_job;
    j["message"] = e.message;
    evictions.push_back(std::move(j));
  }
  out["evictions"] = std::move(evictions);
  Json groups = Json::array();
  for (const PodGroupOutcome& g : result.pod_groups) {
    Json conditions = Json::array();
    for (const Condition& c : g.conditions) {
      Json cj = {{"type", c.type}, {"status", c.status}, {"reason", c.reason},
                 {"message", c.message}};
      if (!c.transition_id.empty()) cj["transitionID"] = c.transition_id;
      if (!c.last_transition_time.empty()) cj["lastTransitionTime"] = c.last_transition_time;
      conditions.push_back(std::move(cj));
    }
    Json j = {{"namespace", g.ns},
              {"name", g.name},
              {"queue", g.queue},
              {"previousPhase", g.previous_phase},
              {"phase", g.phase},
              {"running", g.running},
              {"succeeded", g.succeeded},
              {"failed", g.failed},
              {"conditions", std::move(conditions)},
              {"changed", g.changed}};
    if (!g.events.empty()) {
      Json events = Json::array();
      for (const PodGroupEvent& e : g.events) {
        events.push_back({{"type", e.type}, {"reason", e.reason}, {"message", e.message}});
      }
      j["events"] = std::move(events);
    }
    groups.push_back(std::move(j));
  }
  out["podGroups"] = std::move(groups);
  Json queues = Json::array();
  for (const QueueOutcome& q : result.queues) {
    queues.push_back({{"name", q.name},
                      {"state", q.state},
                      {"allocated", q.allocated.is_null() ? Json::object() : q.allocated},
                      {"deserved", q.deserved.is_null() ? Json::object() : q.deserved},
                      {"pending", q.pending},
                      {"inqueue", q.inqueue},
                      {"running", q.running},
                      {"unknown", q.unknown},
                      {"completed", q.completed},
                      {"changed", q.changed}});
  }
  out["queues"] = std::move(queues);
  Json unschedulable = Json::array();
  for (const Unschedulable& u : result.unschedulable) {
    Json j = PodJson(u.pod);
    j["reason"] = u.reason;
    j["message"] = u.message;
    if (!u.nominated_node.empty()) j["nominatedNodeName"] = u.nominated_node;
    unschedulable.push_back(std::move(j));
  }
  out["unschedulable"] = std::move(unschedulable);
  Json skipped = Json::array();
  for (const Skipped& s : result.skipped) {
    Json j = {{"kind", s.kind}, {"name", s.name}, {"reason", s.reason}};
    if (!s.ns.empty()) j["namespace"] = s.ns;
    skipped.push_back(std::move(j));
  }
  out["skipped"] = std::move(skipped);
  out["log"] = result.log;
  return out;
}

std::string SessionResultSummary(const SessionResult& result) {
  std::string out;
  std::map<std::string, std::vector<std::string>> by_node;
  for (const Bind& b : result.binds) by_node[b.node].push_back(Key(b.pod));
  out += "binds: " + std::to_string(result.binds.size()) + "\n";
  for (const auto& [node, pods] : by_node) {
    out += "  " + node + ":";
    for (const auto& p : pods) out += " " + p;
    out += "\n";
  }
  if (!result.pipelined.empty()) {
    out += "pipelined:";
    for (const PodRef& p : result.pipelined) out += " " + Key(p);
    out += "\n";
  }
  for (const Eviction& e : result.evictions) {
    out += "evict " + Key(e.pod) + " on " + e.node + " (" + e.action + " for " +
           e.preemptor_job + ")\n";
  }
  for (const PodGroupOutcome& g : result.pod_groups) {
    out += "podgroup " + g.ns + "/" + g.name + ": " +
           (g.previous_phase == g.phase ? g.phase : g.previous_phase + " -> " + g.phase);
    for (const Condition& c : g.conditions) {
      if (c.type == "Unschedulable" && c.status == "True" && !c.transition_id.empty()) {
        out += " (" + c.message + ")";
      }
    }
    out += "\n";
  }
  for (const QueueOutcome& q : result.queues) {
    out += "queue " + q.name + " [" + q.state + "] allocated " + q.allocated.dump() +
           (q.deserved.is_object() && !q.deserved.empty() ? " deserved " + q.deserved.dump() : "") +
           "\n";
  }
  for (const Skipped& s : result.skipped) {
    out += "skipped " + s.kind + " " + (s.ns.empty() ? "" : s.ns + "/") + s.name + ": " +
           s.reason + "\n";
  }
  return out;
}

}  // namespace trimtab::core::scheduling
