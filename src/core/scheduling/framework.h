// Session: the scheduling framework of one session (Volcano's pkg/scheduler/framework): the
// snapshot being scheduled, the extension points plugins register callbacks on, the rules that
// combine the callbacks of several plugins (tiers and votes, B.3 of the notes), and the
// operations actions perform through Statements.
//
// Extension points and how plugins combine (a plugin's callback counts only if its `enable...`
// switch in the config is on):
//   JobOrder / TaskOrder / QueueOrder   first plugin (tier order) returning != 0 decides;
//                                       then job: creation, then job id (ns/name); task: name
//                                       index, creation, uid; queue: creation, then name
//   VictimQueueOrder                    first plugin deciding; else the reverse of QueueOrder
//   victim order (VictimLess)           same job: reverse task order; other queues:
//                                       VictimQueueOrder; same queue: reverse plugin job order,
//                                       then reverse task order (BuildVictimsPriorityQueue)
//   JobReady, Allocatable, Preemptive   AND over plugins (none -> true)
//   Overused                            OR over plugins
//   JobPipelined, JobEnqueueable        a Reject wins at once; a tier with a Permit -> true
//                                       (later tiers not asked); nothing -> true
//   JobStarving                         AND within the first tier that has one; none -> false
//   JobValid                            the first failing plugin wins (no switch)
//   Predicate                           all must pass
//   NodeOrder / BatchNodeOrder          scores summed
//   Preemptable / Reclaimable           intersection within a tier; an empty answer -> no
//                                       victims; the first tier with an answer is final
//   UnifiedEvictable (gang eviction)    intersection over every plugin that has one
//
// Ownership: owns the snapshot, the plugins and the result being built. Thread-safety: one
// thread (the session is a pure function of its input).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/scheduling/scheduler_config.h"
#include "core/scheduling/session.h"
#include "core/scheduling/snapshot.h"

namespace trimtab::core::scheduling {

enum Vote : int { kReject = -1, kAbstain = 0, kPermit = 1 };

struct ValidateResult {
  bool pass = true;
  std::string reason, message;
};

class Session;

// A scheduler plugin: registers callbacks when the session opens.
class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
  virtual void OnSessionOpen(Session& ssn) = 0;
  virtual void OnSessionClose(Session& ssn) {}
};

// An action: one pass over the session (enqueue, allocate, ...).
class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view name() const = 0;
  virtual void Execute(Session& ssn) = 0;
};

using JobCompareFn = std::function<int(const JobInfo&, const JobInfo&)>;
using TaskCompareFn = std::function<int(const TaskInfo&, const TaskInfo&)>;
using QueueCompareFn = std::function<int(const QueueInfo&, const QueueInfo&)>;
using VictimQueueCompareFn =
    std::function<int(const QueueInfo&, const QueueInfo&, const QueueInfo& preemptor)>;
using JobBoolFn = std::function<bool(const JobInfo&)>;
using JobVoteFn = std::function<int(const JobInfo&)>;
using JobValidFn = std::function<ValidateResult(const JobInfo&)>;
using JobEnqueuedFn = std::function<void(const JobInfo&)>;
using QueueBoolFn = std::function<bool(const QueueInfo&)>;
using QueueTaskFn = std::function<bool(const QueueInfo&, const TaskInfo&)>;
// Returns (victims, vote) out of `candidates` (task ids).
using EvictableFn = std::function<std::pair<std::vector<int>, int>(
    const TaskInfo& preemptor, const std::vector<int>& candidates)>;
// What a whole-job eviction (gangpreempt / gangreclaim) is for.
struct EvictionContext {
  bool reclaim = false;  // gangreclaim (across queues) rather than gangpreempt (within one)
  int job = -1;          // the starving job
};
using UnifiedEvictableFn = std::function<std::pair<std::vector<int>, int>(
    const EvictionContext& ctx, const std::vector<int>& candidates)>;
// Appends its reasons to `err` and returns false when the task does not fit the node.
using PredicateFn = std::function<bool(const TaskInfo&, const NodeInfo&, NodeFitError* err)>;
using NodeOrderFn = std::function<double(const TaskInfo&, const NodeInfo&)>;
// Adds each node's score to (*scores)[i] for nodes[i].
using BatchNodeOrderFn = std::function<void(const TaskInfo&, const std::vector<int>& nodes,
                                            std::vector<double>* scores)>;

struct EventHandler {
  std::function<void(const TaskInfo&)> allocate;    // Allocate, Pipeline, un-Evict
  std::function<void(const TaskInfo&)> deallocate;  // Evict, un-Allocate, un-Pipeline
};

class Statement;

class Session {
 public:
  Session(const SchedulerConfig& config, const SessionOptions& options, Snapshot snapshot);
  ~Session();

  // ---- the snapshot ----
  std::vector<TaskInfo>& tasks() { return snap_.tasks; }
  std::vector<JobInfo>& jobs() { return snap_.jobs; }
  std::vector<NodeInfo>& nodes() { return snap_.nodes; }
  std::vector<QueueInfo>& queues() { return snap_.queues; }
  const ResourceNameTable& names() const { return snap_.names; }
  const Resources& total_resource() const { return snap_.total_resource; }
  const std::vector<std::string>& node_names() const { return snap_.node_names; }
  const SchedulerConfig& config() const { return config_; }
  const SessionOptions& options() const { return options_; }
  const std::string& uid() const { return uid_; }
  SessionResult& result() { return result_; }
  // SessionOptions::now_unix_seconds as RFC 3339 (condition timestamps).
  std::string NowRfc3339() const;
  Snapshot& snapshot() { return snap_; }

  // ---- decision log ----
  bool logging() const { return options_.record_log; }
  void Log(std::string line);
  std::string TaskName(const TaskInfo& t) const { return t.ref.ns + "/" + t.ref.name; }
  std::string Res(const Resources& r) const { return r.ToString(snap_.names); }

  // ---- registration (plugins call these from OnSessionOpen) ----
  void AddJobOrderFn(std::string_view plugin, JobCompareFn fn);
  void AddTaskOrderFn(std::string_view plugin, TaskCompareFn fn);
  void AddQueueOrderFn(std::string_view plugin, QueueCompareFn fn);
  void AddVictimQueueOrderFn(std::string_view plugin, VictimQueueCompareFn fn);
  void AddJobReadyFn(std::string_view plugin, JobBoolFn fn);
  void AddJobPipelinedFn(std::string_view plugin, JobVoteFn fn);
  void AddJobValidFn(std::string_view plugin, JobValidFn fn);
  void AddJobEnqueueableFn(std::string_view plugin, JobVoteFn fn);
  void AddJobEnqueuedFn(std::string_view plugin, JobEnqueuedFn fn);
  void AddJobStarvingFn(std::string_view plugin, JobBoolFn fn);
  void AddOverusedFn(std::string_view plugin, QueueBoolFn fn);
  void AddAllocatableFn(std::string_view plugin, QueueTaskFn fn);
  void AddPreemptiveFn(std::string_view plugin, QueueTaskFn fn);
  void AddPreemptableFn(std::string_view plugin, EvictableFn fn);
  void AddReclaimableFn(std::string_view plugin, EvictableFn fn);
  void AddUnifiedEvictableFn(std::string_view plugin, UnifiedEvictableFn fn);
  void AddPredicateFn(std::string_view plugin, PredicateFn fn);
  void AddNodeOrderFn(std::string_view plugin, NodeOrderFn fn);
  void AddBatchNodeOrderFn(std::string_view plugin, BatchNodeOrderFn fn);
  void AddEventHandler(EventHandler handler);
  // A plugin's fair share for a queue, reported in QueueOutcome::deserved.
  void SetQueueDeserved(int queue, const Resources& deserved);

  // ---- combined extension points ----
  bool JobOrderLess(const JobInfo& l, const JobInfo& r) const;
  // The plugins' job order alone: < 0 when `l` goes first, 0 when no plugin decides
  // (Volcano's JobOrderCompareFn, without the creation/id fallback).
  int JobOrderCompare(const JobInfo& l, const JobInfo& r) const;
  bool TaskOrderLess(const TaskInfo& l, const TaskInfo& r) const;
  bool QueueOrderLess(const QueueInfo& l, const QueueInfo& r) const;
  bool VictimQueueOrderLess(const QueueInfo& l, const QueueInfo& r,
                            const QueueInfo& preemptor) const;
  // Whether victim `l` is evicted before victim `r` for `preemptor` (Volcano's
  // BuildVictimsPriorityQueue): tasks of one job in reverse task order (lowest priority first);
  // tasks of jobs in different queues by VictimQueueOrder; otherwise the job the plugins order
  // last goes first, then reverse task order. Tasks without a job go before all others.
  bool VictimLess(const TaskInfo& l, const TaskInfo& r, const TaskInfo& preemptor) const;
  bool JobReady(const JobInfo& job) const;
  bool JobPipelined(const JobInfo& job) const;
  bool JobStarving(const JobInfo& job) const;
  ValidateResult JobValid(const JobInfo& job) const;
  bool JobEnqueueable(const JobInfo& job) const;
  void JobEnqueued(const JobInfo& job);
  bool Overused(const QueueInfo& queue) const;
  bool Allocatable(const QueueInfo& queue, const TaskInfo& task) const;
  bool Preemptive(const QueueInfo& queue, const TaskInfo& task) const;
  std::vector<int> Preemptable(const TaskInfo& preemptor, const std::vector<int>& candidates) const;
  std::vector<int> Reclaimable(const TaskInfo& preemptor, const std::vector<int>& candidates) const;
  std::vector<int> UnifiedEvictable(const EvictionContext& ctx,
                                    const std::vector<int>& candidates) const;
  // The plugins' predicates only. `unresolvable` reasons are marked in `err`.
  bool PredicateFnAll(const TaskInfo& task, const NodeInfo& node, NodeFitError* err) const;
  bool HasNodeOrder() const;

  // ---- node selection (framework_nodes.cc) ----
  // Allocate's predicate: the request must fit FutureIdle ("Insufficient cpu"), then the plugins.
  bool PredicateForAllocate(const TaskInfo& task, const NodeInfo& node, NodeFitError* err) const;
  // Preempt's predicate: only unresolvable plugin failures count.
  bool PredicateForPreempt(const TaskInfo& task, const NodeInfo& node) const;
  // Feasible nodes for `task` among all nodes (nominated node first), at most Volcano's
  // numNodesToFind, scanning from where the previous search stopped. Fills `errors`. Without
  // `check_resources` only the plugins' predicates run (backfill's PredicateForAllocateAction).
  std::vector<int> PredicateNodes(const TaskInfo& task, FitErrors* errors,
                                  bool check_resources = true);
  // Nodes where evictions could make room for `task` (PredicateNodes with
  // PredicateForPreempt): at most NumNodesToFind, from where the previous search stopped.
  std::vector<int> PredicateNodesForPreempt(const TaskInfo& task);
  // Session.Allocate (backfill): place `task` at once and, when its job is ready, bind every
  // Allocated task of the job.
  void AllocateNow(TaskInfo& task, int node);
  // Summed node-order scores of `nodes` for `task`.
  void ScoreNodes(const TaskInfo& task, const std::vector<int>& nodes, std::vector<double>* scores);
  // Allocate's choice: nodes where the request fits Idle first, else FutureIdle; the best
  // score, ties to the smallest node name. -1 when none.
  int BestNode(const TaskInfo& task, const std::vector<int>& feasible);

  // ---- state changes (Statement uses these; each runs the event handlers) ----
  void UpdateTaskStatus(TaskInfo& task, TaskStatus status);
  void AddTaskToNode(TaskInfo& task, int node);
  void RemoveTaskFromNode(TaskInfo& task);
  void FireAllocate(const TaskInfo& task);
  void FireDeallocate(const TaskInfo& task);

  // ---- lifecycle (session.cc) ----
  Status OpenPlugins(const std::vector<std::unique_ptr<Plugin>>& plugins);
  void ClosePlugins();

  // Number of nodes to find per predicate search (CalculateNumOfFeasibleNodesToFind).
  int NumNodesToFind() const;

 private:
  template <typename Fn>
  struct Point {
    std::map<std::string, Fn, std::less<>> by_plugin;
    // (tier, callback) of the enabled plugins in tier order, built by Compile after the
    // plugins opened, so combining needs no name lookups.
    std::vector<std::pair<size_t, const Fn*>> compiled;
  };
  template <typename Fn>
  void Compile(Point<Fn>& point, std::optional<bool> PluginOption::*flag);
  // Calls visit(tier_index, fn) for each enabled plugin of `point` in tier order until visit
  // returns false. (`flag` is the switch the point was compiled with; kept for readability.)
  template <typename Fn, typename Visit>
  void ForEach(const Point<Fn>& point, std::optional<bool> PluginOption::*flag, Visit visit) const;
  // The rotating scan behind PredicateNodes: calls fits(node) from where the previous scan
  // stopped until NumNodesToFind nodes fit or every node was tried.
  template <typename Fits>
  std::vector<int> ScanNodes(Fits fits);
  template <typename Fn, typename Arg>
  std::vector<int> Evictable(const Point<Fn>& point, std::optional<bool> PluginOption::*flag,
                             const Arg& arg, const std::vector<int>& candidates) const;

  const SchedulerConfig& config_;
  SessionOptions options_;
  Snapshot snap_;
  std::string uid_;
  SessionResult result_;

  Point<JobCompareFn> job_order_;
  Point<TaskCompareFn> task_order_;
  Point<QueueCompareFn> queue_order_;
  Point<VictimQueueCompareFn> victim_queue_order_;
  Point<JobBoolFn> job_ready_;
  Point<JobVoteFn> job_pipelined_;
  Point<JobValidFn> job_valid_;
  Point<JobVoteFn> job_enqueueable_;
  Point<JobEnqueuedFn> job_enqueued_;
  Point<JobBoolFn> job_starving_;
  Point<QueueBoolFn> overused_;
  Point<QueueTaskFn> allocatable_;
  Point<QueueTaskFn> preemptive_;
  Point<EvictableFn> preemptable_;
  Point<EvictableFn> reclaimable_;
  Point<UnifiedEvictableFn> unified_evictable_;
  Point<PredicateFn> predicate_;
  Point<NodeOrderFn> node_order_;
  Point<BatchNodeOrderFn> batch_node_order_;
  std::vector<EventHandler> event_handlers_;

  // Flattened hot-path lists, built after the plugins opened.
  std::vector<const PredicateFn*> predicates_flat_;
  std::vector<const NodeOrderFn*> node_order_flat_;
  std::vector<const BatchNodeOrderFn*> batch_node_order_flat_;

  std::vector<Plugin*> open_plugins_;
  int last_processed_node_ = 0;  // Volcano's lastProcessedNodeIndex, per session here
  std::vector<double> score_buffer_;
  std::vector<int> idle_buffer_, future_buffer_;
};

}  // namespace trimtab::core::scheduling
