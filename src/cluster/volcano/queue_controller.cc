#include "cluster/volcano/queue_controller.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "adapters/kube/object.h"
#include "cluster/runtime/object_util.h"
#include "cluster/volcano/volcano_crds.h"

namespace trimtab::cluster::volcano {

using runtime::At;
using runtime::Result;
using runtime::Str;

std::string NextQueueState(const std::string& queue, const std::string& current, int pod_groups) {
  if (queue == kRootQueue || current.empty() || current == "Open") return "Open";
  if (current == "Closing") return pod_groups == 0 ? "Closed" : "Closing";
  if (current == "Closed") return "Closed";
  return "Unknown";
}

QueueController::QueueController(const kube::KubeClient* client, Clock* clock,
                                 kube::Informer* queues, kube::Informer* pod_groups,
                                 std::string default_queue)
    : client_(client),
      clock_(clock),
      queues_(queues),
      pod_groups_(pod_groups),
      default_queue_(std::move(default_queue)),
      controller_("volcano-queue", clock, 1, [this](const std::string& q) { return Sync(q); }) {
  queues_->AddEventHandler(
      {.on_add = [this](const Json& q) { controller_.Enqueue(kube::ObjectName(q)); },
       .on_update = [this](const Json&, const Json& q) { controller_.Enqueue(kube::ObjectName(q)); },
       .on_delete = nullptr});
  pod_groups_->AddEventHandler(
      {.on_add = [this](const Json& pg) { EnqueueQueueOf(pg); },
       .on_update =
           [this](const Json& o, const Json& n) {
             if (At(o, {"status", "phase"}) == At(n, {"status", "phase"}) &&
                 At(o, {"spec", "queue"}) == At(n, {"spec", "queue"})) {
               return;
             }
             EnqueueQueueOf(o);
             EnqueueQueueOf(n);
           },
       .on_delete = [this](const Json& pg) { EnqueueQueueOf(pg); }});
}

QueueController::~QueueController() { Stop(); }

void QueueController::Start() { controller_.Start(); }
void QueueController::Stop() { controller_.Stop(); }

void QueueController::EnqueueQueueOf(const Json& pod_group) {
  controller_.Enqueue(Str(pod_group, {"spec", "queue"}, default_queue_));
}

Result QueueController::Sync(const std::string& name) {
  std::optional<Json> queue = queues_->store().GetByKey(name);
  if (!queue) return Result::Done();
  if (name != kRootQueue && Str(*queue, {"spec", "parent"}).empty()) {
    Json patch = {{"spec", {{"parent", kRootQueue}}}};
    auto patched = client_->Patch(QueuesGvr(), "", name, kube::PatchType::kMerge, patch.dump());
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
      return Result::Retry("setting spec.parent of Queue " + name + ": " +
                           patched.status().ToString());
    }
  }
  const TimePoint now = clock_->Now();
  if (auto last = last_write_.find(name);
      last != last_write_.end() && now < last->second + kCountsInterval) {
    return Result::After(last->second + kCountsInterval - now);
  }
  Json counts = {{"pending", 0}, {"inqueue", 0}, {"running", 0}, {"unknown", 0}, {"completed", 0}};
  int members = 0;
  for (const kube::ObjectPtr& shared : pod_groups_->store().ListShared()) {
    const Json& pg = *shared;
    if (Str(pg, {"spec", "queue"}, default_queue_) != name) continue;
    ++members;
    std::string phase = Str(pg, {"status", "phase"});
    if (phase.empty()) phase = "Pending";
    std::string key = phase;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (counts.contains(key)) counts[key] = counts[key].get<int>() + 1;
  }
  const std::string state = NextQueueState(name, Str(*queue, {"status", "state"}), members);
  Json status = counts;
  status["state"] = state;
  bool same = true;
  for (auto it = status.begin(); it != status.end(); ++it) {
    const Json& have = At(*queue, {"status", it.key()});
    same = same && (have == *it || (have.is_null() && *it == 0));
  }
  if (same) return Result::Done();
  last_write_[name] = now;
  auto written = client_->Patch(QueuesGvr(), "", name, kube::PatchType::kMerge,
                                Json{{"status", status}}.dump(), {.subresource = "status"});
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
    return Result::Retry("updating the status of Queue " + name + ": " +
                         written.status().ToString());
  }
  return Result::Done();
}

}  // namespace trimtab::cluster::volcano
