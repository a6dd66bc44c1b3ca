// The pod reader of the snapshot: tasks of the session's jobs, and every pod that occupies a
// node (whichever scheduler placed it).
#include <algorithm>
#include <charconv>
#include <map>

#include <nlohmann/json.hpp>

#include "core/scheduling/snapshot_internal.h"

namespace trimtab::core::scheduling::snapshot_internal {
namespace {

void AccountOnNode(const TaskInfo& t, NodeInfo* n) {
  if (t.status == TaskStatus::kReleasing) {
    n->releasing.Add(t.resreq);
  }
  n->idle.Sub(t.resreq);
  n->used.Add(t.resreq);
  n->k8s_requested.Add(t.resreq);
  n->nonzero_cpu += t.nonzero_cpu;
  n->nonzero_memory += t.nonzero_memory;
  n->pod_count += 1;
  n->tasks.push_back(t.id);
}

bool Ours(const std::string& scheduler, const SessionOptions& options) {
  return std::find(options.scheduler_names.begin(), options.scheduler_names.end(), scheduler) !=
         options.scheduler_names.end();
}

}  // namespace

Status ReadPods(const std::vector<const Json*>& list, const SessionOptions& options,
                const PriorityClasses& classes, Snapshot* snap) {
  std::map<std::pair<std::string, std::string>, size_t> by_key;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& meta = Field(*list[i], "metadata");
    const std::string name = StringOr(meta, "name", "");
    const std::string ns = StringOr(meta, "namespace", "default");
    if (name.empty()) {
      return InvalidArgumentError(ObjectLabel("pods", i, "", "") + ": metadata.name: Required value");
    }
    if (!by_key.emplace(std::make_pair(ns, name), i).second) {
      return InvalidArgumentError(ObjectLabel("pods", i, ns, name) + ": duplicate pod");
    }
  }
  std::map<std::string, int> job_by_key;
  for (const JobInfo& j : snap->jobs) job_by_key[j.key] = j.id;
  std::map<std::string, std::string> skipped_groups;  // key -> reason
  for (const Skipped& s : snap->skipped) {
    if (s.kind == "PodGroup") skipped_groups[s.ns + "/" + s.name] = s.reason;
  }
  snap->placements.emplace_back();  // the shared empty placement
  const PodPlacement* empty_placement = &snap->placements.front();

  // Session tasks first, foreign pods after: two passes over the sorted pods.
  struct Pending {
    TaskInfo task;
  };
  std::vector<Pending> session_tasks, foreign;
  for (const auto& [key, index] : by_key) {
    const Json& pod = *list[index];
    const auto& [ns, name] = key;
    const std::string label = ObjectLabel("pods", index, ns, name);
    const Json& meta = Field(pod, "metadata");
    const Json& spec = Field(pod, "spec");
    const Json& status = Field(pod, "status");
    Pending p;
    TaskInfo& t = p.task;
    t.ref = {ns, name, StringOr(meta, "uid", ns + "/" + name)};
    TRIMTAB_ASSIGN_OR_RETURN(t.creation, ParseTimestamp(Field(meta, "creationTimestamp"),
                                                        label + ": metadata.creationTimestamp"));
    const bool deleting = !Field(meta, "deletionTimestamp").is_null();
    std::string scheduler = "default-scheduler", node_name, phase;
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "schedulerName", label + ": spec", &scheduler));
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "nodeName", label + ": spec", &node_name));
    TRIMTAB_RETURN_IF_ERROR(GetString(status, "phase", label + ": status", &phase));
    TRIMTAB_RETURN_IF_ERROR(
        PodRequests(spec, label + ": spec", &snap->names, &t.resreq, &t.nonzero_cpu,
                    &t.nonzero_memory));
    t.best_effort = t.resreq.IsEmpty();
    t.status = StatusFromPod(phase, !node_name.empty(), deleting);
    t.deleting = deleting;
    t.name_index = NameIndex(name);
    if (!node_name.empty()) t.node = snap->FindNode(node_name);

    std::string group;
    if (const Json& ann = Field(meta, "annotations"); ann.is_object()) {
      auto it = ann.find(kGroupNameAnnotation);
      if (it != ann.end() && it->is_string()) group = it->get<std::string>();
    }
    const bool ours = Ours(scheduler, options);
    int job = -1;
    if (ours && !group.empty()) {
      const std::string job_key = ns + "/" + group;
      auto it = job_by_key.find(job_key);
      if (it != job_by_key.end()) {
        job = it->second;
      } else if (t.status == TaskStatus::kPending) {
        auto sk = skipped_groups.find(job_key);
        snap->skipped.push_back(
            {"Pod", ns, name,
             sk != skipped_groups.end() ? "PodGroup " + job_key + " skipped: " + sk->second
                                        : "PodGroup " + job_key + " not found"});
      }
    } else if (ours && t.status == TaskStatus::kPending) {
      snap->skipped.push_back({"Pod", ns, name,
                               std::string("no ") + kGroupNameAnnotation +
                                   " annotation (Volcano's controller would create its PodGroup)"});
    }
    if (job < 0) {
      t.placement = empty_placement;
      // Only pods that occupy a node matter from here on.
      if (t.node >= 0 && t.status != TaskStatus::kSucceeded && t.status != TaskStatus::kFailed) {
        foreign.push_back(std::move(p));
      }
      continue;
    }
    t.job = job;
    if (const std::string* role = AnnotationOrLabel(meta, kTaskSpecKey)) t.role = *role;
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "priorityClassName", label + ": spec", &t.priority_class));
    int64_t priority = 0;
    bool has_priority = false;
    TRIMTAB_RETURN_IF_ERROR(GetInt(spec, "priority", label + ": spec", &priority, &has_priority));
    if (!has_priority) {
      priority = classes.has_default ? classes.default_value : 0;
      auto it = classes.values.find(t.priority_class);
      if (!t.priority_class.empty() && it != classes.values.end()) priority = it->second;
    }
    t.priority = static_cast<int32_t>(priority);
    if (const Json& ann = Field(meta, "annotations"); ann.is_object()) {
      auto it = ann.find(kTaskPriorityAnnotation);
      if (it != ann.end() && it->is_string()) {
        const std::string& s = it->get_ref<const std::string&>();
        int32_t v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc() && end == s.data() + s.size()) t.priority = v;
      }
    }
    if (const std::string* v = AnnotationOrLabel(meta, kPreemptableKey)) {
      bool b = false;
      t.preemptable = ParseGoBool(*v, &b) && b;
    }
    std::string policy;
    TRIMTAB_RETURN_IF_ERROR(GetString(spec, "preemptionPolicy", label + ": spec", &policy));
    t.preempt_never = policy == "Never";
    t.critical = t.priority_class == "system-cluster-critical" ||
                 t.priority_class == "system-node-critical" || ns == "kube-system";
    const Json& gates = Field(spec, "schedulingGates");
    t.sch_gated = gates.is_array() && !gates.empty();
    TRIMTAB_RETURN_IF_ERROR(GetString(status, "nominatedNodeName", label + ": status",
                                      &t.nominated_node));
    TRIMTAB_ASSIGN_OR_RETURN(PodPlacement placement, PodPlacementFromJson(spec, label + ": spec"));
    if (placement.Empty()) {
      t.placement = empty_placement;
    } else {
      snap->placements.push_back(std::move(placement));
      t.placement = &snap->placements.back();
    }
    // A pod bound to a node the session does not know (not Ready, or absent) keeps its status;
    // it is not on any of the session's nodes.
    session_tasks.push_back(std::move(p));
  }

  snap->tasks.reserve(session_tasks.size() + foreign.size());
  for (auto* group : {&session_tasks, &foreign}) {
    for (Pending& p : *group) {
      TaskInfo& t = p.task;
      t.id = static_cast<int>(snap->tasks.size());
      if (t.job >= 0) {
        JobInfo& job = snap->jobs[t.job];
        job.tasks.push_back(t.id);
        job.count[static_cast<int>(t.status)]++;
        if (t.status == TaskStatus::kPending && t.best_effort) job.pending_best_effort++;
        job.total_request.Add(t.resreq);
        if (AllocatedStatus(t.status)) job.allocated.Add(t.resreq);
      }
      if (t.node >= 0 && t.status != TaskStatus::kSucceeded && t.status != TaskStatus::kFailed) {
        AccountOnNode(t, &snap->nodes[t.node]);
      }
      snap->tasks.push_back(std::move(t));
    }
  }
  return Status::Ok();
}

}  // namespace trimtab::core::scheduling::snapshot_internal
