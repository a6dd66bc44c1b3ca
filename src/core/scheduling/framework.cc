#include "core/scheduling/framework.h"

#include <algorithm>

#include "common/clock.h"

namespace trimtab::core::scheduling {

Session::Session(const SchedulerConfig& config, const SessionOptions& options, Snapshot snapshot)
    : config_(config), options_(options), snap_(std::move(snapshot)) {
  uid_ = options_.session_id.empty() ? "session-" + std::to_string(options_.now_unix_seconds)
                                     : options_.session_id;
}

Session::~Session() = default;

std::string Session::NowRfc3339() const {
  return FormatRfc3339(FromUnixMillis(options_.now_unix_seconds * 1000));
}

void Session::Log(std::string line) {
  if (options_.record_log) result_.log.push_back(std::move(line));
}

// ---- registration ----

void Session::AddJobOrderFn(std::string_view p, JobCompareFn fn) { job_order_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddTaskOrderFn(std::string_view p, TaskCompareFn fn) { task_order_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddQueueOrderFn(std::string_view p, QueueCompareFn fn) { queue_order_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddVictimQueueOrderFn(std::string_view p, VictimQueueCompareFn fn) { victim_queue_order_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddJobReadyFn(std::string_view p, JobBoolFn fn) { job_ready_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddJobPipelinedFn(std::string_view p, JobVoteFn fn) { job_pipelined_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddJobValidFn(std::string_view p, JobValidFn fn) { job_valid_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddJobEnqueueableFn(std::string_view p, JobVoteFn fn) { job_enqueueable_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddJobEnqueuedFn(std::string_view p, JobEnqueuedFn fn) { job_enqueued_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddJobStarvingFn(std::string_view p, JobBoolFn fn) { job_starving_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddOverusedFn(std::string_view p, QueueBoolFn fn) { overused_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddAllocatableFn(std::string_view p, QueueTaskFn fn) { allocatable_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddPreemptiveFn(std::string_view p, QueueTaskFn fn) { preemptive_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddPreemptableFn(std::string_view p, EvictableFn fn) { preemptable_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddReclaimableFn(std::string_view p, EvictableFn fn) { reclaimable_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddUnifiedEvictableFn(std::string_view p, UnifiedEvictableFn fn) { unified_evictable_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddPredicateFn(std::string_view p, PredicateFn fn) { predicate_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddNodeOrderFn(std::string_view p, NodeOrderFn fn) { node_order_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddBatchNodeOrderFn(std::string_view p, BatchNodeOrderFn fn) { batch_node_order_.by_plugin[std::string(p)] = std::move(fn); }
void Session::AddEventHandler(EventHandler handler) { event_handlers_.push_back(std::move(handler)); }

void Session::SetQueueDeserved(int queue, const Resources& deserved) {
  if (queue < 0 || queue >= static_cast<int>(result_.queues.size())) return;
  result_.queues[queue].deserved = ResourcesToJson(deserved, snap_.names);
}

template <typename Fn>
void Session::Compile(Point<Fn>& point, std::optional<bool> PluginOption::*flag) {
  point.compiled.clear();
  for (size_t t = 0; t < config_.tiers.size(); ++t) {
    for (const PluginOption& p : config_.tiers[t].plugins) {
      if (flag && !PluginOption::On(p.*flag)) continue;
      auto it = point.by_plugin.find(p.name);
      if (it != point.by_plugin.end()) point.compiled.emplace_back(t, &it->second);
    }
  }
}

template <typename Fn, typename Visit>
void Session::ForEach(const Point<Fn>& point, std::optional<bool> PluginOption::*,
                      Visit visit) const {
  for (const auto& [tier, fn] : point.compiled) {
    if (!visit(tier, *fn)) return;
  }
}

// ---- orders ----

int Session::JobOrderCompare(const JobInfo& l, const JobInfo& r) const {
  int res = 0;
  ForEach(job_order_, &PluginOption::enable_job_order, [&](size_t, const JobCompareFn& fn) {
    res = fn(l, r);
    return res == 0;
  });
  return res;
}

bool Session::JobOrderLess(const JobInfo& l, const JobInfo& r) const {
  if (const int res = JobOrderCompare(l, r); res != 0) return res < 0;
  if (l.creation != r.creation) return l.creation < r.creation;
  return l.key < r.key;  // Volcano's job UID is "namespace/name"
}

bool Session::TaskOrderLess(const TaskInfo& l, const TaskInfo& r) const {
  int res = 0;
  ForEach(task_order_, &PluginOption::enable_task_order, [&](size_t, const TaskCompareFn& fn) {
    res = fn(l, r);
    return res == 0;
  });
  if (res != 0) return res < 0;
  // helpers.CompareTask: the pod's index under its task, then creation, then uid.
  if (l.name_index >= 0 && r.name_index >= 0 && l.name_index != r.name_index) {
    return l.name_index < r.name_index;
  }
  if (l.creation != r.creation) return l.creation < r.creation;
  return l.ref.uid < r.ref.uid;
}

bool Session::QueueOrderLess(const QueueInfo& l, const QueueInfo& r) const {
  int res = 0;
  ForEach(queue_order_, &PluginOption::enable_queue_order, [&](size_t, const QueueCompareFn& fn) {
    res = fn(l, r);
    return res == 0;
  });
  if (res != 0) return res < 0;
  if (l.creation != r.creation) return l.creation < r.creation;
  return l.name < r.name;  // Volcano's queue UID is its name
}

bool Session::VictimQueueOrderLess(const QueueInfo& l, const QueueInfo& r,
                                   const QueueInfo& preemptor) const {
  int res = 0;
  ForEach(victim_queue_order_, nullptr, [&](size_t, const VictimQueueCompareFn& fn) {
    res = fn(l, r, preemptor);
    return res == 0;
  });
  if (res != 0) return res < 0;
  return !QueueOrderLess(l, r);
}

bool Session::VictimLess(const TaskInfo& l, const TaskInfo& r, const TaskInfo& preemptor) const {
  if (l.job == r.job) return !TaskOrderLess(l, r);
  if (l.job < 0 || r.job < 0) return l.job < 0;  // a task without a job goes first
  const JobInfo& lj = snap_.jobs[l.job];
  const JobInfo& rj = snap_.jobs[r.job];
  if (preemptor.job >= 0 && lj.queue != rj.queue) {
    return VictimQueueOrderLess(snap_.queues[lj.queue], snap_.queues[rj.queue],
                                snap_.queues[snap_.jobs[preemptor.job].queue]);
  }
  if (const int cmp = JobOrderCompare(lj, rj); cmp != 0) return cmp > 0;
  return !TaskOrderLess(l, r);
}

// ---- job predicates ----

bool Session::JobReady(const JobInfo& job) const {
  bool ready = true;
  ForEach(job_ready_, &PluginOption::enable_job_ready, [&](size_t, const JobBoolFn& fn) {
    ready = fn(job);
    return ready;
  });
  return ready;
}

namespace {

// JobPipelined / JobEnqueueable: a Reject wins at once; a tier with a Permit decides true.
template <typename ForEachFn>
bool TierVote(ForEachFn for_each) {
  bool rejected = false, permitted = false;
  size_t permit_tier = 0;
  for_each([&](size_t tier, int vote) {
    if (permitted && tier != permit_tier) return false;  // a tier with a Permit is final
    if (vote < 0) {
      rejected = true;
      return false;
    }
    if (vote > 0) {
      permitted = true;
      permit_tier = tier;
    }
    return true;
  });
  return !rejected;
}

}  // namespace

bool Session::JobPipelined(const JobInfo& job) const {
  return TierVote([&](auto emit) {
    ForEach(job_pipelined_, &PluginOption::enable_job_pipelined,
            [&](size_t tier, const JobVoteFn& fn) { return emit(tier, fn(job)); });
  });
}

bool Session::JobEnqueueable(const JobInfo& job) const {
  return TierVote([&](auto emit) {
    ForEach(job_enqueueable_, &PluginOption::enable_job_enqueued,
            [&](size_t tier, const JobVoteFn& fn) { return emit(tier, fn(job)); });
  });
}

void Session::JobEnqueued(const JobInfo& job) {
  ForEach(job_enqueued_, &PluginOption::enable_job_enqueued,
          [&](size_t, const JobEnqueuedFn& fn) {
            fn(job);
            return true;
          });
}

bool Session::JobStarving(const JobInfo& job) const {
  bool found = false, starving = true;
  size_t found_tier = 0;
  ForEach(job_starving_, &PluginOption::enable_job_starving,
          [&](size_t tier, const JobBoolFn& fn) {
            if (found && tier != found_tier) return false;
            found = true;
            found_tier = tier;
            if (!fn(job)) {
              starving = false;
              return false;
            }
            return true;
          });
  return found && starving;
}

ValidateResult Session::JobValid(const JobInfo& job) const {
  ValidateResult result;
  ForEach(job_valid_, nullptr, [&](size_t, const JobValidFn& fn) {
    ValidateResult r = fn(job);
    if (!r.pass) {
      result = std::move(r);
      return false;
    }
    return true;
  });
  return result;
}

// ---- queue predicates ----

bool Session::Overused(const QueueInfo& queue) const {
  bool overused = false;
  ForEach(overused_, &PluginOption::enable_overused, [&](size_t, const QueueBoolFn& fn) {
    overused = fn(queue);
    return !overused;
  });
  return overused;
}

bool Session::Allocatable(const QueueInfo& queue, const TaskInfo& task) const {
  bool ok = true;
  ForEach(allocatable_, &PluginOption::enable_allocatable, [&](size_t, const QueueTaskFn& fn) {
    ok = fn(queue, task);
    return ok;
  });
  return ok;
}

bool Session::Preemptive(const QueueInfo& queue, const TaskInfo& task) const {
  bool ok = true;
  ForEach(preemptive_, &PluginOption::enable_preemptive, [&](size_t, const QueueTaskFn& fn) {
    ok = fn(queue, task);
    return ok;
  });
  return ok;
}

// ---- victims ----

namespace {

std::vector<int> Intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  for (int x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) out.push_back(x);
  }
  return out;
}

}  // namespace

template <typename Fn, typename Arg>
std::vector<int> Session::Evictable(const Point<Fn>& point,
                                    std::optional<bool> PluginOption::*flag, const Arg& arg,
                                    const std::vector<int>& candidates) const {
  // Volcano's Preemptable/Reclaimable/UnifiedEvictable, quirks included: an empty set stands
  // for "none yet", so an empty answer (or an empty intersection) resets it and the next
  // plugin or tier starts afresh; within a tier answers are intersected; the first tier that
  // ends with a non-empty set is final. Abstaining plugins do not take part.
  std::vector<int> victims;
  for (size_t t = 0; t < config_.tiers.size(); ++t) {
    for (const PluginOption& p : config_.tiers[t].plugins) {
      if (flag && !PluginOption::On(p.*flag)) continue;
      auto it = point.by_plugin.find(p.name);
      if (it == point.by_plugin.end()) continue;
      auto [answer, vote] = it->second(arg, candidates);
      if (vote == kAbstain) continue;
      if (answer.empty()) {
        victims.clear();
        break;
      }
      victims = victims.empty() ? std::move(answer) : Intersect(victims, answer);
    }
    if (!victims.empty()) return victims;
  }
  return victims;
}

std::vector<int> Session::Preemptable(const TaskInfo& preemptor,
                                      const std::vector<int>& candidates) const {
  return Evictable(preemptable_, &PluginOption::enable_preemptable, preemptor, candidates);
}

std::vector<int> Session::Reclaimable(const TaskInfo& preemptor,
                                      const std::vector<int>& candidates) const {
  return Evictable(reclaimable_, &PluginOption::enable_reclaimable, preemptor, candidates);
}

std::vector<int> Session::UnifiedEvictable(const EvictionContext& ctx,
                                           const std::vector<int>& candidates) const {
  return Evictable(unified_evictable_, nullptr, ctx, candidates);
}

// ---- predicates and scores ----

bool Session::PredicateFnAll(const TaskInfo& task, const NodeInfo& node, NodeFitError* err) const {
  for (const PredicateFn* fn : predicates_flat_) {
    if (!(*fn)(task, node, err)) return false;
  }
  return true;
}

bool Session::HasNodeOrder() const {
  return !node_order_flat_.empty() || !batch_node_order_flat_.empty();
}

// ---- lifecycle ----

Status Session::OpenPlugins(const std::vector<std::unique_ptr<Plugin>>& plugins) {
  result_.queues.resize(snap_.queues.size());
  for (const auto& p : plugins) {
    p->OnSessionOpen(*this);
    open_plugins_.push_back(p.get());
  }
  Compile(job_order_, &PluginOption::enable_job_order);
  Compile(task_order_, &PluginOption::enable_task_order);
  Compile(queue_order_, &PluginOption::enable_queue_order);
  Compile(victim_queue_order_, nullptr);
  Compile(job_ready_, &PluginOption::enable_job_ready);
  Compile(job_pipelined_, &PluginOption::enable_job_pipelined);
  Compile(job_valid_, nullptr);
  Compile(job_enqueueable_, &PluginOption::enable_job_enqueued);
  Compile(job_enqueued_, &PluginOption::enable_job_enqueued);
  Compile(job_starving_, &PluginOption::enable_job_starving);
  Compile(overused_, &PluginOption::enable_overused);
  Compile(allocatable_, &PluginOption::enable_allocatable);
  Compile(preemptive_, &PluginOption::enable_preemptive);
  Compile(predicate_, &PluginOption::enable_predicate);
  Compile(node_order_, &PluginOption::enable_node_order);
  Compile(batch_node_order_, &PluginOption::enable_node_order);
  ForEach(predicate_, &PluginOption::enable_predicate, [&](size_t, const PredicateFn& fn) {
    predicates_flat_.push_back(&fn);
    return true;
  });
  ForEach(node_order_, &PluginOption::enable_node_order, [&](size_t, const NodeOrderFn& fn) {
    node_order_flat_.push_back(&fn);
    return true;
  });
  ForEach(batch_node_order_, &PluginOption::enable_node_order,
          [&](size_t, const BatchNodeOrderFn& fn) {
            batch_node_order_flat_.push_back(&fn);
            return true;
          });
  return Status::Ok();
}

void Session::ClosePlugins() {
  for (Plugin* p : open_plugins_) p->OnSessionClose(*this);
}

// ---- state changes ----

void Session::UpdateTaskStatus(TaskInfo& task, TaskStatus status) {
  if (task.job >= 0) {
    JobInfo& job = snap_.jobs[task.job];
    job.count[static_cast<int>(task.status)]--;
    if (task.status == TaskStatus::kPending && task.best_effort) job.pending_best_effort--;
    if (AllocatedStatus(task.status)) job.allocated.Sub(task.resreq);
    job.count[static_cast<int>(status)]++;
    if (status == TaskStatus::kPending && task.best_effort) job.pending_best_effort++;
    if (AllocatedStatus(status)) job.allocated.Add(task.resreq);
  }
  task.status = status;
}

void Session::AddTaskToNode(TaskInfo& task, int node_id) {
  NodeInfo& node = snap_.nodes[node_id];
  task.node = node_id;
  switch (task.status) {
    case TaskStatus::kReleasing:
      node.idle.Sub(task.resreq);
      node.releasing.Add(task.resreq);
      node.used.Add(task.resreq);
      break;
    case TaskStatus::kPipelined:
      node.pipelined.Add(task.resreq);
      break;
    default:
      node.idle.Sub(task.resreq);
      node.used.Add(task.resreq);
      break;
  }
  node.tasks.push_back(task.id);
}

void Session::RemoveTaskFromNode(TaskInfo& task) {
  if (task.node < 0) return;
  NodeInfo& node = snap_.nodes[task.node];
  switch (task.status) {
    case TaskStatus::kReleasing:
      node.releasing.Sub(task.resreq);
      node.idle.Add(task.resreq);
      node.used.Sub(task.resreq);
      break;
    case TaskStatus::kPipelined:
      node.pipelined.Sub(task.resreq);
      break;
    default:
      node.idle.Add(task.resreq);
      node.used.Sub(task.resreq);
      break;
  }
  auto it = std::find(node.tasks.begin(), node.tasks.end(), task.id);
  if (it != node.tasks.end()) node.tasks.erase(it);
}

void Session::FireAllocate(const TaskInfo& task) {
  // The predicates plugin keeps kube-scheduler's NodeInfo in step (scorers read it).
  if (task.node >= 0) {
    NodeInfo& node = snap_.nodes[task.node];
    node.k8s_requested.Add(task.resreq);
    node.nonzero_cpu += task.nonzero_cpu;
    node.nonzero_memory += task.nonzero_memory;
    node.pod_count++;
  }
  for (const EventHandler& h : event_handlers_) {
    if (h.allocate) h.allocate(task);
  }
}

void Session::FireDeallocate(const TaskInfo& task) {
  if (task.node >= 0) {
    NodeInfo& node = snap_.nodes[task.node];
    node.k8s_requested.Sub(task.resreq);
    node.nonzero_cpu -= task.nonzero_cpu;
    node.nonzero_memory -= task.nonzero_memory;
    node.pod_count--;
  }
  for (const EventHandler& h : event_handlers_) {
    if (h.deallocate) h.deallocate(task);
  }
}

}  // namespace trimtab::core::scheduling
