// The Kubelet's container bookkeeping: what the pod process reports becomes container runs
// (with Created/Started events), terminations, CrashLoopBackOff restarts and the ContainerViews
// pod_status.h turns into pod.status.
#include <cstdio>
#include <functional>
#include <random>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/kubelet.h"
#include "cluster/runtime/kubelet_pod.h"
#include "cluster/runtime/object_util.h"
#include "common/duration.h"

namespace trimtab::cluster::runtime {
namespace {

std::string RandomHex(size_t n) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(kHex[rng() & 15]);
  return out;
}

std::string HashHex(const std::string& text, size_t n) {
  std::string out;
  uint64_t h = std::hash<std::string>{}(text);
  while (out.size() < n) {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
    out += buf;
    h = h * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  return out.substr(0, n);
}

// "nginx:1.27" -> "docker.io/library/nginx@sha256:<digest of the name>".
std::string ImageId(const std::string& image) {
  std::string repo = image.substr(0, image.find('@'));
  size_t slash = repo.rfind('/');
  size_t colon = repo.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    repo = repo.substr(0, colon);
  }
  size_t first_slash = repo.find('/');
  std::string head = first_slash == std::string::npos ? "" : repo.substr(0, first_slash);
  bool has_registry = head.find('.') != std::string::npos || head.find(':') != std::string::npos ||
                      head == "localhost";
  if (first_slash == std::string::npos) {
    repo = "docker.io/library/" + repo;
  } else if (!has_registry) {
    repo = "docker.io/" + repo;
  }
  return repo + "@sha256:" + HashHex(image, 64);
}

std::string FieldPath(const std::string& container) { return "spec.containers{" + container + "}"; }

std::string PodRef(const Json& pod) {
  return Str(pod, {"metadata", "name"}) + "_" + Str(pod, {"metadata", "namespace"}) + "(" +
         Str(pod, {"metadata", "uid"}) + ")";
}

bool ShouldRestart(const std::string& policy, int exit_code) {
  return policy == "Always" || (policy == "OnFailure" && exit_code != 0);
}

std::string Seconds(Duration d) {
  return FormatGoDuration(std::chrono::duration_cast<std::chrono::seconds>(d));
}

}  // namespace

void Kubelet::RecordStartEvents(const Json& pod, PodState& state, size_t index, TimePoint now) {
  Tracked& t = state.containers[index];
  const EventSource source{.component = "kubelet", .host = state.node};
  if (t.pulling) {
    Duration took = now - t.pull_started;
    std::string d = FormatGoDuration(std::chrono::duration_cast<std::chrono::milliseconds>(took));
    int64_t size = 10'000'000 + static_cast<int64_t>(std::hash<std::string>{}(t.image) % 190'000'000);
    events_->Record(pod, source, "Normal", "Pulled",
                    "Successfully pulled image \"" + t.image + "\" in " + d + " (" + d +
                        " including waiting). Image size: " + std::to_string(size) + " bytes.",
                    FieldPath(t.name));
    t.pulling = false;
    std::lock_guard<std::mutex> lock(mu_);
    images_[state.node].insert(t.image);
  } else if (t.kubelet_restarts > 0) {
    events_->Record(pod, source, "Normal", "Pulled",
                    "Container image \"" + t.image + "\" already present on machine",
                    FieldPath(t.name));
  }
  events_->Record(pod, source, "Normal", "Created", "Created container: " + t.name,
                  FieldPath(t.name));
  events_->Record(pod, source, "Normal", "Started", "Started container " + t.name,
                  FieldPath(t.name));
}

void Kubelet::ObserveContainers(const Json& pod, PodState& state, const PodProcessStatus& observed,
                                TimePoint now) {
  for (size_t i = 0; i < state.containers.size(); ++i) {
    Tracked& t = state.containers[i];
    const ContainerRunStatus* rs = nullptr;
    for (const ContainerRunStatus& c : observed.containers) {
      if (c.name == t.name) rs = &c;
    }
    if (!rs && i < observed.containers.size()) rs = &observed.containers[i];
    if (!rs) continue;
    if (rs->restart_count > t.runner_restarts) {
      // The runner restarted the container itself.
      if (t.termination) t.last_termination = t.termination;
      t.termination.reset();
      t.run_observed = false;
      t.runner_restarts = rs->restart_count;
    }
    const bool ran = rs->state != ContainerRunStatus::State::kWaiting;
    if (ran && !t.run_observed) {
      t.run_observed = true;
      t.run_started = now;
      t.container_id = "containerd://" + RandomHex(64);
      if (t.image_id.empty()) t.image_id = ImageId(t.image);
      RecordStartEvents(pod, state, i, now);
    }
    if (rs->state == ContainerRunStatus::State::kTerminated && !t.termination) {
      t.termination = TerminationInfo{
          .exit_code = rs->exit_code,
          .reason = !rs->reason.empty() ? rs->reason : (rs->exit_code == 0 ? "Completed" : "Error"),
          .message = rs->message,
          .started_at = t.run_started,
          .finished_at = now,
          .container_id = t.container_id};
    }
    t.last = *rs;
  }
}

Result Kubelet::ApplyRestartPolicy(const Json& pod, PodState& state, TimePoint now) {
  const std::string policy = Str(pod, {"spec", "restartPolicy"}, "Always");
  Result wake = Result::Done();
  std::vector<size_t> due;
  for (size_t i = 0; i < state.containers.size(); ++i) {
    Tracked& t = state.containers[i];
    if (!t.termination || !ShouldRestart(policy, t.termination->exit_code)) continue;
    if (!t.restart_at) {
      // kubelet doBackOff: the first crash (or one long after the last) restarts at once.
      bool expired = !t.has_backoff ||
                     t.termination->finished_at - t.backoff_updated > 2 * options_.backoff_max;
      if (expired) t.has_backoff = false;
      t.restart_at = t.has_backoff ? t.termination->finished_at + t.backoff : now;
      t.backoff_event_sent = false;
    }
    if (now >= *t.restart_at) {
      due.push_back(i);
      continue;
    }
    wake = Result::Earliest(wake, Result::After(*t.restart_at - now));
    if (!t.backoff_event_sent) {
      events_->Record(pod, {.component = "kubelet", .host = state.node}, "Warning", "BackOff",
                      "Back-off restarting failed container " + t.name + " in pod " + PodRef(pod),
                      FieldPath(t.name));
      t.backoff_event_sent = true;
    }
  }
  if (due.empty()) return wake;

  // `kubectl logs --previous` reads the log of the run that ended.
  auto keep_log = [&](const Tracked& t) {
    if (!state.process) return;
    std::string log = state.process->Logs(t.name);
    std::lock_guard<std::mutex> lock(mu_);
    previous_logs_[state.uid + "/" + t.name] = std::move(log);
  };
  auto restarted = [&](Tracked& t) {
    t.backoff = t.has_backoff ? std::min(2 * t.backoff, options_.backoff_max)
                              : options_.backoff_initial;
    t.has_backoff = true;
    t.backoff_updated = now;
    t.last_termination = t.termination;
    t.termination.reset();
    t.restart_at.reset();
    t.run_observed = false;
    t.kubelet_restarts += 1;
  };
  bool whole_pod = false;
  for (size_t i : due) {
    keep_log(state.containers[i]);
    if (!state.process->RestartContainer(state.containers[i].name)) {
      whole_pod = true;
      break;
    }
    restarted(state.containers[i]);
  }
  if (whole_pod) {
    // The runner restarts only whole pods: stop it and start it again; every container counts
    // a restart.
    state.process->Terminate(std::chrono::milliseconds(0));
    for (const Tracked& t : state.containers) keep_log(t);
    state.process.reset();
    for (Tracked& t : state.containers) {
      if (!t.termination) {
        t.termination = TerminationInfo{.exit_code = 137,
                                        .reason = "Error",
                                        .started_at = t.run_started,
                                        .finished_at = now,
                                        .container_id = t.container_id};
      }
      restarted(t);
    }
    StartProcess(pod, state);
  }
  if (state.process) ObserveContainers(pod, state, state.process->Status(), clock_->Now());
  return Result::Earliest(wake, Result::After(options_.status_interval));
}

std::vector<ContainerView> Kubelet::Views(const Json& pod, const PodState& state,
                                          TimePoint now) const {
  std::vector<ContainerView> out;
  for (const Tracked& t : state.containers) {
    ContainerView v;
    v.name = t.name;
    v.image = t.image;
    v.image_id = t.image_id;
    v.container_id = t.container_id;
    v.restart_count = t.kubelet_restarts + t.runner_restarts;
    v.last_termination = t.last_termination;
    if (!state.process && !state.start_error.empty() && !t.termination) {
      v.waiting_reason = "CreateContainerError";
      v.waiting_message = state.start_error;
    } else if (!t.run_observed) {
      v.waiting_reason = t.last.reason.empty() ? "ContainerCreating" : t.last.reason;
      v.waiting_message = t.last.message;
    } else if (t.termination && t.restart_at) {
      Duration backoff = t.has_backoff ? t.backoff : Duration{0};
      v.waiting_reason = "CrashLoopBackOff";
      v.waiting_message = "back-off " + Seconds(backoff) + " restarting failed container=" +
                          t.name + " pod=" + PodRef(pod);
      v.last_termination = t.termination;
    } else if (t.termination) {
      v.state = ContainerView::State::kTerminated;
      v.terminated = t.termination;
    } else if (t.last.state == ContainerRunStatus::State::kRunning) {
      v.state = ContainerView::State::kRunning;
      v.started_at = t.run_started;
      v.started = true;
      v.ready = t.last.ready && now >= t.run_started + t.readiness_delay;
    } else {
      v.waiting_reason = t.last.reason.empty() ? "ContainerCreating" : t.last.reason;
      v.waiting_message = t.last.message;
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace trimtab::cluster::runtime
