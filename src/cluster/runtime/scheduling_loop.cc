#include "cluster/runtime/scheduling_loop.h"

#include <algorithm>
#include <string_view>
#include <thread>
#include <unordered_map>

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

// A string field as a view into `object` ("" when absent).
std::string_view View(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = At(object, path);
  return v.is_string() ? std::string_view(v.get_ref<const std::string&>()) : std::string_view();
}

// Sorts `pods` higher spec.priority first, then older, then by name.
void SortHigherPriorityFirst(std::vector<kube::ObjectPtr>* pods) {
  struct Keyed {
    int64_t priority;
    std::string_view created, name;
    kube::ObjectPtr pod;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(pods->size());
  for (kube::ObjectPtr& p : *pods) {
    keyed.push_back({Int(*p, {"spec", "priority"}), View(*p, {"metadata", "creationTimestamp"}),
                     View(*p, {"metadata", "name"}), std::move(p)});
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.created != b.created) return a.created < b.created;
    return a.name < b.name;
  });
  for (size_t i = 0; i < keyed.size(); ++i) (*pods)[i] = std::move(keyed[i].pod);
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
      controller_("scheduler", clock, 1, [this](const std::string&) { return Cycle(); }),
      dirty_(schedulers_.size(), 1),
      wake_at_(schedulers_.size()) {
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
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    const std::shared_ptr<Scheduler>& s = schedulers_[i];
    SchedulerContext context{.client = client_,
                             .clock = clock_,
                             .events = events_,
                             .request_cycle = [this, i] { TriggerFor(i); },
                             .pods = &informers_->Store(PodsGvr())};
    Status started = s->Start(context);
    if (!started.ok()) {
      Stop();
      return started.WithContext("scheduler " + std::string(s->name()));
    }
    started_.push_back(s.get());
  }
  {
    std::lock_guard<std::mutex> lock(bind_mu_);
    binders_stopping_ = false;
  }
  for (int i = 0; i < std::max(1, options_.bind_workers); ++i) {
    binders_.emplace_back([this] { BinderLoop(); });
  }
  controller_.Start();
  Trigger();
  return Status::Ok();
}

void SchedulingLoop::Stop() {
  controller_.Stop();
  {
    std::lock_guard<std::mutex> lock(bind_mu_);
    binders_stopping_ = true;
    bind_queue_.clear();  // bindings not started yet are dropped; the pods stay pending
  }
  bind_cv_.notify_all();
  for (std::thread& t : binders_) t.join();
  binders_.clear();
  for (Scheduler* s : started_) s->Stop();
  started_.clear();
}

void SchedulingLoop::Trigger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::fill(dirty_.begin(), dirty_.end(), 1);
  }
  controller_.Enqueue(kCycleKey);
}

void SchedulingLoop::TriggerFor(size_t index) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (index < dirty_.size()) dirty_[index] = 1;
  }
  controller_.Enqueue(kCycleKey);
}

size_t SchedulingLoop::OwnerOf(std::string_view scheduler_name) const {
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    if (schedulers_[i]->Serves(scheduler_name)) return i;
  }
  return schedulers_.size();
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
  if (!old_pod || At(*old_pod, {"spec"}) != At(*new_pod, {"spec"})) {
    const size_t owner = OwnerOf(Str(*new_pod, {"spec", "schedulerName"}));
    if (owner < schedulers_.size()) TriggerFor(owner);  // nobody serves it: nothing to do
  }
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
  TimePoint now = clock_->Now();
  // Which schedulers this cycle serves (see the header); the others keep their wake-ups.
  std::vector<char> due(schedulers_.size(), 0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < schedulers_.size(); ++i) {
      due[i] = dirty_[i] || (wake_at_[i] && now >= *wake_at_[i]);
      dirty_[i] = 0;
    }
  }
  std::optional<Duration> deferred;  // the earliest end of a NextCycleIn wait
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    if (!due[i]) continue;
    const Duration wait = schedulers_[i]->NextCycleIn(now);
    if (wait <= Duration::zero()) continue;
    due[i] = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      dirty_[i] = 1;  // still to do once the wait is over
    }
    if (!deferred || wait < *deferred) deferred = wait;
  }
  auto next_wake_of_all = [&]() -> Result {
    std::optional<Duration> next = deferred;
    for (const std::optional<TimePoint>& at : wake_at_) {
      if (!at) continue;
      const Duration d = std::max(Duration::zero(), *at - now);
      if (!next || d < *next) next = d;
    }
    return next ? Result::After(*next) : Result::Done();
  };
  if (std::none_of(due.begin(), due.end(), [](char d) { return d != 0; })) {
    return next_wake_of_all();
  }

  // Throttle (real time): triggers that arrive while we wait are served by this cycle.
  const auto since_last = std::chrono::steady_clock::now() - last_cycle_end_;
  if (since_last < options_.min_cycle_gap) {
    std::this_thread::sleep_for(options_.min_cycle_gap - since_last);
  }
  struct CycleEnd {
    std::chrono::steady_clock::time_point* at;
    ~CycleEnd() { *at = std::chrono::steady_clock::now(); }
  } cycle_end{&last_cycle_end_};

  now = clock_->Now();
  const std::vector<kube::ObjectPtr> nodes = informers_->Store(NodesGvr()).ListShared();
  const std::vector<kube::ObjectPtr> pods = informers_->Store(PodsGvr()).ListShared();

  // Into `pods` (the views point into the cached objects, which `pods` keeps alive).
  std::unordered_map<std::string_view, const kube::ObjectPtr*> by_uid;
  by_uid.reserve(pods.size());
  for (const kube::ObjectPtr& p : pods) by_uid[View(*p, {"metadata", "uid"})] = &p;
  // Per due scheduler: the earliest of its pods' back-offs, its retry_after.
  std::vector<std::optional<Duration>> wake(schedulers_.size());
  auto wake_in = [&](size_t i, Duration d) {
    if (!wake[i] || d < *wake[i]) wake[i] = d;
  };

  ClusterSnapshot snapshot = ClusterSnapshot::Of(nodes, pods);
  std::vector<std::vector<kube::ObjectPtr>> pending(schedulers_.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = assumed_.begin(); it != assumed_.end();) {
      auto pod = by_uid.find(it->first);
      bool settled = pod == by_uid.end() || !View(**pod->second, {"spec", "nodeName"}).empty() ||
                     (!it->second.in_flight && now - it->second.at > options_.assume_timeout);
      if (settled) {
        it = assumed_.erase(it);
      } else {
        if (it->second.pod) snapshot.Assume(it->second.pod, it->second.node);
        ++it;
      }
    }
    for (const kube::ObjectPtr& shared : pods) {
      const Json& pod = *shared;
      if (!IsPending(pod)) continue;
      if (!assumed_.empty() && assumed_.count(std::string(View(pod, {"metadata", "uid"})))) {
        continue;
      }
      const size_t owner = OwnerOf(View(pod, {"spec", "schedulerName"}));
      // Nobody serves it: stays Pending quietly. Not due: left for its scheduler's cycle.
      if (owner == schedulers_.size() || !due[owner]) continue;
      Duration wait{0};
      if (!Eligible(pod, now, &wait)) {
        wake_in(owner, wait);
        continue;
      }
      pending[owner].push_back(shared);
    }
  }

  for (size_t i = 0; i < schedulers_.size(); ++i) {
    if (!due[i]) continue;
    if (pending[i].empty() && !schedulers_[i]->RunsWithoutPending()) {
      wake_at_[i] = wake[i] ? std::optional<TimePoint>(now + *wake[i]) : std::nullopt;
      continue;
    }
    SortHigherPriorityFirst(&pending[i]);
    Scheduler& scheduler = *schedulers_[i];
    SchedulingDecision decision = scheduler.Schedule(snapshot, pending[i]);
    // Assume every binding now, then hand them to the binders by group, in order.
    std::vector<BindBatch> batches;
    std::map<std::string, size_t> batch_of_group;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (PodBindingDecision& b : decision.bindings) {
        auto found = by_uid.find(b.uid);
        const kube::ObjectPtr pod = found == by_uid.end() ? nullptr : *found->second;
        if (pod) snapshot.Assume(pod, b.node);
        backoff_.erase(b.uid);
        assumed_[b.uid] = Assumed{.node = b.node, .at = now, .in_flight = true, .pod = pod};
        size_t index = batches.size();
        if (!b.group.empty()) index = batch_of_group.emplace(b.group, index).first->second;
        if (index == batches.size()) batches.push_back(BindBatch{.scheduler = &scheduler});
        batches[index].bindings.push_back(std::move(b));
        batches[index].pods.push_back(pod);
      }
    }
    if (!batches.empty()) {
      {
        std::lock_guard<std::mutex> lock(bind_mu_);
        for (BindBatch& batch : batches) bind_queue_.push_back(std::move(batch));
      }
      bind_cv_.notify_all();
    }
    for (const PodUnschedulableDecision& u : decision.unschedulable) {
      auto pod = by_uid.find(u.uid);
      MarkUnschedulable(scheduler, u, pod == by_uid.end() ? nullptr : pod->second->get(), now);
      wake_in(i, options_.initial_backoff);
    }
    if (decision.retry_after) wake_in(i, *decision.retry_after);
    wake_at_[i] = wake[i] ? std::optional<TimePoint>(now + *wake[i]) : std::nullopt;
  }
  return next_wake_of_all();
}

void SchedulingLoop::BinderLoop() {
  for (;;) {
    BindBatch batch;
    {
      std::unique_lock<std::mutex> lock(bind_mu_);
      bind_cv_.wait(lock, [this] { return binders_stopping_ || !bind_queue_.empty(); });
      if (binders_stopping_) return;
      batch = std::move(bind_queue_.front());
      bind_queue_.pop_front();
    }
    for (size_t i = 0; i < batch.bindings.size(); ++i) {
      {
        std::lock_guard<std::mutex> lock(bind_mu_);
        if (binders_stopping_) return;
      }
      Bind(*batch.scheduler, batch.bindings[i], batch.pods[i]);
    }
  }
}

void SchedulingLoop::Bind(Scheduler& scheduler, const PodBindingDecision& b,
                          const kube::ObjectPtr& pod) {
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", b.name}, {"namespace", b.ns}, {"uid", b.uid}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", b.node}}}};
  Status s = PostSubresource(*client_, PodsGvr(), b.ns, b.name, "binding", binding);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = assumed_.find(b.uid);
    if (!s.ok()) {
      if (it != assumed_.end()) assumed_.erase(it);  // offered again at the next cycle
    } else if (it != assumed_.end()) {
      it->second.in_flight = false;
      it->second.at = clock_->Now();
    }
  }
  if (!s.ok()) {
    spdlog::info("{}: binding {}/{} to {} failed: {}", scheduler.name(), b.ns, b.name, b.node,
                 s.ToString());
    Trigger();
    return;
  }
  if (pod) {
    events_->Record(*pod, {.component = std::string(scheduler.name())}, "Normal", "Scheduled",
                    "Successfully assigned " + b.ns + "/" + b.name + " to " + b.node);
  }
}

void SchedulingLoop::MarkUnschedulable(Scheduler& scheduler, const PodUnschedulableDecision& u,
                                       const Json* pod, TimePoint now) {
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
  if (!pod) return;
  Json conditions = At(*pod, {"status", "conditions"});
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
  events_->Record(*pod, {.component = std::string(scheduler.name())}, "Warning", "FailedScheduling",
                  u.message);
}

}  // namespace trimtab::cluster::runtime
