#include "cluster/runtime/scheduling_loop.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

bool IsPending(const Json& pod) {
  if (!Str(pod, {"spec", "nodeName"}).empty() || IsDeleting(pod) || IsPodTerminal(pod)) return false;
  const Json& gates = At(pod, {"spec", "schedulingGates"});
  return !(gates.is_array() && !gates.empty());
}

// The parts of a Node the filters read.
Json SchedulingView(const Json& node) {
  return {{"labels", At(node, {"metadata", "labels"})},
          {"taints", At(node, {"spec", "taints"})},
          {"unschedulable", At(node, {"spec", "unschedulable"})},
          {"allocatable", At(node, {"status", "allocatable"})}};
}

bool HigherPriorityFirst(const Json& a, const Json& b) {
  int64_t pa = Int(a, {"spec", "priority"}), pb = Int(b, {"spec", "priority"});
  if (pa != pb) return pa > pb;
  std::string ca = Str(a, {"metadata", "creationTimestamp"});
  std::string cb = Str(b, {"metadata", "creationTimestamp"});
  if (ca != cb) return ca < cb;
  return Str(a, {"metadata", "name"}) < Str(b, {"metadata", "name"});
}

}  // namespace

SchedulingLoop::SchedulingLoop(const kube::KubeClient* client, InformerSet* informers,
                               EventRecorder* events, Clock* clock,
                               std::vector<std::shared_ptr<Scheduler>> schedulers,
                               SchedulingLoopOptions options)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      schedulers_(std::move(schedulers)),
      options_(options),
      controller_("scheduler", clock, 1, [this](const std::string&) { return Cycle(); }) {
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = [this](const Json& p) { OnPodChange(nullptr, &p); },
       .on_update = [this](const Json& o, const Json& n) { OnPodChange(&o, &n); },
       .on_delete = [this](const Json& p) { OnPodChange(&p, nullptr); }});
  informers_->Get(NodesGvr())->AddEventHandler(
      {.on_add = [this](const Json&) { ClusterChanged(); },
       .on_update =
           [this](const Json& o, const Json& n) {
             if (SchedulingView(o) != SchedulingView(n)) ClusterChanged();
           },
       .on_delete = [this](const Json&) { ClusterChanged(); }});
}

SchedulingLoop::~SchedulingLoop() { Stop(); }

Status SchedulingLoop::Start() {
  SchedulerContext context{.client = client_,
                           .clock = clock_,
                           .events = events_,
                           .request_cycle = [this] { Trigger(); },
                           .pods = &informers_->Store(PodsGvr())};
  for (auto& s : schedulers_) {
    Status started = s->Start(context);
    if (!started.ok()) {
      Stop();
      return started.WithContext("scheduler " + std::string(s->name()));
    }
    started_.push_back(s.get());
  }
  controller_.Start();
  Trigger();
  return Status::Ok();
}

void SchedulingLoop::Stop() {
  controller_.Stop();
  for (Scheduler* s : started_) s->Stop();
  started_.clear();
}

void SchedulingLoop::ClusterChanged() {
  cluster_generation_.fetch_add(1);
  Trigger();
}

void SchedulingLoop::OnPodChange(const Json* old_pod, const Json* new_pod) {
  if (!new_pod) {  // deleted: its resources (if bound) are free again
    std::lock_guard<std::mutex> lock(mu_);
    std::string uid = Str(*old_pod, {"metadata", "uid"});
    backoff_.erase(uid);
    assumed_.erase(uid);
  }
  bool was_bound = old_pod && !Str(*old_pod, {"spec", "nodeName"}).empty();
  if (!new_pod) {
    if (was_bound && !IsPodTerminal(*old_pod)) ClusterChanged();
    return;
  }
  if (old_pod && was_bound && !IsPodTerminal(*old_pod) && IsPodTerminal(*new_pod)) {
    ClusterChanged();  // a finished pod frees its requests
    return;
  }
  if (!IsPending(*new_pod)) return;
  if (old_pod && At(*old_pod, {"spec"}) != At(*new_pod, {"spec"})) {
    std::lock_guard<std::mutex> lock(mu_);
    backoff_.erase(Str(*new_pod, {"metadata", "uid"}));  // changed spec: try again now
  }
  if (!old_pod || At(*old_pod, {"spec"}) != At(*new_pod, {"spec"})) Trigger();
}

bool SchedulingLoop::Eligible(const Json& pod, TimePoint now, Duration* wait) {
  auto it = backoff_.find(Str(pod, {"metadata", "uid"}));
  if (it == backoff_.end()) return true;
  const Backoff& b = it->second;
  if (now < b.retry_at) {
    *wait = b.retry_at - now;
    return false;
  }
  if (b.cluster_generation != cluster_generation_.load()) return true;
  TimePoint flush_at = b.last_attempt + options_.unschedulable_flush;
  if (now >= flush_at) return true;
  *wait = flush_at - now;
  return false;
}

Result SchedulingLoop::Cycle() {
  const TimePoint now = clock_->Now();
  auto nodes = informers_->Store(NodesGvr()).List(NodesGvr(), "", {});
  auto pods = informers_->Store(PodsGvr()).List(PodsGvr(), "", {});
  if (!nodes.ok() || !pods.ok()) return Result::Retry("reading the informer caches failed");

  std::map<std::string, Json> by_uid;
  for (const Json& p : *pods) by_uid[Str(p, {"metadata", "uid"})] = p;
  std::optional<Duration> next_wake;
  auto wake_in = [&](Duration d) {
    if (!next_wake || d < *next_wake) next_wake = d;
  };

  ClusterSnapshot snapshot(*nodes, *pods);
  std::vector<std::vector<Json>> pending(schedulers_.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = assumed_.begin(); it != assumed_.end();) {
      auto pod = by_uid.find(it->first);
      bool settled = pod == by_uid.end() || !Str(pod->second, {"spec", "nodeName"}).empty() ||
                     now - it->second.at > options_.assume_timeout;
      if (settled) {
        it = assumed_.erase(it);
      } else {
        snapshot.Assume(it->second.pod, it->second.node);
        ++it;
      }
    }
    for (const Json& pod : *pods) {
      if (!IsPending(pod) || assumed_.count(Str(pod, {"metadata", "uid"}))) continue;
      std::string wanted = Str(pod, {"spec", "schedulerName"});
      size_t owner = schedulers_.size();
      for (size_t i = 0; i < schedulers_.size(); ++i) {
        if (schedulers_[i]->Serves(wanted)) {
          owner = i;
          break;
        }
      }
      if (owner == schedulers_.size()) continue;  // nobody serves it: stays Pending quietly
      Duration wait{0};
      if (!Eligible(pod, now, &wait)) {
        wake_in(wait);
        continue;
      }
      pending[owner].push_back(pod);
    }
  }

  for (size_t i = 0; i < schedulers_.size(); ++i) {
    if (pending[i].empty() && !schedulers_[i]->RunsWithoutPending()) continue;
    std::sort(pending[i].begin(), pending[i].end(), HigherPriorityFirst);
    Scheduler& scheduler = *schedulers_[i];
    SchedulingDecision decision = scheduler.Schedule(snapshot, pending[i]);
    for (const PodBindingDecision& b : decision.bindings) {
      Bind(scheduler, b, by_uid);
      auto pod = by_uid.find(b.uid);
      if (pod != by_uid.end()) snapshot.Assume(pod->second, b.node);
    }
    for (const PodUnschedulableDecision& u : decision.unschedulable) {
      MarkUnschedulable(scheduler, u, by_uid, now);
      wake_in(options_.initial_backoff);
    }
    if (decision.retry_after) wake_in(*decision.retry_after);
  }
  return next_wake ? Result::After(*next_wake) : Result::Done();
}

void SchedulingLoop::Bind(Scheduler& scheduler, const PodBindingDecision& b,
                          const std::map<std::string, Json>& by_uid) {
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", b.name}, {"namespace", b.ns}, {"uid", b.uid}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", b.node}}}};
  Status s = PostSubresource(*client_, PodsGvr(), b.ns, b.name, "binding", binding);
  if (!s.ok()) {
    spdlog::info("{}: binding {}/{} to {} failed: {}", scheduler.name(), b.ns, b.name, b.node,
                 s.ToString());
    return;
  }
  auto pod = by_uid.find(b.uid);
  {
    std::lock_guard<std::mutex> lock(mu_);
    backoff_.erase(b.uid);
    assumed_[b.uid] = Assumed{b.node, clock_->Now(), pod == by_uid.end() ? Json() : pod->second};
  }
  if (pod != by_uid.end()) {
    events_->Record(pod->second, {.component = std::string(scheduler.name())}, "Normal",
                    "Scheduled", "Successfully assigned " + b.ns + "/" + b.name + " to " + b.node);
  }
}

void SchedulingLoop::MarkUnschedulable(Scheduler& scheduler, const PodUnschedulableDecision& u,
                                       const std::map<std::string, Json>& by_uid, TimePoint now) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Backoff& b = backoff_[u.uid];
    b.attempts += 1;
    Duration delay = options_.initial_backoff;
    for (int i = 1; i < b.attempts && delay < options_.max_backoff; ++i) delay *= 2;
    b.last_attempt = now;
    b.retry_at = now + std::min(delay, options_.max_backoff);
    b.cluster_generation = cluster_generation_.load();
  }
  auto pod = by_uid.find(u.uid);
  if (pod == by_uid.end()) return;
  Json conditions = At(pod->second, {"status", "conditions"});
  Json condition = {{"type", "PodScheduled"},
                    {"status", "False"},
                    {"lastProbeTime", nullptr},
                    {"reason", u.reason},
                    {"message", u.message}};
  if (SetCondition(&conditions, condition, FormatRfc3339(now))) {
    Json patch = {{"status", {{"conditions", conditions}}}};
    auto r = client_->Patch(PodsGvr(), u.ns, u.name, kube::PatchType::kMerge, patch.dump(),
                            {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      spdlog::info("{}: updating the PodScheduled condition of {}/{} failed: {}", scheduler.name(),
                   u.ns, u.name, r.status().ToString());
    }
  }
  events_->Record(pod->second, {.component = std::string(scheduler.name())}, "Warning",
                  "FailedScheduling", u.message);
}

}  // namespace trimtab::cluster::runtime
