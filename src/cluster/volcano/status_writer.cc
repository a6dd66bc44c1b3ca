#include "cluster/volcano/status_writer.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kube/object.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "cluster/volcano/session_adapter.h"
#include "cluster/volcano/volcano_crds.h"

namespace trimtab::cluster::volcano {

using runtime::Result;
using runtime::Str;

namespace {

constexpr char kPodGroupKey[] = "podgroup:";
constexpr char kQueueKey[] = "queue:";
constexpr char kPodKey[] = "pod:";
constexpr char kEvictKey[] = "evict:";

bool HasPrefix(const std::string& key, const char* prefix, std::string* rest) {
  const std::string p(prefix);
  if (key.rfind(p, 0) != 0) return false;
  *rest = key.substr(p.size());
  return true;
}

}  // namespace

VolcanoStatusWriter::VolcanoStatusWriter(const kube::KubeClient* client, Clock* clock,
                                         runtime::EventRecorder* events, std::string component,
                                         StatusWriterCaches caches)
    : client_(client),
      clock_(clock),
      events_(events),
      component_(std::move(component)),
      caches_(caches),
      controller_("volcano-status", clock, 2, [this](const std::string& key) { return Sync(key); }) {}

VolcanoStatusWriter::~VolcanoStatusWriter() { Stop(); }

void VolcanoStatusWriter::Start() { controller_.Start(); }
void VolcanoStatusWriter::Stop() { controller_.Stop(); }

Json VolcanoStatusWriter::InvolvedPodGroup(const std::string& ns, const std::string& name) const {
  if (caches_.pod_groups) {
    if (auto pg = caches_.pod_groups->GetByKey(kube::ObjectKey(ns, name))) return *pg;
  }
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"namespace", ns}, {"name", name}}}};
}

void VolcanoStatusWriter::Apply(const core::scheduling::SessionResult& result) {
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& pg : result.pod_groups) {
      for (const auto& e : pg.events) {
        events_->Record(InvolvedPodGroup(pg.ns, pg.name), {.component = component_}, e.type,
                        e.reason, e.message);
      }
      if (!pg.changed) continue;
      const std::string key = kube::ObjectKey(pg.ns, pg.name);
      pod_groups_[key] = pg;
      keys.push_back(kPodGroupKey + key);
    }
    // A PodGroup the session left out (its queue does not exist, ...): Volcano only logs it;
    // here its events say why, so `kubectl describe podgroup` shows it.
    for (const auto& skipped : result.skipped) {
      if (skipped.kind != "PodGroup") continue;
      events_->Record(InvolvedPodGroup(skipped.ns, skipped.name), {.component = component_},
                      "Warning", "Unschedulable", skipped.reason);
    }
    for (const auto& q : result.queues) {
      queues_[q.name] = q;
      keys.push_back(kQueueKey + q.name);
    }
    for (const auto& u : result.unschedulable) {
      const std::string key = kube::ObjectKey(u.pod.ns, u.pod.name);
      pods_[key] = u;
      keys.push_back(kPodKey + key);
    }
    // Forget evictions of pods that are gone; never evict the same pod twice.
    if (!evicted_.empty() && caches_.pods) {
      std::set<std::string> existing;
      for (const kube::ObjectPtr& p : caches_.pods->ListShared()) {
        existing.insert(Str(*p, {"metadata", "uid"}));
      }
      std::erase_if(evicted_, [&](const std::string& uid) { return !existing.count(uid); });
    }
    for (const auto& e : result.evictions) {
      if (!evicted_.insert(e.pod.uid).second) continue;
      const std::string key = kube::ObjectKey(e.pod.ns, e.pod.name);
      evictions_[key] = e;
      keys.push_back(kEvictKey + key);
    }
  }
  for (const std::string& key : keys) controller_.Enqueue(key);
}

Result VolcanoStatusWriter::Sync(const std::string& key) {
  std::string rest;
  if (HasPrefix(key, kPodGroupKey, &rest)) return WritePodGroup(rest);
  if (HasPrefix(key, kQueueKey, &rest)) return WriteQueue(rest);
  if (HasPrefix(key, kPodKey, &rest)) return WritePodCondition(rest);
  if (HasPrefix(key, kEvictKey, &rest)) return Evict(rest);
  return Result::Done();
}

Result VolcanoStatusWriter::WritePodGroup(const std::string& ns_name) {
  core::scheduling::PodGroupOutcome outcome;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pod_groups_.find(ns_name);
    if (it == pod_groups_.end()) return Result::Done();
    outcome = it->second;
  }
  std::optional<Json> current = caches_.pod_groups ? caches_.pod_groups->GetByKey(ns_name) : std::nullopt;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!current) break;  // deleted meanwhile
    std::optional<Json> updated = PodGroupWithStatus(*current, outcome);
    if (!updated) break;
    StatusOr<Json> written = client_->Update(PodGroupsGvr(), *updated);
    if (written.ok()) break;
    if (written.status().code() == StatusCode::kNotFound) break;
    if (written.status().code() != StatusCode::kConflict || attempt == 1) {
      return Result::Retry("updating the status of PodGroup " + ns_name + ": " +
                           written.status().ToString());
    }
    // Stale cache: read the PodGroup again and apply the same status to it.
    auto [ns, name] = kube::SplitObjectKey(ns_name);
    StatusOr<Json> fresh = client_->Get(PodGroupsGvr(), ns, name);
    if (!fresh.ok()) {
      if (fresh.status().code() == StatusCode::kNotFound) break;
      return Result::Retry("reading PodGroup " + ns_name + ": " + fresh.status().ToString());
    }
    current = *fresh;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pod_groups_.find(ns_name);
  if (it != pod_groups_.end() && it->second.phase == outcome.phase &&
      it->second.conditions == outcome.conditions) {
    pod_groups_.erase(it);
  }
  return Result::Done();
}

Result VolcanoStatusWriter::WriteQueue(const std::string& name) {
  core::scheduling::QueueOutcome outcome;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = queues_.find(name);
    if (it == queues_.end()) return Result::Done();
    outcome = it->second;
    queues_.erase(it);
  }
  std::optional<Json> current = caches_.queues ? caches_.queues->GetByKey(name) : std::nullopt;
  if (!current) return Result::Done();
  std::optional<Json> patch = QueueAllocatedPatch(*current, outcome);
  if (!patch) return Result::Done();
  StatusOr<Json> written = client_->Patch(QueuesGvr(), "", name, kube::PatchType::kMerge,
                                          patch->dump(), {.subresource = "status"});
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
    std::lock_guard<std::mutex> lock(mu_);
    queues_.emplace(name, outcome);  // unless a newer one came meanwhile
    return Result::Retry("updating status.allocated of Queue " + name + ": " +
                         written.status().ToString());
  }
  return Result::Done();
}

Result VolcanoStatusWriter::WritePodCondition(const std::string& ns_name) {
  core::scheduling::Unschedulable verdict;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(ns_name);
    if (it == pods_.end()) return Result::Done();
    verdict = it->second;
    pods_.erase(it);
  }
  std::optional<Json> pod = caches_.pods ? caches_.pods->GetByKey(ns_name) : std::nullopt;
  if (!pod || Str(*pod, {"metadata", "uid"}) != verdict.pod.uid ||
      !Str(*pod, {"spec", "nodeName"}).empty()) {
    return Result::Done();  // gone, replaced or bound meanwhile
  }
  std::optional<Json> patch =
      PodScheduledPatch(*pod, verdict.reason, verdict.message, runtime::NowString(clock_));
  if (!patch) return Result::Done();
  StatusOr<Json> written = client_->Patch(runtime::PodsGvr(), verdict.pod.ns, verdict.pod.name,
                                          kube::PatchType::kMerge, patch->dump(),
                                          {.subresource = "status"});
  if (!written.ok()) {
    if (written.status().code() == StatusCode::kNotFound) return Result::Done();
    return Result::Retry("updating the PodScheduled condition of " + ns_name + ": " +
                         written.status().ToString());
  }
  events_->Record(*pod, {.component = component_}, "Warning", "FailedScheduling", verdict.message);
  return Result::Done();
}

Result VolcanoStatusWriter::Evict(const std::string& ns_name) {
  core::scheduling::Eviction eviction;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = evictions_.find(ns_name);
    if (it == evictions_.end()) return Result::Done();
    eviction = it->second;
    evictions_.erase(it);
  }
  std::optional<Json> pod = caches_.pods ? caches_.pods->GetByKey(ns_name) : std::nullopt;
  if (!pod || Str(*pod, {"metadata", "uid"}) != eviction.pod.uid) return Result::Done();
  events_->Record(*pod, {.component = component_}, "Warning", "Evict",
                  "Pod is evicted, because of " + eviction.message);
  const std::string group =
      Str(*pod, {"metadata", "annotations", "scheduling.k8s.io/group-name"});
  if (!group.empty()) {
    events_->Record(InvolvedPodGroup(eviction.pod.ns, group), {.component = component_}, "Normal",
                    "Evict", eviction.message);
  }
  Json body = {{"apiVersion", "policy/v1"},
               {"kind", "Eviction"},
               {"metadata", {{"name", eviction.pod.name}, {"namespace", eviction.pod.ns}}},
               {"deleteOptions", {{"preconditions", {{"uid", eviction.pod.uid}}}}}};
  Status s = runtime::PostSubresource(*client_, runtime::PodsGvr(), eviction.pod.ns,
                                      eviction.pod.name, "eviction", body);
  if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
    spdlog::info("{}: evicting {} failed: {}", component_, ns_name, s.ToString());
    std::lock_guard<std::mutex> lock(mu_);
    evictions_.emplace(ns_name, eviction);
    return Result::Retry("evicting " + ns_name + ": " + s.ToString());
  }
  spdlog::info("{}: evicted {} ({}: {})", component_, ns_name, eviction.action, eviction.message);
  return Result::Done();
}

}  // namespace trimtab::cluster::volcano
