#include "dashboard/dashboard_model.h"

#include <string>

#include "adapters/state/configmap_state_store.h"
#include "core/chain/state_store.h"
#include "core/flink/autoscaler_json.h"

namespace trimtab::dashboard {
namespace {

// The string at a dotted path of `object`, or "" (also for non-strings).
std::string Str(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return "";
    auto it = at->find(key);
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

// The value at a dotted path, or null.
Json At(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return Json();
    auto it = at->find(key);
    if (it == at->end()) return Json();
    at = &*it;
  }
  return *at;
}

// A Flink configuration value: flat key, or nested maps along the dots (both are accepted).
std::string FlinkConfig(const Json& resource, const std::string& key) {
  Json conf = At(resource, {"spec", "flinkConfiguration"});
  if (!conf.is_object()) return "";
  if (auto it = conf.find(key); it != conf.end()) {
    return it->is_string() ? it->get<std::string>() : it->dump();
  }
  const Json* at = &conf;
  size_t start = 0;
  while (start <= key.size()) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos
                                                                         : dot - start);
    if (!at->is_object()) return "";
    auto it = at->find(part);
    if (it == at->end()) return "";
    at = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at->is_string() ? at->get<std::string>() : (at->is_primitive() ? at->dump() : "");
}

bool AutoscalerEnabled(const Json& resource) {
  for (const char* key : {"job.autoscaler.enabled", "kubernetes.operator.job.autoscaler.enabled"}) {
    const std::string v = FlinkConfig(resource, key);
    if (!v.empty()) return v == "true";
  }
  return false;
}

// The autoscaler state ConfigMap of a job (autoscaler-<name> in its namespace, owned by it when
// it names an owner), or null.
const Json* StateConfigMap(const ClusterView& view, std::string_view kind, std::string_view ns,
                           std::string_view name) {
  const std::string wanted = std::string(adapters::kAutoscalerConfigMapPrefix) + std::string(name);
  for (const Json& cm : view.state_configmaps) {
    if (Str(cm, {"metadata", "namespace"}) != ns || Str(cm, {"metadata", "name"}) != wanted) {
      continue;
    }
    const Json owners = At(cm, {"metadata", "ownerReferences"});
    if (owners.is_array() && !owners.empty()) {
      bool ours = false;
      for (const Json& o : owners) ours = ours || (Str(o, {"kind"}) == kind);
      if (!ours) continue;
    }
    return &cm;
  }
  return nullptr;
}

// One document of a state ConfigMap, decoded as the store encodes it; null when absent.
// Undecodable values become {"error": why}.
Json StateDocument(const Json* cm, core::StateType type) {
  if (cm == nullptr) return Json();
  const Json data = At(*cm, {"data"});
  if (!data.is_object()) return Json();
  auto it = data.find(std::string(core::StateTypeName(type)));
  if (it == data.end() || !it->is_string()) return Json();
  StatusOr<Json> decoded = adapters::DecodeStateValue(type, it->get<std::string>());
  if (!decoded.ok()) return {{"error", decoded.status().message()}};
  return *decoded;
}

struct JobRef {
  const Json* object;
  const char* kind;
};

std::vector<JobRef> Jobs(const ClusterView& view) {
  std::vector<JobRef> jobs;
  for (const Json& d : view.flink_deployments) jobs.push_back({&d, kFlinkDeploymentKind});
  for (const Json& j : view.session_jobs) jobs.push_back({&j, kFlinkSessionJobKind});
  return jobs;
}

// What every view of a job shows: identity, state, lifecycle, autoscaler summary.
Json JobSummary(const ClusterView& view, const JobRef& job) {
  const Json& o = *job.object;
  const std::string ns = Str(o, {"metadata", "namespace"});
  const std::string name = Str(o, {"metadata", "name"});
  Json out = {{"kind", job.kind},
              {"namespace", ns},
              {"name", name},
              {"jobState", Str(o, {"status", "jobStatus", "state"})},
              {"lifecycleState", Str(o, {"status", "lifecycleState"})},
              {"error", Str(o, {"status", "error"})},
              {"autoscalerEnabled", AutoscalerEnabled(o)}};
  if (job.kind == std::string_view(kFlinkDeploymentKind)) {
    out["jobManagerStatus"] = Str(o, {"status", "jobManagerDeploymentStatus"});
    out["parallelism"] = At(o, {"spec", "job", "parallelism"});
  } else {
    out["deploymentName"] = Str(o, {"spec", "deploymentName"});
    out["parallelism"] = At(o, {"spec", "job", "parallelism"});
  }
  const Json* cm = StateConfigMap(view, job.kind, ns, name);
  const Json latest = StateDocument(cm, core::StateType::kDecisionLog);
  if (latest.is_object()) {
    out["lastDecision"] = {{"time", latest.value("time", "")},
                           {"outcome", latest.value("outcome", "")},
                           {"scaled", latest.value("scaled", false)},
                           {"skippedReason", latest.value("skippedReason", "")}};
  }
  const Json history = StateDocument(cm, core::StateType::kDecisionHistory);
  int scaled = 0, vetoed = 0, blocked = 0;
  if (history.is_object() && history.contains("decisions") && history["decisions"].is_array()) {
    for (const Json& d : history["decisions"]) {
      const std::string kind = d.is_object() ? d.value("decision", "") : "";
      scaled += kind == "Scaled";
      vetoed += kind == "Vetoed";
      blocked += kind == "Blocked";
    }
  }
  out["decisionCounts"] = {{"Scaled", scaled}, {"Vetoed", vetoed}, {"Blocked", blocked}};
  return out;
}

Json PodGroupJson(const Json& pg) {
  return {{"namespace", Str(pg, {"metadata", "namespace"})},
          {"name", Str(pg, {"metadata", "name"})},
          {"queue", Str(pg, {"spec", "queue"})},
          {"minMember", At(pg, {"spec", "minMember"})},
          {"phase", Str(pg, {"status", "phase"})},
          {"running", At(pg, {"status", "running"})},
          {"pending", At(pg, {"status", "pending"})}};
}

Json QueueJson(const Json& q) {
  return {{"name", Str(q, {"metadata", "name"})},
          {"state", Str(q, {"status", "state"})},
          {"weight", At(q, {"spec", "weight"})},
          {"capability", At(q, {"spec", "capability"})},
          {"allocated", At(q, {"status", "allocated"})},
          {"running", At(q, {"status", "running"})},
          {"pending", At(q, {"status", "pending"})}};
}

Json HpaJson(const Json& h) {
  Json out = {{"namespace", Str(h, {"metadata", "namespace"})},
              {"name", Str(h, {"metadata", "name"})},
              {"target", Str(h, {"spec", "scaleTargetRef", "kind"}) + "/" +
                             Str(h, {"spec", "scaleTargetRef", "name"})},
              {"minReplicas", At(h, {"spec", "minReplicas"})},
              {"maxReplicas", At(h, {"spec", "maxReplicas"})},
              {"currentReplicas", At(h, {"status", "currentReplicas"})},
              {"desiredReplicas", At(h, {"status", "desiredReplicas"})}};
  Json conditions = Json::array();
  const Json cs = At(h, {"status", "conditions"});
  if (cs.is_array()) {
    for (const Json& c : cs) {
      conditions.push_back({{"type", Str(c, {"type"})},
                            {"status", Str(c, {"status"})},
                            {"reason", Str(c, {"reason"})},
                            {"message", Str(c, {"message"})}});
    }
  }
  out["conditions"] = std::move(conditions);
  return out;
}

}  // namespace

Json BuildOverview(const ClusterView& view, TimePoint now) {
  Json jobs = Json::array();
  for (const JobRef& job : Jobs(view)) jobs.push_back(JobSummary(view, job));
  Json pod_groups = Json::array();
  for (const Json& pg : view.pod_groups) pod_groups.push_back(PodGroupJson(pg));
  Json queues = Json::array();
  for (const Json& q : view.queues) queues.push_back(QueueJson(q));
  Json hpas = Json::array();
  for (const Json& h : view.hpas) hpas.push_back(HpaJson(h));
  Json readable = Json::object();
  for (const auto& [kind, ok] : view.readable) readable[kind] = ok;
  return {{"generatedAt", core::flink::FormatTime(now)},
          {"jobs", std::move(jobs)},
          {"podGroups", std::move(pod_groups)},
          {"queues", std::move(queues)},
          {"hpas", std::move(hpas)},
          {"readable", std::move(readable)}};
}

StatusOr<Json> BuildJobDetail(const ClusterView& view, std::string_view kind,
                              std::string_view namespace_name, std::string_view name) {
  if (kind != kFlinkDeploymentKind && kind != kFlinkSessionJobKind) {
    return InvalidArgumentError("kind: expected FlinkDeployment or FlinkSessionJob");
  }
  for (const JobRef& job : Jobs(view)) {
    if (kind != job.kind || Str(*job.object, {"metadata", "namespace"}) != namespace_name ||
        Str(*job.object, {"metadata", "name"}) != name) {
      continue;
    }
    Json out = JobSummary(view, job);
    const Json* cm = StateConfigMap(view, job.kind, namespace_name, name);
    out["stateConfigMap"] = cm == nullptr ? "" : Str(*cm, {"metadata", "name"});
    Json history = StateDocument(cm, core::StateType::kDecisionHistory);
    Json names = Json::object(), points = Json::array(), decisions = Json::array();
    if (history.is_object()) {
      if (history.contains("error")) out["historyError"] = history["error"];
      if (auto it = history.find("vertexNames"); it != history.end() && it->is_object()) {
        names = *it;
      }
      if (auto it = history.find("points"); it != history.end() && it->is_array()) points = *it;
      if (auto it = history.find("decisions"); it != history.end() && it->is_array()) {
        decisions = *it;
      }
    }
    // Vertex names for every id the points and decisions mention (the id when unknown).
    for (const Json& p : points) {
      if (!p.is_object() || !p.contains("vertices") || !p["vertices"].is_object()) continue;
      for (const auto& [id, _] : p["vertices"].items()) {
        if (!names.contains(id)) names[id] = id;
      }
    }
    out["vertexNames"] = std::move(names);
    out["points"] = std::move(points);
    out["decisions"] = std::move(decisions);
    out["latestDecision"] = StateDocument(cm, core::StateType::kDecisionLog);
    return out;
  }
  return NotFoundError(std::string(kind) + " " + std::string(namespace_name) + "/" +
                       std::string(name) + " not found");
}

}  // namespace trimtab::dashboard
