#include "cluster/runtime/default_pod_runner.h"

#include <mutex>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/http/server.h"
#include "cluster/runtime/container_script.h"
#include "cluster/runtime/object_util.h"

namespace trimtab::cluster::runtime {
namespace {

struct Container {
  std::string name;
  std::string image;
  ContainerScript script;
  TimePoint created;                 // this run was created (start delay counts from here)
  Duration delay{0};                 // ContainerCreating time of this run
  std::optional<TimePoint> killed;   // Terminate() ended it
  int killed_exit_code = 0;
  bool exit_logged = false;
  std::string log;
};

class DefaultPodProcess final : public PodProcess {
 public:
  DefaultPodProcess(Clock* clock, const PodStartContext& context,
                    std::vector<Container> containers)
      : clock_(clock),
        pod_name_(Str(context.pod, {"metadata", "namespace"}) + "/" +
                  Str(context.pod, {"metadata", "name"})),
        pod_ip_(context.pod_ip),
        node_(context.node_name),
        containers_(std::move(containers)) {
    const TimePoint now = clock_->Now();
    for (Container& c : containers_) {
      c.created = now;
      c.delay = c.script.start_delay;
    }
  }

  ~DefaultPodProcess() override { StopServers(); }

  trimtab::Status StartServers() {
    std::lock_guard<std::mutex> lock(servers_mu_);
    for (size_t i = 0; i < containers_.size(); ++i) {
      if (!containers_[i].script.serve_http_echo) continue;
      for (int port : containers_[i].script.tcp_ports) {
        auto server = http::HttpServer::Create(
            {.address = pod_ip_, .port = port, .threads = 1,
             .stop_grace = std::chrono::milliseconds(200)},
            [this, i, port](const http::HttpRequest& r) { return Echo(i, port, r); });
        if (!server.ok()) {
          return server.status().WithContext("http-echo on " + pod_ip_ + ":" +
                                             std::to_string(port));
        }
        servers_.push_back(std::move(server).value());
      }
    }
    return trimtab::Status::Ok();
  }

  PodProcessStatus Status() const override {
    std::lock_guard<std::mutex> lock(mu_);
    const TimePoint now = clock_->Now();
    PodProcessStatus out;
    for (const Container& c : containers_) out.containers.push_back(StatusOf(c, now));
    return out;
  }

  void Terminate(std::chrono::milliseconds grace) override {
    Duration wait{0};
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const Container& c : containers_) wait = std::max(wait, c.script.termination_delay);
    }
    Duration shutdown = std::min<Duration>(wait, grace);
    if (shutdown > Duration{0}) clock_->SleepFor(shutdown);
    StopServers();
    std::lock_guard<std::mutex> lock(mu_);
    const TimePoint now = clock_->Now();
    for (Container& c : containers_) {
      if (StatusOf(c, now).state != ContainerRunStatus::State::kRunning &&
          StatusOf(c, now).state != ContainerRunStatus::State::kWaiting) {
        continue;  // already exited on its own
      }
      c.killed = now;
      c.killed_exit_code = c.script.termination_delay > grace ? 137 : 0;
      c.log += "trimtab: container " + c.name + " stopped (exit code " +
               std::to_string(c.killed_exit_code) + ")\n";
      c.exit_logged = true;
    }
  }

  std::string Logs(std::string_view container) const override {
    std::lock_guard<std::mutex> lock(mu_);
    const TimePoint now = clock_->Now();
    for (const Container& c : containers_) {
      if (c.name != container) continue;
      // Exits are noticed lazily: add the line the container would have written.
      std::string log = c.log;
      auto s = StatusOf(c, now);
      if (s.state == ContainerRunStatus::State::kTerminated && !c.exit_logged) {
        log += "trimtab: container " + c.name + " exited with code " +
               std::to_string(s.exit_code) + "\n";
      }
      return log;
    }
    return "";
  }

  bool RestartContainer(std::string_view container) override {
    std::lock_guard<std::mutex> lock(mu_);
    const TimePoint now = clock_->Now();
    for (Container& c : containers_) {
      if (c.name != container) continue;
      auto s = StatusOf(c, now);
      if (s.state == ContainerRunStatus::State::kTerminated && !c.exit_logged) {
        c.log += "trimtab: container " + c.name + " exited with code " +
                 std::to_string(s.exit_code) + "\n";
      }
      c.created = now;
      c.delay = Duration{0};  // the image is present now
      c.killed.reset();
      c.exit_logged = false;
      AppendStartLines(c);
      return true;
    }
    return false;
  }

  void AppendStartLinesForAll() {
    std::lock_guard<std::mutex> lock(mu_);
    for (Container& c : containers_) AppendStartLines(c);
  }

 private:
  void AppendStartLines(Container& c) {
    c.log += "trimtab: container " + c.name + " (image " + c.image + ") of pod " + pod_name_ +
             " on " + node_ + ", pod IP " + pod_ip_ + "\n";
    for (const std::string& line : c.script.output_lines) c.log += line + "\n";
    if (c.script.serve_http_echo) {
      for (int port : c.script.tcp_ports) {
        c.log += "http-echo: listening on " + pod_ip_ + ":" + std::to_string(port) + "\n";
      }
    }
  }

  ContainerRunStatus StatusOf(const Container& c, TimePoint now) const {
    ContainerRunStatus s;
    s.name = c.name;
    if (c.killed) {
      s.state = ContainerRunStatus::State::kTerminated;
      s.exit_code = c.killed_exit_code;
      s.reason = c.killed_exit_code == 0 ? "Completed" : "Error";
      return s;
    }
    TimePoint running_at = c.created + c.delay;
    if (now < running_at) {
      s.state = ContainerRunStatus::State::kWaiting;
      s.reason = "ContainerCreating";
      return s;
    }
    if (c.script.exit_after && now >= running_at + *c.script.exit_after) {
      s.state = ContainerRunStatus::State::kTerminated;
      s.exit_code = c.script.exit_code;
      s.reason = c.script.exit_code == 0 ? "Completed" : "Error";
      return s;
    }
    s.state = ContainerRunStatus::State::kRunning;
    s.ready = !c.script.never_ready;
    return s;
  }

  http::HttpResponse Echo(size_t container, int port, const http::HttpRequest& r) {
    std::string body;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Container& c = containers_[container];
      c.log += "http-echo: " + r.method + " " + r.target + " from " + r.remote_address + "\n";
      body = "pod: " + pod_name_ + "\ncontainer: " + c.name + "\nnode: " + node_ +
             "\npod IP: " + pod_ip_ + "\nport: " + std::to_string(port) + "\n";
    }
    body += "request: " + r.method + " " + r.target + "\n";
    for (const auto& [k, v] : r.headers) body += "header: " + k + ": " + v + "\n";
    if (!r.body.empty()) body += "body:\n" + r.body + "\n";
    return http::HttpResponse::Text(200, std::move(body));
  }

  void StopServers() {
    std::vector<std::unique_ptr<http::HttpServer>> servers;
    {
      std::lock_guard<std::mutex> lock(servers_mu_);
      servers.swap(servers_);
    }
    for (auto& s : servers) s->Stop();
  }

  Clock* clock_;
  const std::string pod_name_;
  const std::string pod_ip_;
  const std::string node_;
  mutable std::mutex mu_;
  std::vector<Container> containers_;  // guarded by mu_
  std::mutex servers_mu_;
  std::vector<std::unique_ptr<http::HttpServer>> servers_;  // guarded by servers_mu_
};

}  // namespace

StatusOr<std::unique_ptr<PodProcess>> DefaultPodRunner::Start(const PodStartContext& context) {
  std::vector<Container> containers;
  const Json& specs = At(context.pod, {"spec", "containers"});
  if (specs.is_array()) {
    for (const Json& spec : specs) {
      Container c;
      c.name = Str(spec, {"name"});
      c.image = Str(spec, {"image"});
      TRIMTAB_ASSIGN_OR_RETURN(c.script, ReadContainerScript(context.pod, spec));
      containers.push_back(std::move(c));
    }
  }
  auto process = std::make_unique<DefaultPodProcess>(clock_, context, std::move(containers));
  TRIMTAB_RETURN_IF_ERROR(process->StartServers());
  process->AppendStartLinesForAll();
  return std::unique_ptr<PodProcess>(std::move(process));
}

}  // namespace trimtab::cluster::runtime
