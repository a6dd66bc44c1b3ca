// Factories of the built-in scheduler plugins, one file each. Each follows the Volcano plugin
// of the same name (pkg/scheduler/plugins/<name>); docs/gang-scheduling.md lists what each
// registers and every difference. Registered by BuiltinPlugins() (builtin_plugins.cc).
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

using PluginPtr = StatusOr<std::unique_ptr<Plugin>>;

PluginPtr NewGangPlugin(const Json& args, const std::string& path);
PluginPtr NewPriorityPlugin(const Json& args, const std::string& path);
PluginPtr NewConformancePlugin(const Json& args, const std::string& path);
PluginPtr NewDrfPlugin(const Json& args, const std::string& path);
PluginPtr NewProportionPlugin(const Json& args, const std::string& path);
PluginPtr NewCapacityPlugin(const Json& args, const std::string& path);
PluginPtr NewOvercommitPlugin(const Json& args, const std::string& path);
PluginPtr NewPredicatesPlugin(const Json& args, const std::string& path);
PluginPtr NewNodeOrderPlugin(const Json& args, const std::string& path);
PluginPtr NewBinpackPlugin(const Json& args, const std::string& path);
PluginPtr NewSlaPlugin(const Json& args, const std::string& path);

// Shared by proportion and overcommit: the part of a group's minResources not yet covered by
// its allocated resources, per dimension minResources names (util.GetInqueueResource).
Resources InqueueResource(const JobInfo& job, const Resources& allocated);
// A queue's spec.capability as a limit: dimensions it does not name, and cpu or memory
// <= 0, are unlimited (proportion's and capacity's reading of it).
Resources QueueCapability(const QueueInfo& queue);
// realCapability of a queue: min(capability, (total - sum of all guarantees)+ + own guarantee).
Resources QueueRealCapability(const QueueInfo& queue, const Resources& total,
                              const Resources& total_guarantee);
// "queue resource quota insufficient: insufficient cpu, insufficient memory"
// (util.FormatResourceNames), the admission plugins' PodGroup event.
std::string QuotaInsufficientMessage(const std::vector<std::string>& failed);
// The admission refusal of `job`: QuotaInsufficientMessage, and when minResources alone exceeds
// the queue's real capability, that it never fits: "...; spec.minResources <cpu 6> exceeds the
// real capability <cpu 4> of queue \"small\": the group can never be admitted".
std::string AdmissionRefusal(const Session& ssn, const JobInfo& job,
                             const Resources& real_capability,
                             const std::vector<std::string>& failed);
// "queue \"q\" is Closed (status.state): it admits no new PodGroups", the event a group gets
// when its queue refuses it for not being Open.
std::string QueueNotOpenMessage(const QueueInfo& queue);

// Whether an Inqueue group, or a Running group with at least minMember allocated tasks,
// reserves the rest of its minResources (both plugins' accounting at session open).
bool ReservesMinResources(const JobInfo& job);

// What the jobs of one queue hold and want, as proportion and capacity add it up job by job when
// a session opens (upstream's loop over ssn.Jobs in their OnSessionOpen):
//   allocated  the requests of the tasks in an allocated status (AllocatedStatus)
//   request    those plus the requests of the pending tasks
//   inqueue    the rest of minResources a job reserves (ReservesMinResources, InqueueResource)
//   elastic    what a job holds beyond its minResources (all of it without minResources)
struct QueueUsage {
  Resources allocated, request, inqueue, elastic;

  void AddJob(Session& ssn, const JobInfo& job);
};

}  // namespace trimtab::core::scheduling
