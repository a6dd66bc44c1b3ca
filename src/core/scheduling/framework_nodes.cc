// Node filtering and choice for one task (Volcano's PredicateHelper.PredicateNodes and
// allocate's prioritizeNodes), sequential and deterministic.
#include <algorithm>

#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

int Session::NumNodesToFind() const {
  // CalculateNumOfFeasibleNodesToFind with the default flags: minimum 100 nodes, adaptive
  // percentage 50 - n/125, floored at 5 %.
  constexpr int kMinNodesToFind = 100, kMinPercentage = 5, kBaseline = 50;
  const int n = static_cast<int>(snap_.nodes.size());
  if (n <= kMinNodesToFind) return n;
  int pct = std::max(kBaseline - n / 125, kMinPercentage);
  return std::max(n * pct / 100, kMinNodesToFind);
}

bool Session::PredicateForAllocate(const TaskInfo& task, const NodeInfo& node,
                                   NodeFitError* err) const {
  const Resources future = node.FutureIdle();
  if (!task.resreq.LessEqual(future)) {
    if (err) {
      // Volcano names only the first dimension that does not fit.
      std::vector<std::string> failed;
      task.resreq.LessEqualNamed(future, snap_.names, &failed);
      err->reasons.push_back("Insufficient " + (failed.empty() ? std::string("resources") : failed[0]));
    }
    return false;
  }
  if (predicates_flat_.empty()) return true;
  NodeFitError scratch;
  return PredicateFnAll(task, node, err ? err : &scratch);
}

bool Session::PredicateForPreempt(const TaskInfo& task, const NodeInfo& node) const {
  NodeFitError err;
  if (PredicateFnAll(task, node, &err)) return true;
  return !err.unresolvable;  // only unresolvable failures rule a node out for preemption
}

template <typename Fits>
std::vector<int> Session::ScanNodes(Fits fits) {
  std::vector<int> feasible;
  const int n = static_cast<int>(snap_.nodes.size());
  if (n == 0) return feasible;
  const int want = NumNodesToFind();
  const int start = last_processed_node_ % n;
  int processed = 0;
  for (; processed < n; ++processed) {
    const int i = (start + processed) % n;
    if (fits(i)) {
      feasible.push_back(i);
      if (static_cast<int>(feasible.size()) >= want) {
        ++processed;
        break;
      }
    }
  }
  last_processed_node_ = (start + processed) % n;
  return feasible;
}

std::vector<int> Session::PredicateNodes(const TaskInfo& task, FitErrors* errors,
                                        bool check_resources) {
  std::vector<int> feasible;
  const int n = static_cast<int>(snap_.nodes.size());
  if (n == 0) return feasible;
  auto check = [&](int i) {
    NodeFitError err;
    err.node = i;
    const bool fit = check_resources ? PredicateForAllocate(task, snap_.nodes[i], &err)
                                     : PredicateFnAll(task, snap_.nodes[i], &err);
    if (fit) return true;
    if (errors) errors->nodes.push_back(std::move(err));
    return false;
  };
  // The nominated node (set by an earlier preemption) is tried first.
  if (!task.nominated_node.empty()) {
    int nom = snap_.FindNode(task.nominated_node);
    if (nom >= 0 && task.resreq.LessEqual(snap_.nodes[nom].FutureIdle())) {
      NodeFitError err;
      if (PredicateForAllocate(task, snap_.nodes[nom], &err)) {
        feasible.push_back(nom);
        return feasible;
      }
    }
  }
  return ScanNodes(check);
}

std::vector<int> Session::PredicateNodesForPreempt(const TaskInfo& task) {
  return ScanNodes([&](int i) { return PredicateForPreempt(task, snap_.nodes[i]); });
}

void Session::ScoreNodes(const TaskInfo& task, const std::vector<int>& nodes,
                         std::vector<double>* scores) {
  scores->assign(nodes.size(), 0.0);
  for (const NodeOrderFn* fn : node_order_flat_) {
    for (size_t i = 0; i < nodes.size(); ++i) (*scores)[i] += (*fn)(task, snap_.nodes[nodes[i]]);
  }
  for (const BatchNodeOrderFn* fn : batch_node_order_flat_) (*fn)(task, nodes, scores);
}

int Session::BestNode(const TaskInfo& task, const std::vector<int>& feasible) {
  idle_buffer_.clear();
  future_buffer_.clear();
  for (int i : feasible) {
    const NodeInfo& node = snap_.nodes[i];
    if (task.resreq.LessEqual(node.idle)) {
      idle_buffer_.push_back(i);
    } else if (task.resreq.LessEqual(node.FutureIdle())) {
      future_buffer_.push_back(i);
    }
  }
  for (std::vector<int>* group : {&idle_buffer_, &future_buffer_}) {
    if (group->empty()) continue;
    if (group->size() == 1) return (*group)[0];
    ScoreNodes(task, *group, &score_buffer_);
    int best = -1;
    double best_score = 0;
    for (size_t k = 0; k < group->size(); ++k) {
      const int node = (*group)[k];
      const double s = score_buffer_[k];
      // Volcano picks at random among the best; here the smallest node name wins.
      if (best < 0 || s > best_score || (s == best_score && node < best)) {
        best = node;
        best_score = s;
      }
    }
    return best;
  }
  return -1;
}

void Session::AllocateNow(TaskInfo& task, int node) {
  UpdateTaskStatus(task, TaskStatus::kAllocated);
  AddTaskToNode(task, node);
  FireAllocate(task);
  if (task.job < 0) return;
  JobInfo& job = snap_.jobs[task.job];
  if (!JobReady(job)) return;
  for (int id : job.tasks) {
    TaskInfo& t = snap_.tasks[id];
    if (t.status != TaskStatus::kAllocated) continue;
    UpdateTaskStatus(t, TaskStatus::kBinding);
    result_.binds.push_back({t.ref, snap_.node_names[t.node]});
  }
}

}  // namespace trimtab::core::scheduling
