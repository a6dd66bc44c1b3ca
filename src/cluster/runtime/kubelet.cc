#include "cluster/runtime/kubelet.h"

#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/default_pod_runner.h"
#include "cluster/runtime/kubelet_pod.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kUnknownMessage[] = "The container could not be located when the pod was terminated";

// Whether a container of this status had been started by a previous kubelet.
bool WasStarted(const Json& status) {
  return At(status, {"state", "running"}).is_object() ||
         At(status, {"state", "terminated"}).is_object() || Int(status, {"restartCount"}) > 0 ||
         At(status, {"containerID"}).is_string();
}

std::string Image(const Json& container) { return Str(container, {"image"}); }

}  // namespace

Kubelet::Kubelet(const kube::KubeClient* client, InformerSet* informers, EventRecorder* events,
                 Clock* clock, std::vector<LocalNode> nodes,
                 std::vector<std::shared_ptr<PodRunner>> runners, KubeletOptions options)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      nodes_(std::move(nodes)),
      runners_(std::move(runners)),
      options_(options),
      controller_("kubelet", clock, options.workers,
                  [this](const std::string& key) { return Sync(key); }) {
  runners_.push_back(std::make_shared<DefaultPodRunner>(clock));
  for (const LocalNode& n : nodes_) ip_pools_.try_emplace(n.config.name, n.pod_cidr);
  auto enqueue = [this](const Json& pod) {
    if (FindNode(Str(pod, {"spec", "nodeName"}))) controller_.Enqueue(kube::ObjectKey(pod));
  };
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = enqueue,
       .on_update = [enqueue](const Json&, const Json& pod) { enqueue(pod); },
       .on_delete = [enqueue](const Json& pod) { enqueue(pod); }});
}

Kubelet::~Kubelet() { Stop(); }

void Kubelet::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
  }
  controller_.Start();
}

void Kubelet::Stop() {
  controller_.Stop();
  std::map<std::string, std::shared_ptr<PodState>> pods;
  {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    terminations_done_.wait(lock, [this] { return terminations_ == 0; });
    pods.swap(pods_);
  }
  for (auto& [key, state] : pods) {
    if (state->process && !state->terminated) state->process->Terminate(std::chrono::milliseconds(0));
  }
}

const LocalNode* Kubelet::FindNode(const std::string& name) const {
  for (const LocalNode& n : nodes_) {
    if (n.config.name == name) return &n;
  }
  return nullptr;
}

std::optional<std::string> Kubelet::PodLogs(const Json& pod, const std::string& container,
                                            bool previous) const {
  std::shared_ptr<PodProcess> process;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (previous) {
      auto p = previous_logs_.find(Str(pod, {"metadata", "uid"}) + "/" + container);
      if (p == previous_logs_.end()) return std::nullopt;
      return p->second;
    }
    auto it = pods_.find(kube::ObjectKey(pod));
    if (it == pods_.end() || it->second->uid != Str(pod, {"metadata", "uid"})) return "";
    process = it->second->process;
  }
  return process ? process->Logs(container) : "";
}

size_t Kubelet::PodsWithProcessForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [key, state] : pods_) n += state->process && !state->terminated ? 1 : 0;
  return n;
}

void Kubelet::Forget(const std::string& key) {
  std::shared_ptr<PodState> state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end()) return;
    state = it->second;
    pods_.erase(it);
    const std::string prefix = state->uid + "/";
    for (auto p = previous_logs_.lower_bound(prefix);
         p != previous_logs_.end() && p->first.compare(0, prefix.size(), prefix) == 0;) {
      p = previous_logs_.erase(p);
    }
  }
  if (state->process && !state->terminated && !state->terminating) {
    state->process->Terminate(std::chrono::milliseconds(0));
  }
  if (state->ip_held) {
    auto pool = ip_pools_.find(state->node);
    if (pool != ip_pools_.end()) pool->second.Release(state->pod_ip);
  }
}

Result Kubelet::Sync(const std::string& key) {
  const kube::ObjectPtr pod = informers_->Store(PodsGvr()).GetShared(key);
  std::shared_ptr<PodState> state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it != pods_.end()) state = it->second;
  }
  const LocalNode* node = pod ? FindNode(Str(*pod, {"spec", "nodeName"})) : nullptr;
  if (!pod || !node) {
    if (state) Forget(key);  // deleted (or moved away): stop what ran
    return Result::Done();
  }
  if (state && state->uid != Str(*pod, {"metadata", "uid"})) {
    Forget(key);  // a new pod with the same name
    state.reset();
  }
  const bool deleting = IsDeleting(*pod);
  if (!state) {
    if (IsPodTerminal(*pod) && !deleting) return Result::Done();  // finished before
    state = NewState(*pod, *node);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Result::Done();
    pods_[key] = state;
  }
  if (deleting) {
    if (!state->terminating) BeginTermination(*pod, state);
    if (state->terminated) return FinishDeletion(*pod, key, *state);
    return Result::Done();  // the termination thread enqueues the pod again
  }
  if (state->terminal) return Result::Done();
  return SyncRunning(*pod, *state);
}

std::shared_ptr<Kubelet::PodState> Kubelet::NewState(const Json& pod, const LocalNode& node) {
  auto state = std::make_shared<PodState>();
  state->key = kube::ObjectKey(pod);
  state->uid = Str(pod, {"metadata", "uid"});
  state->node = node.config.name;
  state->host_ip = node.node_ip;
  state->last_status = At(pod, {"status"});
  auto start = ParseTime(At(pod, {"status", "startTime"}));
  state->start_time = start ? *start : clock_->Now();

  PodIpPool& pool = ip_pools_.at(node.config.name);
  std::string previous = Str(pod, {"status", "podIP"});
  if (!previous.empty() && pool.Reserve(previous)) {
    state->pod_ip = previous;
    state->ip_held = true;
  } else if (auto ip = pool.Allocate()) {
    state->pod_ip = *ip;
    state->ip_held = true;
  }

  const Json& specs = At(pod, {"spec", "containers"});
  const Json& statuses = At(pod, {"status", "containerStatuses"});
  bool recovered = false;
  if (specs.is_array()) {
    for (const Json& spec : specs) {
      Tracked t;
      t.name = Str(spec, {"name"});
      t.image = Image(spec);
      t.readiness_delay = std::chrono::seconds(Int(spec, {"readinessProbe", "initialDelaySeconds"}));
      if (statuses.is_array()) {
        for (const Json& s : statuses) {
          if (Str(s, {"name"}) != t.name || !WasStarted(s)) continue;
          // Started by a previous kubelet whose process is gone: a node reboot.
          recovered = true;
          t.kubelet_restarts = static_cast<int>(Int(s, {"restartCount"})) + 1;
          TimePoint now = clock_->Now();
          t.last_termination = TerminationInfo{.exit_code = 137,
                                               .reason = "ContainerStatusUnknown",
                                               .message = kUnknownMessage,
                                               .started_at = state->start_time,
                                               .finished_at = now,
                                               .container_id = Str(s, {"containerID"})};
        }
      }
      state->containers.push_back(std::move(t));
    }
  }
  if (recovered && Str(pod, {"spec", "restartPolicy"}, "Always") == "Never") {
    // Never restart: the containers that vanished with the previous process failed.
    for (Tracked& t : state->containers) {
      if (!t.last_termination) continue;
      t.kubelet_restarts -= 1;
      t.termination = t.last_termination;
      t.last_termination.reset();
      t.run_observed = true;
      t.container_id = t.termination->container_id;
      t.last.state = ContainerRunStatus::State::kTerminated;
    }
    TimePoint now = clock_->Now();
    Json current = pod;
    current["status"] = state->last_status;
    Json status = BuildPodStatus(current, PodStatusInput{.containers = Views(pod, *state, now),
                                                         .host_ip = state->host_ip,
                                                         .pod_ip = state->pod_ip,
                                                         .start_time = state->start_time,
                                                         .now = now});
    WriteStatus(pod, *state, status);
    state->terminal = IsPodTerminal(Json{{"status", status}});
  }
  return state;
}

bool Kubelet::StartProcess(const Json& pod, PodState& state) {
  const TimePoint now = clock_->Now();
  bool first_start = state.start_failures == 0;
  for (const Tracked& t : state.containers) first_start = first_start && t.kubelet_restarts == 0;
  if (first_start) {
    for (size_t i = 0; i < state.containers.size(); ++i) {
      Tracked& t = state.containers[i];
      const Json& spec = At(pod, {"spec", "containers"})[i];
      bool present;
      {
        std::lock_guard<std::mutex> lock(mu_);
        present = images_[state.node].count(t.image) > 0;
      }
      if (present && Str(spec, {"imagePullPolicy"}) != "Always") {
        events_->Record(pod, {.component = "kubelet", .host = state.node}, "Normal", "Pulled",
                        "Container image \"" + t.image + "\" already present on machine",
                        "spec.containers{" + t.name + "}");
      } else {
        events_->Record(pod, {.component = "kubelet", .host = state.node}, "Normal", "Pulling",
                        "Pulling image \"" + t.image + "\"", "spec.containers{" + t.name + "}");
        t.pulling = true;
        t.pull_started = now;
      }
    }
  }
  PodStartContext context{.pod = pod, .pod_ip = state.pod_ip, .node_name = state.node};
  PodRunner* runner = runners_.back().get();
  for (auto& r : runners_) {
    if (r->Handles(pod)) {
      runner = r.get();
      break;
    }
  }
  auto process = state.pod_ip.empty()
                     ? StatusOr<std::unique_ptr<PodProcess>>(UnavailableError(
                           "no pod IP left in the podCIDR of node " + state.node))
                     : runner->Start(context);
  if (!process.ok()) {
    state.start_failures += 1;
    state.start_error = process.status().message();
    Duration delay = options_.backoff_initial;
    for (int i = 1; i < state.start_failures && delay < options_.backoff_max; ++i) delay *= 2;
    state.next_start = now + std::min(delay, options_.backoff_max);
    for (const Tracked& t : state.containers) {
      events_->Record(pod, {.component = "kubelet", .host = state.node}, "Warning", "Failed",
                      "Error: " + state.start_error, "spec.containers{" + t.name + "}");
    }
    spdlog::info("kubelet: starting pod {} with runner {} failed: {}", state.key, runner->name(),
                 state.start_error);
    return false;
  }
  state.process = std::shared_ptr<PodProcess>(std::move(process).value());
  state.runner = std::string(runner->name());
  state.start_error.clear();
  return true;
}

Result Kubelet::SyncRunning(const Json& pod, PodState& state) {
  TimePoint now = clock_->Now();
  Result wake = Result::After(options_.status_interval);
  if (!state.process) {
    if (now >= state.next_start) StartProcess(pod, state);
    if (!state.process) wake = Result::After(state.next_start - now);
  }
  if (state.process) {
    ObserveContainers(pod, state, state.process->Status(), now);
    wake = Result::Earliest(wake, ApplyRestartPolicy(pod, state, now));
    now = clock_->Now();
  }
  Json current = pod;
  current["status"] = state.last_status;
  Json status = BuildPodStatus(current, PodStatusInput{.containers = Views(pod, state, now),
                                                       .host_ip = state.host_ip,
                                                       .pod_ip = state.pod_ip,
                                                       .start_time = state.start_time,
                                                       .now = now});
  WriteStatus(pod, state, status);
  std::string phase = status.value("phase", "");
  if (phase == "Succeeded" || phase == "Failed") {
    state.terminal = true;
    if (state.ip_held) {  // the sandbox is gone; the status keeps showing the IP
      ip_pools_.at(state.node).Release(state.pod_ip);
      state.ip_held = false;
    }
    return Result::Done();
  }
  return wake;
}

void Kubelet::WriteStatus(const Json& pod, PodState& state, const Json& status) {
  if (status == state.last_status) return;
  Json patch = {{"status", status}};
  auto r = client_->Patch(PodsGvr(), Str(pod, {"metadata", "namespace"}),
                          Str(pod, {"metadata", "name"}), kube::PatchType::kMerge, patch.dump(),
                          {.subresource = "status"});
  if (!r.ok()) {
    if (r.status().code() != StatusCode::kNotFound) {
      spdlog::info("kubelet: status of {} not written: {}", state.key, r.status().ToString());
    }
    return;
  }
  state.last_status = status;
}

void Kubelet::BeginTermination(const Json& pod, const std::shared_ptr<PodState>& state) {
  state->terminating = true;
  for (const Tracked& t : state->containers) {
    if (t.last.state != ContainerRunStatus::State::kRunning) continue;
    events_->Record(pod, {.component = "kubelet", .host = state->node}, "Normal", "Killing",
                    "Stopping container " + t.name, "spec.containers{" + t.name + "}");
  }
  int64_t grace = Int(pod, {"metadata", "deletionGracePeriodSeconds"},
                      Int(pod, {"spec", "terminationGracePeriodSeconds"}, 30));
  std::shared_ptr<PodProcess> process = state->process;
  if (!process) {
    state->terminated = true;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++terminations_;
  }
  const std::string key = state->key;
  std::thread([this, state, process, grace, key] {
    process->Terminate(std::chrono::seconds(std::max<int64_t>(grace, 0)));
    state->terminated = true;
    controller_.Enqueue(key);
    std::lock_guard<std::mutex> lock(mu_);
    --terminations_;
    terminations_done_.notify_all();
  }).detach();
}

Result Kubelet::FinishDeletion(const Json& pod, const std::string& key, PodState& state) {
  TimePoint now = clock_->Now();
  if (state.process) ObserveContainers(pod, state, state.process->Status(), now);
  for (Tracked& t : state.containers) t.restart_at.reset();
  std::vector<ContainerView> views = Views(pod, state, now);
  for (ContainerView& v : views) {
    if (v.state == ContainerView::State::kTerminated) continue;
    // Never ran (or was waiting to restart): report it as stopped.
    v.terminated = TerminationInfo{.exit_code = v.last_termination ? v.last_termination->exit_code : 0,
                                   .reason = v.last_termination ? v.last_termination->reason
                                                                : "ContainerStatusUnknown",
                                   .started_at = state.start_time,
                                   .finished_at = now};
    v.state = ContainerView::State::kTerminated;
    v.ready = false;
  }
  Json current = pod;
  current["status"] = state.last_status;
  Json status = BuildPodStatus(current, PodStatusInput{.containers = views,
                                                       .host_ip = state.host_ip,
                                                       .pod_ip = state.pod_ip,
                                                       .start_time = state.start_time,
                                                       .now = now,
                                                       .deleted = true});
  WriteStatus(pod, state, status);
  Status deleted = client_->Delete(PodsGvr(), Str(pod, {"metadata", "namespace"}),
                                   Str(pod, {"metadata", "name"}),
                                   {.grace_period_seconds = 0, .precondition_uid = state.uid});
  if (!deleted.ok() && deleted.code() != StatusCode::kNotFound &&
      deleted.code() != StatusCode::kConflict) {
    return Result::Retry("deleting pod " + key + ": " + deleted.ToString());
  }
  Forget(key);
  return Result::Done();
}

}  // namespace trimtab::cluster::runtime
