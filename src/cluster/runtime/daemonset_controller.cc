#include "cluster/runtime/daemonset_controller.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "cluster/runtime/node_fit.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"
#include "cluster/runtime/statefulset_controller.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "daemonset-controller";
constexpr char kRevisionLabel[] = "controller-revision-hash";

// The tolerations upstream adds to every daemon pod (util.AddOrUpdateDaemonPodTolerations).
void AddDaemonTolerations(Json* spec) {
  Json& tolerations = (*spec)["tolerations"];
  if (!tolerations.is_array()) tolerations = Json::array();
  auto add = [&](const char* key, const char* effect) {
    for (const Json& t : tolerations) {
      if (t.value("key", "") == key && t.value("effect", "") == effect) return;
    }
    tolerations.push_back({{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  add("node.kubernetes.io/network-unavailable", "NoSchedule");
}

bool ShouldRunOn(const Json& pod, const Json& node) {
  if (!MatchesNodeAffinity(pod, node)) return false;
  const Json& taints = At(node, {"spec", "taints"});
  if (taints.is_array()) {
    for (const Json& taint : taints) {
      std::string effect = taint.value("effect", "");
      if ((effect == "NoSchedule" || effect == "NoExecute") && !ToleratesTaint(pod, taint)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

DaemonSetController::DaemonSetController(const kube::KubeClient* client, InformerSet* informers,
                                         EventRecorder* events, Clock* clock, int workers)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      controller_("daemonset-controller", clock, workers,
                  [this](const std::string& key) { return Sync(key); }) {
  EnqueueObjects(informers_, DaemonSetsGvr(), &controller_);
  EnqueueControllerOfPods(informers_, "DaemonSet", &controller_);
  auto all = [this](const Json&) { EnqueueAll(); };
  informers_->Get(NodesGvr())->AddEventHandler(
      {.on_add = all,
       .on_update = [this](const Json& o, const Json& n) {
         if (At(o, {"metadata", "labels"}) != At(n, {"metadata", "labels"}) ||
             At(o, {"spec"}) != At(n, {"spec"})) {
           EnqueueAll();
         }
       },
       .on_delete = all});
}

void DaemonSetController::EnqueueAll() {
  auto sets = informers_->Store(DaemonSetsGvr()).List(DaemonSetsGvr(), "", {});
  if (!sets.ok()) return;
  for (const Json& s : *sets) controller_.Enqueue(kube::ObjectKey(s));
}

Result DaemonSetController::Sync(const std::string& key) {
  auto set = informers_->Store(DaemonSetsGvr()).GetByKey(key);
  if (!set) return Result::Done();
  const std::string ns = Str(*set, {"metadata", "namespace"});
  const std::string name = Str(*set, {"metadata", "name"});
  const TimePoint now = clock_->Now();
  const int64_t min_ready = Int(*set, {"spec", "minReadySeconds"});
  Json tmpl = At(*set, {"spec", "template"});
  const std::string revision = TemplateRevision(name, tmpl);
  tmpl["metadata"]["labels"][kRevisionLabel] = revision;
  AddDaemonTolerations(&tmpl["spec"]);
  const Json probe = {{"spec", tmpl["spec"]}, {"metadata", tmpl["metadata"]}};

  auto nodes = informers_->Store(NodesGvr()).List(NodesGvr(), "", {});
  if (!nodes.ok()) return Result::Retry(nodes.status().ToString());
  std::map<std::string, std::vector<Json>> by_node;
  std::vector<Json> unbound;
  for (Json& p : PodsControlledBy(informers_, *set)) {
    std::string node = Str(p, {"spec", "nodeName"});
    if (node.empty()) {
      unbound.push_back(std::move(p));
    } else {
      by_node[node].push_back(std::move(p));
    }
  }
  int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  std::vector<std::string> create_on;
  std::vector<Json> victims = unbound;
  std::vector<Json> outdated;
  for (const Json& node : *nodes) {
    const std::string node_name = Str(node, {"metadata", "name"});
    const bool wanted = ShouldRunOn(probe, node);
    std::vector<Json>& pods = by_node[node_name];
    std::vector<Json> live;
    for (Json& p : pods) {
      if (IsDeleting(p)) continue;
      if (IsPodTerminal(p) && Str(p, {"status", "phase"}) == "Failed") {
        victims.push_back(p);  // replaced on the next sync
        continue;
      }
      live.push_back(p);
    }
    if (wanted) {
      ++desired;
      if (live.empty()) {
        if (pods.empty() || std::all_of(pods.begin(), pods.end(), [](const Json& p) {
              return !IsDeleting(p);
            })) {
          create_on.push_back(node_name);
        }
        continue;
      }
      ++current;
      for (size_t i = 1; i < live.size(); ++i) victims.push_back(live[i]);  // one per node
      const Json& p = live[0];
      if (IsPodReady(p)) ++ready;
      if (IsPodAvailable(p, min_ready, now)) ++available;
      if (Str(p, {"metadata", "labels", kRevisionLabel}) == revision) {
        ++updated;
      } else {
        outdated.push_back(p);
      }
    } else if (!live.empty()) {
      ++misscheduled;
      for (Json& p : live) victims.push_back(p);
    }
  }
  if (!IsDeleting(*set)) {
    for (const Json& v : victims) {
      const std::string pod = Str(v, {"metadata", "name"});
      Status s = client_->Delete(PodsGvr(), ns, pod);
      if (s.ok()) {
        events_->Record(*set, {.component = kComponent}, "Normal", "SuccessfulDelete",
                        "Deleted pod: " + pod);
      }
    }
    for (const std::string& node : create_on) {
      Json pod = PodFromTemplate(*set, tmpl, name + "-", true);
      pod["spec"]["nodeName"] = node;
      auto created = client_->Create(PodsGvr(), ns, pod);
      if (!created.ok()) {
        events_->Record(*set, {.component = kComponent}, "Warning", "FailedCreate",
                        "Error creating: " + created.status().message());
        return Result::Retry(created.status().ToString());
      }
      events_->Record(*set, {.component = kComponent}, "Normal", "SuccessfulCreate",
                      "Created pod: " + Str(*created, {"metadata", "name"}));
    }
    const bool rolling = Str(*set, {"spec", "updateStrategy", "type"}, "RollingUpdate") ==
                         "RollingUpdate";
    const Json& max_v = At(*set, {"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"});
    int64_t max_unavailable = max_v.is_number_integer() ? max_v.get<int64_t>() : 1;
    if (max_unavailable < 1) max_unavailable = 1;
    int64_t budget = max_unavailable - (desired - available);
    for (size_t i = 0; rolling && i < outdated.size() && budget > 0; ++i, --budget) {
      const std::string pod = Str(outdated[i], {"metadata", "name"});
      if (client_->Delete(PodsGvr(), ns, pod).ok()) {
        events_->Record(*set, {.component = kComponent}, "Normal", "SuccessfulDelete",
                        "Deleted pod: " + pod);
      }
    }
  }
  Json status = {{"desiredNumberScheduled", desired},
                 {"currentNumberScheduled", current},
                 {"numberMisscheduled", misscheduled},
                 {"numberReady", ready},
                 {"numberAvailable", available},
                 {"numberUnavailable", std::max<int64_t>(0, desired - available)},
                 {"updatedNumberScheduled", updated},
                 {"observedGeneration", Int(*set, {"metadata", "generation"})}};
  if (status["numberAvailable"] == 0) status.erase("numberAvailable");
  if (status["numberUnavailable"] == 0) status.erase("numberUnavailable");
  Json old = At(*set, {"status"});
  Json patch = status;
  bool changed = false;
  for (auto& [k, v] : status.items()) {
    if (!old.is_object() || !old.contains(k) || old[k] != v) changed = true;
  }
  for (const char* k : {"numberAvailable", "numberUnavailable"}) {
    if (!status.contains(k) && old.is_object() && old.contains(k)) {
      patch[k] = nullptr;
      changed = true;
    }
  }
  if (changed) {
    auto r = client_->Patch(DaemonSetsGvr(), ns, name, kube::PatchType::kMerge,
                            Json{{"status", patch}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry("status of daemonset " + key + ": " + r.status().ToString());
    }
  }
  if (min_ready > 0 && available < ready) return Result::After(std::chrono::seconds(1));
  return Result::Done();
}

}  // namespace trimtab::cluster::runtime
