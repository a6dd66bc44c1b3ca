#include "cluster/flink/jobmanager_process.h"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

namespace trimtab::sim::flink {

namespace {

constexpr size_t kMaxLogLines = 2000;

std::vector<std::string> ContainerNames(const Json& pod) {
  std::vector<std::string> out;
  if (pod.contains("spec") && pod["spec"].contains("containers") && pod["spec"]["containers"].is_array()) {
    for (const Json& c : pod["spec"]["containers"]) out.push_back(c.value("name", ""));
  }
  if (out.empty()) out.push_back("flink-main-container");
  return out;
}

cluster::PodProcessStatus StatusOf(const std::vector<std::string>& names, bool terminated, bool main_ready,
                                   const std::string& main) {
  cluster::PodProcessStatus s;
  for (const std::string& name : names) {
    cluster::ContainerRunStatus c;
    c.name = name;
    if (terminated) {
      c.state = cluster::ContainerRunStatus::State::kTerminated;
      c.reason = "Completed";
    } else {
      c.state = cluster::ContainerRunStatus::State::kRunning;
      c.ready = name != main || main_ready;
    }
    s.containers.push_back(std::move(c));
  }
  return s;
}

std::string MainName(const Json& pod) {
  const Json* c = MainContainer(pod);
  return c ? c->value("name", "") : "flink-main-container";
}

}  // namespace

// ---- JobManager ---------------------------------------------------------------------------------

FlinkPodRunner::JobManagerProcess::JobManagerProcess(Init init) : init_(std::move(init)) {
  for (const std::string& line : init_.start_log) Log(line);
  loop_ = std::thread([this] { Loop(); });
}

FlinkPodRunner::JobManagerProcess::~JobManagerProcess() { Terminate(std::chrono::milliseconds(0)); }

cluster::PodProcessStatus FlinkPodRunner::JobManagerProcess::Status() const {
  return StatusOf(ContainerNames(init_.pod), terminated_.load(), !terminated_.load(), MainName(init_.pod));
}

std::string FlinkPodRunner::JobManagerProcess::Logs(std::string_view container) const {
  if (container != MainName(init_.pod)) return "";
  std::lock_guard<std::mutex> lock(log_mu_);
  std::string out;
  for (const std::string& line : log_) out += line + "\n";
  return out;
}

void FlinkPodRunner::JobManagerProcess::Log(const std::string& line) {
  std::lock_guard<std::mutex> lock(log_mu_);
  log_.push_back(line);
  while (log_.size() > kMaxLogLines) log_.pop_front();
}

void FlinkPodRunner::JobManagerProcess::Terminate(std::chrono::milliseconds) {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    if (stopping_) {
      if (loop_.joinable() && loop_.get_id() != std::this_thread::get_id()) loop_.join();
      return;
    }
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  // Destroyed, not only stopped: HttpServer::Stop() may leave the listening socket open until
  // the server object goes away, and nothing may listen on the pod IP after termination.
  if (init_.rest) {
    init_.rest->Stop();
    init_.rest.reset();
  }
  // The JobManager goes away: jobs are SUSPENDED, their topics handed back, HA metadata kept.
  init_.cluster->Shutdown();
  Log("JobManager terminated; jobs suspended");
  terminated_ = true;
}

void FlinkPodRunner::JobManagerProcess::Loop() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!stopping_) {
    lock.unlock();
    SyncOnce();
    lock.lock();
    stop_cv_.wait_for(lock, init_.sync_interval, [this] { return stopping_; });
  }
}

void FlinkPodRunner::JobManagerProcess::SyncOnce() {
  std::lock_guard<std::mutex> lock(sync_mu_);
  init_.cluster->AdvanceToNow();
  SyncTaskManagers();
  HandleShutdownRequest();
  LogJobChanges();
}

void FlinkPodRunner::JobManagerProcess::SyncTaskManagers() {
  const kube::KubeClient& kube = *init_.kube;
  kube::ReadOptions options;
  StatusOr<LabelSelector> selector = LabelSelector::Parse(
      "app=" + init_.cluster_id + ",component=taskmanager" +
      (init_.standalone ? std::string() : std::string(",type=flink-native-kubernetes")));
  if (!selector.ok()) return;
  options.labels = *selector;
  StatusOr<std::vector<Json>> pods = kube.List(kube::PodsResource(), init_.namespace_name, options);
  if (!pods.ok()) {
    spdlog::warn("flink cluster {}/{}: listing TaskManager pods failed: {}", init_.namespace_name, init_.cluster_id,
                 pods.status().ToString());
    return;
  }
  struct PodView {
    std::string name;
    std::string ip;
    bool alive = false;    // will run or runs (not deleting, not finished)
    bool running = false;  // Running and not deleting
  };
  std::vector<PodView> views;
  for (const Json& p : *pods) {
    PodView v;
    v.name = kube::ObjectName(p);
    const bool deleting = p["metadata"].contains("deletionTimestamp") && !p["metadata"]["deletionTimestamp"].is_null();
    const std::string phase = p.contains("status") ? p["status"].value("phase", "Pending") : "Pending";
    v.alive = !deleting && phase != "Failed" && phase != "Succeeded";
    v.running = v.alive && phase == "Running";
    v.ip = p.contains("status") ? p["status"].value("podIP", "") : "";
    views.push_back(std::move(v));
  }
  int to_create = 0;
  std::vector<std::string> to_release;
  init_.cluster->Locked([&](ClusterState& s) {
    std::set<std::string> running;
    for (const PodView& v : views) {
      if (!v.running) continue;
      running.insert(v.name);
      if (!s.slots().Find(v.name)) {
        TaskManagerInfo info;
        info.id = v.name;
        info.host = v.ip.empty() ? s.host() : v.ip;
        info.data_port = 6121;
        info.slots = init_.tm_shape.slots;
        s.RegisterTaskManager(info);
        Log("Registering TaskManager with ResourceID " + v.name + " (" + info.host + ")");
      }
    }
    std::vector<std::string> lost;
    for (const SlotPool::TaskManager& tm : s.slots().task_managers()) {
      if (!running.count(tm.info.id)) lost.push_back(tm.info.id);
    }
    for (const std::string& id : lost) {
      s.UnregisterTaskManager(id, "the TaskManager pod " + id + " is gone");
      Log("TaskManager " + id + " lost: its pod is gone or not running");
    }
    if (init_.standalone) return;  // Flink's standalone resource manager starts no workers
    int alive = 0;
    for (const PodView& v : views) alive += v.alive ? 1 : 0;
    to_create = std::max(0, s.DesiredTaskManagers() - alive);
    to_release = s.TaskManagersToRelease();
    for (const std::string& id : to_release) s.UnregisterTaskManager(id, "released (idle)");
  });
  for (int i = 0; i < to_create; ++i) {
    TaskManagerPodSpec spec = init_.tm_template;
    spec.name = TaskManagerPodName(init_.cluster_id, init_.attempt, next_index_++);
    spec.shape = &init_.tm_shape;
    StatusOr<Json> created = kube.Create(kube::PodsResource(), init_.namespace_name, TaskManagerPod(spec));
    if (created.ok()) {
      Log("Requesting new TaskManager pod " + spec.name);
    } else {
      spdlog::warn("flink cluster {}/{}: creating TaskManager pod {} failed: {}", init_.namespace_name,
                   init_.cluster_id, spec.name, created.status().ToString());
    }
  }
  for (const std::string& name : to_release) {
    const trimtab::Status s = kube.Delete(kube::PodsResource(), init_.namespace_name, name);
    if (s.ok() || s.code() == StatusCode::kNotFound) {
      Log("Stopping idle TaskManager pod " + name);
    } else {
      spdlog::warn("flink cluster {}/{}: deleting TaskManager pod {} failed: {}", init_.namespace_name,
                   init_.cluster_id, name, s.ToString());
    }
  }
}

void FlinkPodRunner::JobManagerProcess::HandleShutdownRequest() {
  if (shutdown_done_) return;
  if (!init_.cluster->Locked([](ClusterState& s) { return s.shutdown_requested(); })) return;
  shutdown_done_ = true;
  Log("Shutting down the Flink cluster " + init_.cluster_id + ": deleting its JobManager Deployment");
  if (init_.ha) {
    const trimtab::Status s = init_.ha->DeleteAll();
    if (!s.ok()) spdlog::warn("flink cluster {}: deleting HA ConfigMaps failed: {}", init_.cluster_id, s.ToString());
  }
  kube::GroupVersionResource deployments{.group = "apps", .version = "v1", .resource = "deployments"};
  const trimtab::Status s = init_.kube->Delete(deployments, init_.namespace_name, init_.cluster_id);
  if (!s.ok() && s.code() != StatusCode::kNotFound) {
    spdlog::warn("flink cluster {}: deleting Deployment failed: {}", init_.cluster_id, s.ToString());
  }
}

void FlinkPodRunner::JobManagerProcess::LogJobChanges() {
  // Every state a job entered since the last sync, in the order it entered them (each state's
  // latest entry time, as Flink's "timestamps"), so that `kubectl logs` shows INITIALIZING ->
  // CREATED -> RUNNING even when the sync thread ran late and only saw the last of them.
  struct Entered {
    int64_t at_ms;
    std::string state;
  };
  struct JobView {
    std::string id, name, current;
    std::vector<Entered> entered;
  };
  std::vector<JobView> jobs = init_.cluster->Locked([](ClusterState& s) {
    std::vector<JobView> out;
    for (const auto& j : s.jobs()) {
      JobView v{j->id(), j->name(), std::string(JobStatusName(j->status())), {}};
      for (JobStatus st : kAllJobStatuses) {
        if (const int64_t at = j->status_timestamp(st); at > 0) {
          v.entered.push_back({at, std::string(JobStatusName(st))});
        }
      }
      std::stable_sort(v.entered.begin(), v.entered.end(),
                       [](const Entered& a, const Entered& b) { return a.at_ms < b.at_ms; });
      out.push_back(std::move(v));
    }
    return out;
  });
  for (const JobView& j : jobs) {
    LoggedJobState& last = job_states_[j.id];
    std::vector<std::string> path;  // states entered after the last sync, oldest first
    for (const Entered& e : j.entered) {
      if (e.at_ms > last.at_ms) path.push_back(e.state);
    }
    if (path.empty() && j.current == last.state) continue;
    // The current state ends the path even when it shares its entry time with another state.
    if (path.empty() || path.back() != j.current) path.push_back(j.current);
    std::string from = last.state.empty() ? "NONE" : last.state;
    for (const std::string& to : path) {
      if (to == from) continue;
      Log("Job " + j.name + " (" + j.id + ") switched from state " + from + " to " + to + ".");
      from = to;
    }
    last.state = j.current;
    for (const Entered& e : j.entered) last.at_ms = std::max(last.at_ms, e.at_ms);
  }
}

// ---- TaskManager --------------------------------------------------------------------------------

TaskManagerProcess::TaskManagerProcess(const Json& pod) : containers_(ContainerNames(pod)), name_(kube::ObjectName(pod)) {}

cluster::PodProcessStatus TaskManagerProcess::Status() const {
  return StatusOf(containers_, terminated_.load(), true, "");
}

void TaskManagerProcess::Terminate(std::chrono::milliseconds) { terminated_ = true; }

std::string TaskManagerProcess::Logs(std::string_view container) const {
  if (container != containers_.front()) return "";
  return "Starting TaskManager " + name_ + " (simulated by trimtab: the JobManager runs its tasks)\n";
}

}  // namespace trimtab::sim::flink
