#include "core/scheduling/snapshot.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "core/scheduling/snapshot_internal.h"

namespace trimtab::core::scheduling {
using namespace snapshot_internal;

StatusOr<int64_t> ParseTimestamp(const Json& value, const std::string& path) {
  if (value.is_null()) return int64_t{0};
  if (!value.is_string()) return InvalidArgumentError(path + ": expected an RFC 3339 string");
  const std::string& s = value.get_ref<const std::string&>();
  if (s.empty()) return int64_t{0};
  auto t = ParseRfc3339(s);
  if (!t.ok()) return InvalidArgumentError(path + ": " + t.status().message());
  return ToUnixMillis(*t) / 1000;
}

int Snapshot::FindNode(std::string_view name) const {
  auto it = std::lower_bound(node_names.begin(), node_names.end(), name);
  if (it == node_names.end() || *it != name) return -1;
  return static_cast<int>(it - node_names.begin());
}

int Snapshot::FindQueue(std::string_view name) const {
  for (const QueueInfo& q : queues) {
    if (q.name == name) return q.id;
  }
  return -1;
}

namespace {

Status ReadPriorityClasses(const std::vector<const Json*>& list, PriorityClasses* out) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& pc = *list[i];
    const std::string name = StringOr(Field(pc, "metadata"), "name", "");
    const std::string path = ObjectLabel("priorityClasses", i, "", name);
    if (name.empty()) return InvalidArgumentError(path + ": metadata.name: Required value");
    int64_t value = 0;
    bool present = false;
    TRIMTAB_RETURN_IF_ERROR(GetInt(pc, "value", path, &value, &present));
    if (!present) return InvalidArgumentError(path + ": value: Required value");
    out->values[name] = static_cast<int32_t>(value);
    const Json& gd = Field(pc, "globalDefault");
    if (gd.is_boolean() && gd.get<bool>()) {
      out->has_default = true;
      out->default_value = static_cast<int32_t>(value);
    }
  }
  return Status::Ok();
}

Status ReadNodes(const std::vector<const Json*>& list, Snapshot* snap) {
  std::vector<const Json*> ready;
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string name = StringOr(Field(*list[i], "metadata"), "name", "");
    if (name.empty()) {
      return InvalidArgumentError(ObjectLabel("nodes", i, "", "") + ": metadata.name: Required value");
    }
    if (!NodeIsReady(*list[i])) {
      snap->skipped.push_back({"Node", "", name, "Ready condition is not True"});
      continue;
    }
    ready.push_back(list[i]);
  }
  std::vector<size_t> order(ready.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto name_of = [&](size_t i) { return StringOr(Field(*ready[i], "metadata"), "name", ""); };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return name_of(a) < name_of(b); });
  for (size_t k = 0; k < order.size(); ++k) {
    const Json& node = *ready[order[k]];
    NodeInfo n;
    n.id = static_cast<int>(snap->nodes.size());
    n.name = name_of(order[k]);
    const std::string path = "nodes[" + n.name + "]";
    if (!snap->nodes.empty() && snap->nodes.back().name == n.name) {
      return InvalidArgumentError(path + ": duplicate node name");
    }
    TRIMTAB_ASSIGN_OR_RETURN(n.facts, NodePlacementFromJson(node, path));
    const Json& alloc = Field(Field(node, "status"), "allocatable");
    TRIMTAB_RETURN_IF_ERROR(
        ResourcesFromJson(alloc, path + ".status.allocatable", &snap->names, &n.allocatable));
    if (!alloc.is_object() || !alloc.contains("pods")) n.allocatable[kPods] = 110;
    n.idle = n.allocatable;
    snap->total_resource.Add(n.allocatable);
    snap->node_names.push_back(n.name);
    snap->nodes.push_back(std::move(n));
  }
  return Status::Ok();
}

Status ReadQueues(const std::vector<const Json*>& list, Snapshot* snap) {
  std::map<std::string, const Json*> by_name;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string name = StringOr(Field(*list[i], "metadata"), "name", "");
    if (name.empty()) {
      return InvalidArgumentError(ObjectLabel("queues", i, "", "") + ": metadata.name: Required value");
    }
    if (!by_name.emplace(name, list[i]).second) {
      return InvalidArgumentError(ObjectLabel("queues", i, "", name) + ": duplicate queue name");
    }
  }
  for (const auto& [name, qj] : by_name) {
    const Json& q = *qj;
    const std::string path = "queues[" + name + "]";
    QueueInfo info;
    info.id = static_cast<int>(snap->queues.size());
    info.name = name;
    const Json& meta = Field(q, "metadata");
    info.uid = StringOr(meta, "uid", name);
    TRIMTAB_ASSIGN_OR_RETURN(info.creation, ParseTimestamp(Field(meta, "creationTimestamp"),
                                                           path + ".metadata.creationTimestamp"));
    const Json& spec = Field(q, "spec");
    const std::string sp = path + ".spec";
    int64_t weight = 1, priority = 0;
    TRIMTAB_RETURN_IF_ERROR(GetInt(spec, "weight", sp, &weight));
    if (weight <= 0) weight = 1;  // the webhook defaults 0 to 1
    TRIMTAB_RETURN_IF_ERROR(GetInt(spec, "priority", sp, &priority));
    info.weight = static_cast<int32_t>(weight);
    info.priority = static_cast<int32_t>(priority);
    const Json& cap = Field(spec, "capability");
    if (cap.is_object() && !cap.empty()) {
      info.has_capability = true;
      TRIMTAB_RETURN_IF_ERROR(
          ResourcesFromJson(cap, sp + ".capability", &snap->names, &info.capability));
      for (auto it = cap.begin(); it != cap.end(); ++it) {
        int dim = snap->names.Find(it.key());
        if (dim >= 0) info.capability_named[dim] = true;
      }
    }
    const Json& guarantee = Field(Field(spec, "guarantee"), "resource");
    if (guarantee.is_object() && !guarantee.empty()) {
      info.has_guarantee = true;
      TRIMTAB_RETURN_IF_ERROR(ResourcesFromJson(guarantee, sp + ".guarantee.resource",
                                                &snap->names, &info.guarantee));
      for (auto it = guarantee.begin(); it != guarantee.end(); ++it) {
        int dim = snap->names.Find(it.key());
        if (dim >= 0) info.guarantee_named[dim] = true;
      }
    }
    const Json& deserved = Field(spec, "deserved");
    if (deserved.is_object() && !deserved.empty()) {
      info.has_deserved = true;
      TRIMTAB_RETURN_IF_ERROR(
          ResourcesFromJson(deserved, sp + ".deserved", &snap->names, &info.deserved_spec));
      for (auto it = deserved.begin(); it != deserved.end(); ++it) {
        int dim = snap->names.Find(it.key());
        if (dim >= 0) info.deserved_named[dim] = true;
      }
    }
    const Json& reclaimable = Field(spec, "reclaimable");
    if (!reclaimable.is_null()) {
      if (!reclaimable.is_boolean()) {
        return InvalidArgumentError(sp + ".reclaimable: expected a boolean");
      }
      info.reclaimable = reclaimable.get<bool>();
    }
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "parent", sp, &info.parent));
    info.input_status = Field(q, "status");
    std::string state;
    TRIMTAB_RETURN_IF_ERROR(GetString(info.input_status, "state", path + ".status", &state));
    info.state = state.empty() ? "Open" : state;
    snap->queues.push_back(std::move(info));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Snapshot> BuildSnapshot(const ClusterObjects& objects, const SessionOptions& options) {
  return BuildSnapshot(RefsOf(objects), options);
}

StatusOr<Snapshot> BuildSnapshot(const ClusterObjectRefs& objects, const SessionOptions& options) {
  Snapshot snap;
  PriorityClasses classes;
  TRIMTAB_RETURN_IF_ERROR(ReadPriorityClasses(objects.priority_classes, &classes));
  snap.default_priority = classes.has_default ? classes.default_value : 0;
  TRIMTAB_RETURN_IF_ERROR(ReadNodes(objects.nodes, &snap));
  TRIMTAB_RETURN_IF_ERROR(ReadQueues(objects.queues, &snap));
  TRIMTAB_RETURN_IF_ERROR(ReadPodGroups(objects.pod_groups, options, classes, &snap));
  TRIMTAB_RETURN_IF_ERROR(ReadPods(objects.pods, options, classes, &snap));
  return snap;
}

// ---- PodGroups ----

namespace snapshot_internal {

Status ReadPodGroups(const std::vector<const Json*>& list, const SessionOptions& options,
                     const PriorityClasses& classes, Snapshot* snap) {
  std::map<std::pair<std::string, std::string>, size_t> by_key;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& meta = Field(*list[i], "metadata");
    const std::string name = StringOr(meta, "name", "");
    const std::string ns = StringOr(meta, "namespace", "default");
    if (name.empty()) {
      return InvalidArgumentError(ObjectLabel("podGroups", i, "", "") + ": metadata.name: Required value");
    }
    if (!by_key.emplace(std::make_pair(ns, name), i).second) {
      return InvalidArgumentError(ObjectLabel("podGroups", i, ns, name) + ": duplicate PodGroup");
    }
  }
  for (const auto& [key, index] : by_key) {
    const Json& pg = *list[index];
    const auto& [ns, name] = key;
    const std::string path = ObjectLabel("podGroups", index, ns, name);
    const Json& meta = Field(pg, "metadata");
    const Json& spec = Field(pg, "spec");
    JobInfo job;
    job.ns = ns;
    job.name = name;
    job.key = ns + "/" + name;
    job.uid = StringOr(meta, "uid", job.key);
    TRIMTAB_ASSIGN_OR_RETURN(job.creation, ParseTimestamp(Field(meta, "creationTimestamp"),
                                                          path + ": metadata.creationTimestamp"));
    int64_t min_member = 0;
    TRIMTAB_RETURN_IF_ERROR(GetInt(spec, "minMember", path + ": spec", &min_member));
    if (min_member < 0) return InvalidArgumentError(path + ": spec.minMember: must be >= 0");
    job.min_available = static_cast<int32_t>(min_member);
    const Json& mtm = Field(spec, "minTaskMember");
    if (mtm.is_object()) {
      for (auto it = mtm.begin(); it != mtm.end(); ++it) {
        if (!it->is_number_integer()) {
          return InvalidArgumentError(path + ": spec.minTaskMember." + it.key() +
                                      ": expected an integer");
        }
        job.task_min_available[it.key()] = it->get<int32_t>();
        job.task_min_available_total += it->get<int32_t>();
      }
    }
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "queue", path + ": spec", &job.queue_name));
    if (job.queue_name.empty()) job.queue_name = options.default_queue;
    std::string pc;
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "priorityClassName", path + ": spec", &pc));
    job.priority = snap->default_priority;
    if (!pc.empty()) {
      auto it = classes.values.find(pc);
      if (it != classes.values.end()) {
        job.priority = it->second;
      } else {
        snap->notes.push_back("snapshot: PodGroup " + job.key + ": priorityClassName \"" + pc +
                              "\" not found, job priority " + std::to_string(job.priority));
        // Volcano falls back silently; the group's events say why its priority is not the one
        // asked for.
        job.events.push_back({"Warning", "PriorityClassNotFound",
                              "spec.priorityClassName: PriorityClass \"" + pc +
                                  "\" not found, the group gets priority " +
                                  std::to_string(job.priority)});
      }
    }
    const Json& min_res = Field(spec, "minResources");
    if (!min_res.is_null()) {
      job.has_min_resources = true;
      TRIMTAB_RETURN_IF_ERROR(ResourcesFromJson(min_res, path + ": spec.minResources",
                                                &snap->names, &job.min_resources));
    }
    if (const std::string* v = AnnotationOrLabel(meta, kPreemptableKey)) {
      bool b = false;
      job.preemptable_set = true;
      job.preemptable = ParseGoBool(*v, &b) && b;
    }
    if (const std::string* v = AnnotationOrLabel(meta, kSlaWaitingTimeKey)) {
      std::optional<int64_t> seconds = ParseGoDurationSeconds(*v);
      if (seconds && *seconds >= 0) {
        job.sla_waiting_seconds = *seconds;
      } else {
        snap->notes.push_back("snapshot: PodGroup " + job.key + ": " + kSlaWaitingTimeKey +
                              " \"" + *v + "\" is not a duration; ignored");
      }
    }
    job.input_status = Field(pg, "status");
    std::string phase;
    TRIMTAB_RETURN_IF_ERROR(GetString(job.input_status, "phase", path + ": status", &phase));
    job.input_phase_name = phase;
    job.phase = job.input_phase = PhaseFromName(phase);
    const Json& conds = Field(job.input_status, "conditions");
    if (conds.is_array()) {
      for (const Json& c : conds) {
        Condition cond;
        cond.type = StringOr(c, "type", "");
        cond.status = StringOr(c, "status", "");
        cond.reason = StringOr(c, "reason", "");
        cond.message = StringOr(c, "message", "");
        cond.transition_id = StringOr(c, "transitionID", "");
        cond.last_transition_time = StringOr(c, "lastTransitionTime", "");
        job.conditions.push_back(std::move(cond));
      }
    }
    job.queue = snap->FindQueue(job.queue_name);
    if (job.queue < 0) {
      snap->skipped.push_back({"PodGroup", ns, name, "queue \"" + job.queue_name + "\" not found"});
      continue;
    }
    job.id = static_cast<int>(snap->jobs.size());
    snap->jobs.push_back(std::move(job));
  }
  return Status::Ok();
}

}  // namespace snapshot_internal
}  // namespace trimtab::core::scheduling
