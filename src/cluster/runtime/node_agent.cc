#include "cluster/runtime/node_agent.h"

#include <sys/utsname.h>

#include <cstdio>
#include <functional>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

std::string KernelVersion() {
  struct utsname u;
  return uname(&u) == 0 ? std::string(u.release) : "unknown";
}

// metav1.MicroTime: RFC 3339 with microseconds.
std::string MicroTime(TimePoint t) {
  std::string base = FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(t));
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() %
                1000000;
  char frac[32];
  std::snprintf(frac, sizeof(frac), ".%06lld", static_cast<long long>(micros));
  return base.substr(0, base.size() - 1) + frac + "Z";
}

std::string Id(const std::string& seed) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%016zx%016zx", std::hash<std::string>{}(seed),
                std::hash<std::string>{}(seed + "/2"));
  return buf;
}

Json Conditions(const std::string& now, const Json& previous) {
  Json out = Json::array();
  const struct {
    const char* type;
    const char* status;
    const char* reason;
    const char* message;
  } kConditions[] = {
      {"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
  };
  for (const auto& c : kConditions) {
    std::string since = now;
    if (previous.is_array()) {
      for (const Json& p : previous) {
        if (p.value("type", "") == c.type && p.value("status", "") == c.status) {
          since = p.value("lastTransitionTime", now);
        }
      }
    }
    out.push_back({{"type", c.type},
                   {"status", c.status},
                   {"lastHeartbeatTime", now},
                   {"lastTransitionTime", since},
                   {"reason", c.reason},
                   {"message", c.message}});
  }
  return out;
}

Json NodeStatus(const LocalNode& node, const std::string& now, const Json& previous_conditions) {
  const NodeConfig& c = node.config;
  Json capacity = {{"cpu", c.cpu},
                   {"memory", c.memory},
                   {"pods", std::to_string(c.pods)},
                   {"ephemeral-storage", "100Gi"},
                   {"hugepages-1Gi", "0"},
                   {"hugepages-2Mi", "0"}};
  for (const auto& [name, value] : c.extended_resources) capacity[name] = value;
  return {{"capacity", capacity},
          {"allocatable", capacity},
          {"conditions", Conditions(now, previous_conditions)},
          {"addresses", Json::array({{{"type", "InternalIP"}, {"address", node.node_ip}},
                                     {{"type", "Hostname"}, {"address", c.name}}})},
          {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
          {"nodeInfo",
           {{"machineID", Id("machine/" + c.name)},
            {"systemUUID", Id("system/" + c.name)},
            {"bootID", Id("boot/" + c.name + "/" + now)},
            {"kernelVersion", KernelVersion()},
            {"osImage", "trimtab local node"},
            {"containerRuntimeVersion", "trimtab://0.1.0"},
            {"kubeletVersion", std::string(kKubeletVersion)},
            {"kubeProxyVersion", std::string(kKubeletVersion)},
            {"operatingSystem", "linux"},
            {"architecture", "amd64"}}}};
}

Json Metadata(const LocalNode& node) {
  Json labels = {{"kubernetes.io/hostname", node.config.name},
                 {"kubernetes.io/os", "linux"},
                 {"kubernetes.io/arch", "amd64"},
                 {"beta.kubernetes.io/os", "linux"},
                 {"beta.kubernetes.io/arch", "amd64"},
                 {std::string(kLocalNodeLabel), "true"}};
  for (const auto& [k, v] : node.config.labels) labels[k] = v;
  return {{"name", node.config.name},
          {"labels", labels},
          {"annotations", {{"node.alpha.kubernetes.io/ttl", "0"}}}};
}

Json Spec(const LocalNode& node) {
  Json taints = Json::array();
  for (const NodeTaint& t : node.config.taints) {
    Json taint = {{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) taint["value"] = t.value;
    taints.push_back(std::move(taint));
  }
  Json spec = {{"podCIDR", node.pod_cidr.String()},
               {"podCIDRs", Json::array({node.pod_cidr.String()})},
               {"providerID", "trimtab://" + node.config.name}};
  spec["taints"] = taints.empty() ? Json(nullptr) : taints;
  return spec;
}

}  // namespace

NodeAgent::NodeAgent(const kube::KubeClient* client, Clock* clock, std::vector<LocalNode> nodes,
                     NodeAgentOptions options)
    : client_(client), clock_(clock), nodes_(std::move(nodes)), options_(options) {}

NodeAgent::~NodeAgent() { Stop(); }

Json NodeAgent::NodeObject(const LocalNode& node, TimePoint now) {
  Json spec = Spec(node);
  if (spec["taints"].is_null()) spec.erase("taints");
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", Metadata(node)},
          {"spec", spec},
          {"status", NodeStatus(node, FormatRfc3339(now), Json())}};
}

Status NodeAgent::Register() {
  for (const LocalNode& node : nodes_) {
    auto created = client_->Create(NodesGvr(), "", NodeObject(node, clock_->Now()));
    if (created.ok()) {
      TRIMTAB_RETURN_IF_ERROR(RenewLease(node));
      continue;
    }
    if (created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("registering node " + node.config.name);
    }
    // Registered by an earlier run: bring labels, taints and addresses up to date.
    Json patch = {{"metadata", Metadata(node)}, {"spec", Spec(node)}};
    auto patched = client_->Patch(NodesGvr(), "", node.config.name, kube::PatchType::kMerge,
                                  patch.dump());
    if (!patched.ok()) return patched.status().WithContext("updating node " + node.config.name);
    TRIMTAB_RETURN_IF_ERROR(UpdateStatus(node));
    TRIMTAB_RETURN_IF_ERROR(RenewLease(node));
  }
  auto existing = client_->List(NodesGvr(), "", {});
  if (!existing.ok()) return existing.status().WithContext("listing nodes");
  for (const Json& n : *existing) {
    std::string name = Str(n, {"metadata", "name"});
    if (Str(n, {"metadata", "labels", std::string(kLocalNodeLabel)}) != "true") continue;
    bool configured = false;
    for (const LocalNode& node : nodes_) configured = configured || node.config.name == name;
    if (configured) continue;
    spdlog::info("node agent: deleting node {} (no longer configured)", name);
    Status s = client_->Delete(NodesGvr(), "", name);
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s.WithContext("deleting node " + name);
  }
  return Status::Ok();
}

void NodeAgent::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void NodeAgent::Stop() {
  stop_.Stop();
  if (thread_.joinable()) thread_.join();
}

void NodeAgent::Loop() {
  TimePoint next_status = clock_->Now() + options_.status_update_interval;
  while (stop_.WaitFor(clock_, options_.lease_renew_interval)) {
    bool status_due = clock_->Now() >= next_status;
    if (status_due) next_status = clock_->Now() + options_.status_update_interval;
    for (const LocalNode& node : nodes_) {
      Status s = RenewLease(node);
      if (s.ok() && status_due) s = UpdateStatus(node);
      if (!s.ok()) spdlog::info("node agent: heartbeat of {} failed: {}", node.config.name, s.ToString());
    }
  }
}

Status NodeAgent::UpdateStatus(const LocalNode& node) {
  auto current = client_->Get(NodesGvr(), "", node.config.name);
  if (!current.ok()) return current.status();
  Json patch = {{"status", NodeStatus(node, NowString(clock_), At(*current, {"status", "conditions"}))}};
  auto r = client_->Patch(NodesGvr(), "", node.config.name, kube::PatchType::kMerge, patch.dump(),
                          {.subresource = "status"});
  return r.status();
}

Status NodeAgent::RenewLease(const LocalNode& node) {
  const std::string now = MicroTime(clock_->Now());
  Json spec = {{"holderIdentity", node.config.name},
               {"leaseDurationSeconds", options_.lease_duration_seconds},
               {"renewTime", now}};
  auto r = client_->Patch(LeasesGvr(), "kube-node-lease", node.config.name,
                          kube::PatchType::kMerge, Json{{"spec", spec}}.dump());
  if (r.ok() || r.status().code() != StatusCode::kNotFound) return r.status();
  auto owner = client_->Get(NodesGvr(), "", node.config.name);
  if (!owner.ok()) return owner.status();
  Json ref = {{"apiVersion", "v1"},
              {"kind", "Node"},
              {"name", node.config.name},
              {"uid", Str(*owner, {"metadata", "uid"})}};
  Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", node.config.name},
                              {"namespace", "kube-node-lease"},
                              {"ownerReferences", Json::array({ref})}}},
                {"spec", spec}};
  auto created = client_->Create(LeasesGvr(), "kube-node-lease", lease);
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
    return created.status();
  }
  return Status::Ok();
}

}  // namespace trimtab::cluster::runtime
