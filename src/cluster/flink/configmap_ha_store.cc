#include "cluster/flink/configmap_ha_store.h"

#include <algorithm>
#include <cstdlib>

#include "cluster/flink/ids.h"

namespace trimtab::sim::flink {

namespace {

constexpr int kConflictRetries = 8;
constexpr char kCheckpointPrefix[] = "checkpointID-";
constexpr char kJobGraphPrefix[] = "jobGraph-";

}  // namespace

ConfigMapHaStore::ConfigMapHaStore(std::shared_ptr<const kube::KubeClient> kube, std::string namespace_name,
                                   std::string cluster_id, Clock* clock)
    : kube_(std::move(kube)),
      namespace_(std::move(namespace_name)),
      cluster_id_(std::move(cluster_id)),
      clock_(clock ? clock : RealClock::Default()) {}

Json ConfigMapHaStore::NewConfigMap(const std::string& name) const {
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name},
                            {"namespace", namespace_},
                            {"labels", {{"app", cluster_id_},
                                        {"configmap-type", "high-availability"},
                                        {"type", "flink-native-kubernetes"}}}}},
              {"data", Json::object()}};
}

Status ConfigMapHaStore::Modify(const std::string& name, const std::function<bool(Json&)>& mutate) {
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    StatusOr<Json> current = kube_->Get(kube::ConfigMapsResource(), namespace_, name);
    const bool exists = current.ok();
    if (!exists && current.status().code() != StatusCode::kNotFound) return current.status();
    Json cm = exists ? std::move(*current) : NewConfigMap(name);
    if (!cm.contains("data") || !cm["data"].is_object()) cm["data"] = Json::object();
    if (!mutate(cm)) return Status::Ok();
    StatusOr<Json> written = exists ? kube_->Update(kube::ConfigMapsResource(), cm)
                                    : kube_->Create(kube::ConfigMapsResource(), namespace_, cm);
    if (written.ok()) return Status::Ok();
    const StatusCode code = written.status().code();
    if (code != StatusCode::kConflict && code != StatusCode::kAlreadyExists) return written.status();
  }
  return ConflictError("HA ConfigMap " + namespace_ + "/" + name + ": too many concurrent updates");
}

StatusOr<HaJobState> ConfigMapHaStore::LoadJob(const std::string& job_id) {
  HaJobState state;
  StatusOr<Json> cm = kube_->Get(kube::ConfigMapsResource(), namespace_, JobMapName(job_id));
  if (!cm.ok() && cm.status().code() != StatusCode::kNotFound) return cm.status();
  if (cm.ok() && cm->contains("data") && (*cm)["data"].is_object()) {
    for (const auto& [key, value] : (*cm)["data"].items()) {
      if (!value.is_string()) continue;
      if (key == "counter") {
        state.counter = std::atoll(value.get<std::string>().c_str());
      } else if (key.starts_with(kCheckpointPrefix)) {
        state.checkpoints[std::atoll(key.c_str() + sizeof(kCheckpointPrefix) - 1)] = value.get<std::string>();
      }
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(auto graphs, LoadJobGraphs());
  if (auto it = graphs.find(job_id); it != graphs.end()) state.job_graph = it->second;
  return state;
}

StatusOr<std::map<std::string, Json>> ConfigMapHaStore::LoadJobGraphs() {
  std::map<std::string, Json> out;
  StatusOr<Json> cm = kube_->Get(kube::ConfigMapsResource(), namespace_, ClusterMapName());
  if (!cm.ok()) {
    if (cm.status().code() == StatusCode::kNotFound) return out;
    return cm.status();
  }
  if (!cm->contains("data") || !(*cm)["data"].is_object()) return out;
  for (const auto& [key, value] : (*cm)["data"].items()) {
    if (!key.starts_with(kJobGraphPrefix) || !value.is_string()) continue;
    StatusOr<Json> graph = ParseJson(value.get<std::string>(), ClusterMapName() + " " + key);
    if (graph.ok()) out[key.substr(sizeof(kJobGraphPrefix) - 1)] = std::move(*graph);
  }
  return out;
}

Status ConfigMapHaStore::Apply(const HaUpdate& u) {
  switch (u.type) {
    case HaUpdate::Type::kJobGraphAdded:
      return Modify(ClusterMapName(), [&](Json& cm) {
        cm["data"][kJobGraphPrefix + u.job_id] = u.job_graph.dump();
        return true;
      });
    case HaUpdate::Type::kCheckpointAdded:
      return Modify(JobMapName(u.job_id), [&](Json& cm) {
        Json& data = cm["data"];
        data["counter"] = std::to_string(u.counter);
        data[CheckpointKey(u.checkpoint_id)] = u.path;
        std::vector<std::string> stale;
        for (const auto& [key, value] : data.items()) {
          if (!key.starts_with(kCheckpointPrefix)) continue;
          const int64_t id = std::atoll(key.c_str() + sizeof(kCheckpointPrefix) - 1);
          if (std::find(u.retained.begin(), u.retained.end(), id) == u.retained.end()) stale.push_back(key);
        }
        for (const std::string& key : stale) data.erase(key);
        return true;
      });
    case HaUpdate::Type::kJobRemoved: {
      const Status deleted = kube_->Delete(kube::ConfigMapsResource(), namespace_, JobMapName(u.job_id));
      if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) return deleted;
      return Modify(ClusterMapName(), [&](Json& cm) { return cm["data"].erase(kJobGraphPrefix + u.job_id) > 0; });
    }
  }
  return Status::Ok();
}

Status ConfigMapHaStore::WriteLeader(const std::string& host, int rest_port, const std::string& session_id) {
  return Modify(ClusterMapName(), [&](Json& cm) {
    const std::string rpc = "pekko.tcp://flink@" + host + ":6123/user/rpc/";
    Json& data = cm["data"];
    data["org.apache.flink.k8s.leader.restserver"] = "http://" + host + ":" + std::to_string(rest_port) + "," + session_id;
    data["org.apache.flink.k8s.leader.dispatcher"] = rpc + "dispatcher_1," + session_id;
    data["org.apache.flink.k8s.leader.resourcemanager"] = rpc + "resourcemanager_0," + session_id;
    const std::string now = FormatRfc3339(clock_->Now());
    cm["metadata"]["annotations"]["control-plane.alpha.kubernetes.io/leader"] =
        Json{{"holderIdentity", session_id},
             {"leaseDuration", 15.0},
             {"acquireTime", now},
             {"renewTime", now},
             {"leaderTransitions", 0}}
            .dump();
    return true;
  });
}

Status ConfigMapHaStore::DeleteAll() {
  kube::ReadOptions options;
  TRIMTAB_ASSIGN_OR_RETURN(options.labels, LabelSelector::Parse("app=" + cluster_id_ +
                                                                 ",configmap-type=high-availability"));
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> maps, kube_->List(kube::ConfigMapsResource(), namespace_, options));
  for (const Json& cm : maps) {
    const Status s = kube_->Delete(kube::ConfigMapsResource(), namespace_, kube::ObjectName(cm));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

}  // namespace trimtab::sim::flink
