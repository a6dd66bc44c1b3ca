#include "operator/deployment/queue_headroom_reader.h"

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/quantity.h"

namespace trimtab::op {
namespace {

const kube::GroupVersionResource kQueues{"scheduling.volcano.sh", "v1beta1", "queues", false};
const kube::GroupVersionResource kNodes{"", "v1", "nodes", false};

std::optional<double> Amount(const Json& list, const char* name, bool cpu) {
  if (!list.is_object() || !list.contains(name) || !list[name].is_string()) return std::nullopt;
  StatusOr<Quantity> q = Quantity::Parse(list[name].get<std::string>());
  if (!q.ok()) return std::nullopt;
  return cpu ? static_cast<double>(q->MilliValue()) / 1000.0 : q->AsApproximateFloat64();
}

core::ResourceAmounts Amounts(const Json& list) {
  return {.cpu = Amount(list, "cpu", true), .memory_bytes = Amount(list, "memory", false)};
}

void Add(core::ResourceAmounts* sum, const core::ResourceAmounts& a) {
  if (a.cpu) sum->cpu = sum->cpu.value_or(0) + *a.cpu;
  if (a.memory_bytes) sum->memory_bytes = sum->memory_bytes.value_or(0) + *a.memory_bytes;
}

bool Schedulable(const Json& node) {
  if (node.value("spec", Json::object()).value("unschedulable", false)) return false;
  for (const Json& c : node.value("status", Json::object()).value("conditions", Json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

// The job's shape into `h`.
void SetShape(const QueueJobShape& job, core::QueueHeadroom* h) {
  h->task_manager = {.cpu = job.task_manager.cpu > 0 ? std::optional<double>(job.task_manager.cpu)
                                                     : std::nullopt,
                     .memory_bytes = job.task_manager.memory_bytes > 0
                                         ? std::optional<double>(job.task_manager.memory_bytes)
                                         : std::nullopt};
  h->slots_per_task_manager = job.slots_per_task_manager;
  h->task_managers = job.task_managers;
}

// node_free unknown for `why`; logged as a warning the first time and whenever the reason
// changes (a reader runs every autoscaler cycle of every job: no warning per cycle).
void NodeRoomUnknown(std::string why, core::QueueHeadroom* h) {
  static std::mutex mu;
  static std::string last;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (last != why) {
      last = why;
      spdlog::warn(
          "autoscaler: the free room on the nodes is unknown ({}); scale-guard and queue-capacity "
          "leave node room out of their decisions until the operator may list nodes and pods in "
          "all namespaces (docs/deploy.md)",
          why);
    }
  }
  h->node_free.reset();
  h->node_free_unknown = std::move(why);
}

// cluster_total from the nodes, node_free from the nodes and the pods bound to them; node_free
// stays unset (with the reason) when either list fails.
void ReadNodes(const kube::KubeClient& client, core::QueueHeadroom* out) {
  core::QueueHeadroom& h = *out;
  StatusOr<std::vector<Json>> nodes = client.List(kNodes, "", {});
  if (!nodes.ok()) {
    NodeRoomUnknown("list nodes: " + nodes.status().message(), &h);
    return;
  }
  std::vector<const Json*> schedulable;
  for (const Json& node : *nodes) {
    if (!Schedulable(node)) continue;
    schedulable.push_back(&node);
    Add(&h.cluster_total,
        Amounts(node.value("status", Json::object()).value("allocatable", Json::object())));
  }
  // Free room means every tenant's pods, so this List is cluster-wide. An operator installed
  // for some namespaces only (deploy/overlays/single-namespace) may not make it: the room is
  // then unknown, said once in the log and in every decision that would have used it.
  StatusOr<std::vector<Json>> pods = client.List(kube::PodsResource(), "", {});
  if (!pods.ok()) {
    NodeRoomUnknown("list pods in all namespaces: " + pods.status().message(), &h);
    return;
  }
  std::map<std::string, core::ResourceAmounts> used;
  for (const Json& pod : *pods) {
    const Json spec_p = pod.value("spec", Json::object());
    const std::string node = spec_p.value("nodeName", "");
    const std::string phase = pod.value("status", Json::object()).value("phase", "");
    if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
    for (const Json& c : spec_p.value("containers", Json::array())) {
      Add(&used[node], Amounts(c.value("resources", Json::object()).value("requests", Json::object())));
    }
  }
  std::vector<core::ResourceAmounts> free;
  for (const Json* node : schedulable) {
    const core::ResourceAmounts alloc =
        Amounts(node->value("status", Json::object()).value("allocatable", Json::object()));
    const core::ResourceAmounts& u = used[kube::ObjectName(*node)];
    free.push_back({.cpu = alloc.cpu.value_or(0) - u.cpu.value_or(0),
                    .memory_bytes = alloc.memory_bytes.value_or(0) - u.memory_bytes.value_or(0)});
  }
  h.node_free = std::move(free);
}

}  // namespace

core::QueueHeadroom ReadQueueHeadroom(const kube::KubeClient& client, const std::string& queue,
                                      const QueueJobShape& job) {
  core::QueueHeadroom h;
  h.queue = queue;
  SetShape(job, &h);
  StatusOr<Json> q = client.Get(kQueues, "", queue);
  if (q.status().code() == StatusCode::kNotFound) return h;
  if (!q.ok()) {
    h.error = q.status().message();
    return h;
  }
  h.exists = true;
  const Json spec = q->value("spec", Json::object());
  const Json status = q->value("status", Json::object());
  h.capability = Amounts(spec.value("capability", Json::object()));
  h.deserved = Amounts(spec.value("deserved", Json::object()));
  h.guarantee = Amounts(spec.value("guarantee", Json::object()).value("resource", Json::object()));
  h.allocated = Amounts(status.value("allocated", Json::object()));
  h.state = status.value("state", "Open");

  StatusOr<std::vector<Json>> queues = client.List(kQueues, "", {});
  if (!queues.ok()) {
    h.error = "list queues: " + queues.status().message();
    return h;
  }
  for (const Json& other : *queues) {
    if (kube::ObjectName(other) == queue) continue;
    Add(&h.others_guarantee, Amounts(other.value("spec", Json::object())
                                         .value("guarantee", Json::object())
                                         .value("resource", Json::object())));
  }

  ReadNodes(client, &h);
  return h;
}

core::QueueHeadroom ReadNodeHeadroom(const kube::KubeClient& client, const QueueJobShape& job) {
  core::QueueHeadroom h;
  SetShape(job, &h);
  ReadNodes(client, &h);
  return h;
}

}  // namespace trimtab::op
