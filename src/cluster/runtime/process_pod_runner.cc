#include "cluster/runtime/process_pod_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/http/client.h"
#include "adapters/kube/rest_config.h"
#include "cluster/runtime/object_util.h"

namespace trimtab::cluster::runtime {
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxLogBytes = 4 * 1024 * 1024;  // `kubectl logs` shows the last 4 MiB
constexpr int64_t kKubeletTokenSeconds = 3607;

std::string ConfigMapsPath(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/configmaps/" + name;
}

std::string SecretsPath(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/secrets/" + name;
}

// GET of a core object through the runtime's client (404 -> NotFound).
StatusOr<Json> GetCore(const kube::KubeClient& client, const std::string& path) {
  TRIMTAB_ASSIGN_OR_RETURN(http::ClientResponse r, client.Raw({.method = "GET", .url = path}));
  Json body = Json::parse(r.body, nullptr, false);
  if (r.status == 404) {
    return NotFoundError(body.is_object() ? body.value("message", path) : path);
  }
  if (r.status != 200 || !body.is_object()) {
    return UnavailableError("GET " + path + ": HTTP " + std::to_string(r.status));
  }
  return body;
}

Status WriteFile(const fs::path& path, std::string_view data, fs::perms perms) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::trunc | std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out.flush()) return UnavailableError("cannot write " + path.string());
  out.close();
  fs::permissions(path, perms, ec);
  return Status::Ok();
}

std::string ReadTail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff start = size > static_cast<std::streamoff>(kMaxLogBytes)
                             ? size - static_cast<std::streamoff>(kMaxLogBytes)
                             : 0;
  in.seekg(start);
  std::string out(static_cast<size_t>(size - start), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  return out;
}

// The path `mount_to` stands for in the container: mountPath -> host directory (or file).
struct PathMapping {
  std::string container_path;
  std::string host_path;
};

// Replaces a mounted container path at the start of `value` or after '=' / ':' / ',' with its
// host path ("--config=/etc/trimtab/config.yaml").
std::string MapPaths(const std::string& value, const std::vector<PathMapping>& mappings) {
  std::string out;
  size_t i = 0;
  while (i < value.size()) {
    bool boundary = i == 0 || value[i - 1] == '=' || value[i - 1] == ':' || value[i - 1] == ',';
    bool replaced = false;
    if (boundary && value[i] == '/') {
      const PathMapping* best = nullptr;
      for (const PathMapping& m : mappings) {
        const std::string& p = m.container_path;
        if (value.compare(i, p.size(), p) != 0) continue;
        size_t end = i + p.size();
        if (end < value.size() && value[end] != '/' && value[end] != ',' && value[end] != ':') {
          continue;
        }
        if (!best || p.size() > best->container_path.size()) best = &m;
      }
      if (best) {
        out += best->host_path;
        i += best->container_path.size();
        replaced = true;
      }
    }
    if (!replaced) out.push_back(value[i++]);
  }
  return out;
}

// $(VAR) references of the Kubernetes API ($$ escapes a $).
std::string Expand(const std::string& value, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '(') {
      size_t close = value.find(')', i + 2);
      if (close != std::string::npos) {
        auto it = vars.find(value.substr(i + 2, close - i - 2));
        if (it != vars.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out.push_back(value[i]);
  }
  return out;
}

struct Probe {
  bool defined = false;
  std::string path = "/";
  int port = 0;
  std::string host;
  std::string scheme = "HTTP";
  bool http = false;  // exec / tcpSocket / grpc probes always succeed here
  Duration initial_delay{0};
  Duration period = std::chrono::seconds(10);
  Duration timeout = std::chrono::seconds(1);
  int success_threshold = 1;
  int failure_threshold = 3;
};

StatusOr<Probe> ParseProbe(const Json& container, const char* field) {
  Probe p;
  const Json& spec = At(container, {field});
  if (!spec.is_object()) return p;
  p.defined = true;
  p.initial_delay = std::chrono::seconds(Int(spec, {"initialDelaySeconds"}, 0));
  p.period = std::chrono::seconds(std::max<int64_t>(1, Int(spec, {"periodSeconds"}, 10)));
  p.timeout = std::chrono::seconds(std::max<int64_t>(1, Int(spec, {"timeoutSeconds"}, 1)));
  p.success_threshold = static_cast<int>(std::max<int64_t>(1, Int(spec, {"successThreshold"}, 1)));
  p.failure_threshold = static_cast<int>(std::max<int64_t>(1, Int(spec, {"failureThreshold"}, 3)));
  const Json& get = At(spec, {"httpGet"});
  if (!get.is_object()) return p;
  p.http = true;
  p.path = Str(get, {"path"}, "/");
  p.host = Str(get, {"host"});
  p.scheme = Str(get, {"scheme"}, "HTTP");
  const Json& port = At(get, {"port"});
  if (port.is_number_integer()) {
    p.port = port.get<int>();
  } else if (port.is_string()) {
    const std::string name = port.get<std::string>();
    const Json& ports = At(container, {"ports"});
    if (ports.is_array()) {
      for (const Json& cp : ports) {
        if (Str(cp, {"name"}) == name) p.port = static_cast<int>(Int(cp, {"containerPort"}));
      }
    }
    if (p.port == 0) {
      return InvalidArgumentError(std::string(field) + ".httpGet.port: no container port named \"" +
                                  name + "\"");
    }
  }
  return p;
}

// One run of a container: the child process and what became of it.
struct Run {
  int pid = -1;
  std::atomic<bool> exited{false};
  std::atomic<int> exit_code{0};
  std::atomic<bool> killed_by_probe{false};
};

struct ContainerState {
  std::string name;
  ProcessSpawner::Request request;
  Probe readiness;
  Probe liveness;
  std::string log_file;
  std::shared_ptr<Run> run;  // guarded by the process's mu_
  int restarts = 0;
  bool ready = false;  // guarded by mu_
  int ready_streak = 0, unready_streak = 0, live_failures = 0;
  TimePoint started;
};

class ProcessPodProcess final : public PodProcess {
 public:
  ProcessPodProcess(ProcessPodRunnerOptions options, std::shared_ptr<ProcessSpawner> spawner,
                    Json pod, std::string pod_ip, std::string node,
                    std::vector<ContainerState> containers)
      : options_(std::move(options)),
        spawner_(std::move(spawner)),
        pod_(std::move(pod)),
        pod_ip_(std::move(pod_ip)),
        node_(std::move(node)),
        containers_(std::move(containers)) {}

  ~ProcessPodProcess() override {
    Terminate(std::chrono::milliseconds(0));
    StopProber();
  }

  trimtab::Status StartAll() {
    auto client = http::HttpClient::Create({});
    if (!client.ok()) return client.status();
    http_ = std::move(client).value();
    for (size_t i = 0; i < containers_.size(); ++i) TRIMTAB_RETURN_IF_ERROR(Spawn(i));
    prober_ = std::thread([this] { ProbeLoop(); });
    return trimtab::Status::Ok();
  }

  PodProcessStatus Status() const override {
    std::lock_guard<std::mutex> lock(mu_);
    PodProcessStatus out;
    for (const ContainerState& c : containers_) {
      ContainerRunStatus s;
      s.name = c.name;
      s.restart_count = c.restarts;
      if (!c.run) {
        s.state = ContainerRunStatus::State::kWaiting;
        s.reason = "ContainerCreating";
      } else if (c.run->exited) {
        s.state = ContainerRunStatus::State::kTerminated;
        s.exit_code = c.run->exit_code;
        s.reason = s.exit_code == 0 ? "Completed" : "Error";
      } else {
        s.state = ContainerRunStatus::State::kRunning;
        s.ready = c.readiness.defined ? c.ready : true;
      }
      out.containers.push_back(std::move(s));
    }
    return out;
  }

  void Terminate(std::chrono::milliseconds grace) override {
    std::vector<std::shared_ptr<Run>> runs;
    {
      std::lock_guard<std::mutex> lock(mu_);
      terminating_ = true;
      for (ContainerState& c : containers_) {
        if (c.run && !c.run->exited) runs.push_back(c.run);
      }
    }
    for (auto& r : runs) ::kill(-r->pid, grace.count() > 0 ? SIGTERM : SIGKILL);
    const TimePoint deadline = options_.clock->Now() + grace;
    auto all_exited = [&] {
      for (auto& r : runs) {
        if (!r->exited) return false;
      }
      return true;
    };
    while (!all_exited() && options_.clock->Now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (auto& r : runs) {
      if (!r->exited) ::kill(-r->pid, SIGKILL);
    }
    while (!all_exited()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  std::string Logs(std::string_view container) const override {
    std::string file;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const ContainerState& c : containers_) {
        if (c.name == container || (container.empty() && containers_.size() == 1)) {
          file = c.log_file;
        }
      }
    }
    return file.empty() ? "" : ReadTail(file);
  }

  bool RestartContainer(std::string_view container) override {
    for (size_t i = 0; i < containers_.size(); ++i) {
      if (containers_[i].name != container) continue;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (terminating_) return false;
        containers_[i].restarts += 1;
      }
      trimtab::Status s = Spawn(i);
      if (!s.ok()) spdlog::warn("process runner: restarting {}: {}", container, s.ToString());
      return true;
    }
    return false;
  }

 private:
  trimtab::Status Spawn(size_t i) {
    ContainerState& c = containers_[i];
    // The current log becomes the previous one.
    std::error_code ec;
    if (fs::exists(c.log_file, ec)) fs::rename(c.log_file, c.log_file + ".previous", ec);
    StatusOr<int> pid = spawner_->Spawn(c.request);
    if (!pid.ok()) return pid.status().WithContext("container " + c.name);
    auto run = std::make_shared<Run>();
    run->pid = *pid;
    {
      std::lock_guard<std::mutex> lock(mu_);
      c.run = run;
      c.ready = false;
      c.ready_streak = c.unready_streak = c.live_failures = 0;
      c.started = options_.clock->Now();
    }
    // Reaps the child; exit status -> exit code (128 + signal when killed).
    std::thread([run] {
      int status = 0;
      while (::waitpid(run->pid, &status, 0) < 0 && errno == EINTR) {
      }
      run->exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                       : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                             : 1;
      run->exited = true;
    }).detach();
    spdlog::info("process runner: pod {}/{} container {} started (pid {})",
                 Str(pod_, {"metadata", "namespace"}), Str(pod_, {"metadata", "name"}), c.name,
                 *pid);
    return trimtab::Status::Ok();
  }

  // One HTTP probe: success for 200 <= code < 400.
  std::optional<std::string> ProbeOnce(const Probe& p) {
    if (!p.http) return std::nullopt;
    std::string scheme = p.scheme == "HTTPS" ? "https" : "http";
    std::string url = scheme + "://" + (p.host.empty() ? pod_ip_ : p.host) + ":" +
                      std::to_string(p.port) + p.path;
    auto r = http_->Do({.method = "GET",
                        .url = url,
                        .headers = {{"User-Agent", "kube-probe/1.32"}},
                        .timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
                            p.timeout)});
    if (!r.ok()) return "Get \"" + url + "\": " + r.status().message();
    if (r->status >= 200 && r->status < 400) return std::nullopt;
    return "HTTP probe failed with statuscode: " + std::to_string(r->status);
  }

  void Event(const std::string& type, const std::string& reason, const std::string& message,
             const std::string& container) {
    if (!options_.events) return;
    options_.events->Record(pod_, {.component = "kubelet", .host = node_}, type, reason, message,
                            "spec.containers{" + container + "}");
  }

  void ProbeLoop() {
    std::map<std::string, TimePoint> next_readiness, next_liveness;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(prober_mu_);
        prober_cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return stop_prober_; });
        if (stop_prober_) return;
      }
      const TimePoint now = options_.clock->Now();
      for (ContainerState& c : containers_) {
        std::shared_ptr<Run> run;
        TimePoint started;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (terminating_) return;
          run = c.run;
          started = c.started;
        }
        if (!run || run->exited) continue;
        const std::string key = c.name + "/" + std::to_string(run->pid);
        auto due = [&](std::map<std::string, TimePoint>& next, const Probe& p) {
          auto it = next.find(key);
          if (it == next.end()) it = next.emplace(key, started + p.initial_delay).first;
          if (now < it->second) return false;
          it->second = now + p.period;
          return true;
        };
        if (c.readiness.defined && due(next_readiness, c.readiness)) {
          std::optional<std::string> failure = ProbeOnce(c.readiness);
          std::lock_guard<std::mutex> lock(mu_);
          if (!failure) {
            c.unready_streak = 0;
            if (++c.ready_streak >= c.readiness.success_threshold) c.ready = true;
          } else {
            c.ready_streak = 0;
            if (++c.unready_streak >= c.readiness.failure_threshold) c.ready = false;
            if (c.unready_streak == 1 || c.ready) {
              Event("Warning", "Unhealthy", "Readiness probe failed: " + *failure, c.name);
            }
          }
        }
        if (c.liveness.defined && due(next_liveness, c.liveness)) {
          std::optional<std::string> failure = ProbeOnce(c.liveness);
          if (!failure) {
            c.live_failures = 0;
          } else if (++c.live_failures >= c.liveness.failure_threshold) {
            Event("Warning", "Unhealthy", "Liveness probe failed: " + *failure, c.name);
            Event("Normal", "Killing",
                  "Container " + c.name + " failed liveness probe, will be restarted", c.name);
            run->killed_by_probe = true;
            ::kill(-run->pid, SIGTERM);
            c.live_failures = 0;
          } else {
            Event("Warning", "Unhealthy", "Liveness probe failed: " + *failure, c.name);
          }
        }
      }
    }
  }

  void StopProber() {
    {
      std::lock_guard<std::mutex> lock(prober_mu_);
      stop_prober_ = true;
    }
    prober_cv_.notify_all();
    if (prober_.joinable()) prober_.join();
  }

  const ProcessPodRunnerOptions options_;
  std::shared_ptr<ProcessSpawner> spawner_;
  const Json pod_;
  const std::string pod_ip_;
  const std::string node_;
  std::unique_ptr<http::HttpClient> http_;

  mutable std::mutex mu_;
  std::vector<ContainerState> containers_;  // the vector is fixed; fields per their comments
  bool terminating_ = false;                // guarded by mu_

  std::mutex prober_mu_;
  std::condition_variable prober_cv_;
  bool stop_prober_ = false;  // guarded by prober_mu_
  std::thread prober_;
};

// The environment of every process container: what a kubelet and the local stand-ins give it.
struct PodEnvironment {
  std::vector<std::string> base;           // NAME=value
  std::map<std::string, std::string> vars;  // for $(VAR) expansion
};

}  // namespace

bool IsImageOf(std::string_view image, std::string_view repository) {
  std::string_view name = image.substr(0, image.find('@'));
  size_t slash = name.rfind('/');
  size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    name = name.substr(0, colon);
  }
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  return name == repository;
}

// --- ProcessSpawner --------------------------------------------------------------------------

struct ProcessSpawner::Job {
  Request request;
  bool done = false;
  StatusOr<int> result = InternalError("not spawned");
};

ProcessSpawner::ProcessSpawner() { thread_ = std::thread([this] { Loop(); }); }

ProcessSpawner::~ProcessSpawner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

StatusOr<int> ProcessSpawner::Spawn(Request request) {
  auto job = std::make_shared<Job>();
  job->request = std::move(request);
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) return UnavailableError("process spawner stopped");
  jobs_.push_back(job);
  cv_.notify_all();
  cv_.wait(lock, [&] { return job->done; });
  return job->result;
}

void ProcessSpawner::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty() && stopping_) return;
    std::shared_ptr<Job> job = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    const Request& r = job->request;
    // Everything the child needs is prepared before fork: only async-signal-safe calls follow.
    std::vector<char*> argv, envp;
    for (const std::string& a : r.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : r.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    int log_fd = ::open(r.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int error_pipe[2] = {-1, -1};
    struct rlimit files {};
    int max_fd = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 65536
                     ? static_cast<int>(files.rlim_cur)
                     : 65536;
    StatusOr<int> result = InternalError("spawn failed");
    if (log_fd < 0 || null_fd < 0 || ::pipe2(error_pipe, O_CLOEXEC) != 0) {
      result = UnavailableError("cannot open " + r.log_file + ": " + std::strerror(errno));
    } else {
      const pid_t parent = ::getpid();
      pid_t pid = ::fork();
      if (pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        sigset_t all;
        sigemptyset(&all);
        ::sigprocmask(SIG_SETMASK, &all, nullptr);  // trimtab local blocks SIGTERM/SIGINT
        ::dup2(null_fd, 0);
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
        // Nothing of trimtab local's (listening sockets, the database) leaks into the child.
        for (int fd = 3; fd < max_fd; ++fd) {
          if (fd != error_pipe[1]) ::close(fd);
        }
        if (!r.working_dir.empty() && ::chdir(r.working_dir.c_str()) != 0) {
          int e = errno;
          (void)!::write(error_pipe[1], &e, sizeof(e));
          ::_exit(127);
        }
        ::execve(argv[0], argv.data(), envp.data());
        int e = errno;
        (void)!::write(error_pipe[1], &e, sizeof(e));
        ::_exit(127);
      }
      ::close(error_pipe[1]);
      if (pid < 0) {
        result = UnavailableError(std::string("fork: ") + std::strerror(errno));
      } else {
        int child_errno = 0;
        ssize_t n;
        while ((n = ::read(error_pipe[0], &child_errno, sizeof(child_errno))) < 0 &&
               errno == EINTR) {
        }
        if (n == static_cast<ssize_t>(sizeof(child_errno))) {
          ::waitpid(pid, nullptr, 0);
          result = UnavailableError("exec " + r.argv[0] + ": " + std::strerror(child_errno));
        } else {
          result = static_cast<int>(pid);
        }
      }
      ::close(error_pipe[0]);
    }
    if (log_fd >= 0) ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    lock.lock();
    job->result = std::move(result);
    job->done = true;
    cv_.notify_all();
  }
}

// --- ProcessPodRunner ------------------------------------------------------------------------

ProcessPodRunner::ProcessPodRunner(ProcessPodRunnerOptions options)
    : options_(std::move(options)), spawner_(std::make_shared<ProcessSpawner>()) {
  if (options_.executable.empty()) {
    std::error_code ec;
    options_.executable = fs::read_symlink("/proc/self/exe", ec).string();
  }
  if (!options_.clock) options_.clock = RealClock::Default();
}

bool ProcessPodRunner::Handles(const Json& pod) const {
  const Json& containers = At(pod, {"spec", "containers"});
  if (!containers.is_array() || containers.empty()) return false;
  for (const Json& c : containers) {
    if (!IsImageOf(Str(c, {"image"}), options_.image)) return false;
  }
  return true;
}

namespace {

// The files of a configMap or secret volume: key -> bytes, limited to `items` when given.
StatusOr<std::map<std::string, std::string>> VolumeFiles(const kube::KubeClient& client,
                                                        const std::string& ns, const Json& volume,
                                                        bool* optional_missing) {
  *optional_missing = false;
  const bool is_secret = At(volume, {"secret"}).is_object();
  const Json& source = is_secret ? At(volume, {"secret"}) : At(volume, {"configMap"});
  const std::string name = is_secret ? Str(source, {"secretName"}) : Str(source, {"name"});
  auto object = GetCore(client, is_secret ? SecretsPath(ns, name) : ConfigMapsPath(ns, name));
  if (!object.ok()) {
    if (object.status().code() == StatusCode::kNotFound && Bool(source, {"optional"})) {
      *optional_missing = true;
      return std::map<std::string, std::string>{};
    }
    return object.status().WithContext(std::string("MountVolume.SetUp failed for volume \"") +
                                       Str(volume, {"name"}) + "\"");
  }
  std::map<std::string, std::string> data;
  for (const char* field : {"data", "binaryData", "stringData"}) {
    const Json& entries = At(*object, {field});
    if (!entries.is_object()) continue;
    for (const auto& [key, value] : entries.items()) {
      if (!value.is_string()) continue;
      const bool base64 = is_secret ? std::string(field) != "stringData"
                                    : std::string(field) == "binaryData";
      if (base64) {
        auto decoded = kube::Base64Decode(value.get<std::string>());
        if (!decoded.ok()) return decoded.status().WithContext("key " + key);
        data[key] = *decoded;
      } else {
        data[key] = value.get<std::string>();
      }
    }
  }
  const Json& items = At(source, {"items"});
  if (!items.is_array() || items.empty()) return data;
  std::map<std::string, std::string> selected;
  for (const Json& item : items) {
    auto it = data.find(Str(item, {"key"}));
    if (it == data.end()) {
      if (Bool(source, {"optional"})) continue;
      return NotFoundError("configmap references non-existent config key: " +
                           Str(item, {"key"}));
    }
    selected[Str(item, {"path"}, it->first)] = it->second;
  }
  return selected;
}

StatusOr<std::string> EnvValueFrom(const kube::KubeClient& client, const Json& pod,
                                   const std::string& pod_ip, const Json& from,
                                   const std::string& var) {
  const Json& field_ref = At(from, {"fieldRef"});
  if (field_ref.is_object()) {
    std::string path = Str(field_ref, {"fieldPath"});
    if (path == "metadata.name") return Str(pod, {"metadata", "name"});
    if (path == "metadata.namespace") return Str(pod, {"metadata", "namespace"});
    if (path == "metadata.uid") return Str(pod, {"metadata", "uid"});
    if (path == "spec.nodeName") return Str(pod, {"spec", "nodeName"});
    if (path == "spec.serviceAccountName") return Str(pod, {"spec", "serviceAccountName"});
    if (path == "status.podIP") return pod_ip;
    if (path == "status.hostIP") return Str(pod, {"status", "hostIP"});
    for (const char* map : {"labels", "annotations"}) {
      std::string prefix = std::string("metadata.") + map + "['";
      if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 2) {
        std::string key = path.substr(prefix.size(), path.size() - prefix.size() - 2);
        return Str(pod, {"metadata", map, key});
      }
    }
    return InvalidArgumentError("env " + var + ": fieldRef " + path + " is not supported");
  }
  for (const char* kind : {"configMapKeyRef", "secretKeyRef"}) {
    const Json& ref = At(from, {kind});
    if (!ref.is_object()) continue;
    const bool secret = std::string(kind) == "secretKeyRef";
    const std::string ns = Str(pod, {"metadata", "namespace"});
    auto object = GetCore(client, secret ? SecretsPath(ns, Str(ref, {"name"}))
                                         : ConfigMapsPath(ns, Str(ref, {"name"})));
    if (!object.ok()) {
      if (Bool(ref, {"optional"})) return std::string();
      return object.status().WithContext("env " + var);
    }
    const std::string key = Str(ref, {"key"});
    const Json& value = At(*object, {"data", key});
    if (!value.is_string()) {
      if (Bool(ref, {"optional"})) return std::string();
      return NotFoundError("env " + var + ": key " + key + " not found in " + Str(ref, {"name"}));
    }
    if (!secret) return value.get<std::string>();
    return kube::Base64Decode(value.get<std::string>());
  }
  return InvalidArgumentError("env " + var + ": this valueFrom is not supported");
}

// The token the kubelet would project for the pod (TokenRequest bound to it).
StatusOr<std::string> PodToken(const kube::KubeClient& client, const Json& pod) {
  const std::string ns = Str(pod, {"metadata", "namespace"});
  const std::string sa = Str(pod, {"spec", "serviceAccountName"}, "default");
  Json request = {{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"spec",
                   {{"expirationSeconds", kKubeletTokenSeconds},
                    {"boundObjectRef",
                     {{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"name", Str(pod, {"metadata", "name"})},
                      {"uid", Str(pod, {"metadata", "uid"})}}}}}};
  TRIMTAB_ASSIGN_OR_RETURN(
      http::ClientResponse r,
      client.Raw({.method = "POST",
                  .url = "/api/v1/namespaces/" + ns + "/serviceaccounts/" + sa + "/token",
                  .headers = {{"Content-Type", "application/json"}},
                  .body = request.dump()}));
  Json body = Json::parse(r.body, nullptr, false);
  if (r.status != 201 || !body.is_object()) {
    std::string message = body.is_object() ? body.value("message", r.body) : r.body;
    return UnavailableError("service account token for " + ns + "/" + sa + ": " + message);
  }
  return Str(body, {"status", "token"});
}

}  // namespace

StatusOr<std::unique_ptr<PodProcess>> ProcessPodRunner::Start(const PodStartContext& context) {
  if (!options_.client) return FailedPreconditionError("process runner: no API client");
  const Json& pod = context.pod;
  const std::string ns = Str(pod, {"metadata", "namespace"});
  const std::string name = Str(pod, {"metadata", "name"});
  const fs::path dir = fs::absolute(fs::path(options_.data_dir.empty() ? "." : options_.data_dir) /
                                    "pods" / (ns + "_" + name + "_" + Str(pod, {"metadata", "uid"})));
  std::error_code ec;
  fs::remove_all(dir / "volumes", ec);
  fs::remove_all(dir / "serviceaccount", ec);
  fs::create_directories(dir / "logs", ec);
  if (ec) return UnavailableError("process runner: cannot create " + dir.string() + ": " + ec.message());

  // The service account token, namespace and, for an https:// API server, ca.crt.
  PodEnvironment env;
  bool automount = Bool(pod, {"spec", "automountServiceAccountToken"}, true);
  if (automount) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string token, PodToken(*options_.client, pod));
    TRIMTAB_RETURN_IF_ERROR(WriteFile(dir / "serviceaccount" / "token", token,
                                      fs::perms::owner_read | fs::perms::owner_write));
    TRIMTAB_RETURN_IF_ERROR(WriteFile(dir / "serviceaccount" / "namespace", ns,
                                      fs::perms::owner_read | fs::perms::owner_write));
    if (!options_.api_server_ca.empty()) {
      TRIMTAB_RETURN_IF_ERROR(WriteFile(dir / "serviceaccount" / "ca.crt", options_.api_server_ca,
                                        fs::perms::owner_read | fs::perms::owner_write));
    }
  }

  // Volumes.
  std::map<std::string, fs::path> volume_dirs;
  const Json& volumes = At(pod, {"spec", "volumes"});
  if (volumes.is_array()) {
    for (const Json& v : volumes) {
      const std::string vname = Str(v, {"name"});
      const fs::path vdir = dir / "volumes" / vname;
      fs::create_directories(vdir, ec);
      volume_dirs[vname] = vdir;
      if (At(v, {"configMap"}).is_object() || At(v, {"secret"}).is_object()) {
        bool missing = false;
        TRIMTAB_ASSIGN_OR_RETURN(auto files, VolumeFiles(*options_.client, ns, v, &missing));
        for (const auto& [file, data] : files) {
          TRIMTAB_RETURN_IF_ERROR(WriteFile(vdir / file, data,
                                            fs::perms::owner_read | fs::perms::owner_write |
                                                fs::perms::group_read | fs::perms::others_read));
        }
      }
    }
  }

  const std::string server = options_.api_server_url;
  std::string host = "127.0.0.1", port = "80";
  {
    std::string rest = server.substr(server.find("://") == std::string::npos
                                         ? 0
                                         : server.find("://") + 3);
    size_t colon = rest.rfind(':');
    host = colon == std::string::npos ? rest : rest.substr(0, colon);
    port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
    while (!port.empty() && port.back() == '/') port.pop_back();
  }
  const char* path_env = std::getenv("PATH");
  env.base = {"PATH=" + std::string(path_env ? path_env : "/usr/local/bin:/usr/bin:/bin"),
              "HOSTNAME=" + name,
              "HOME=/",
              "KUBERNETES_SERVICE_HOST=" + host,
              "KUBERNETES_SERVICE_PORT=" + port,
              "TRIMTAB_HEALTH_ADDRESS=" + context.pod_ip,
              "TRIMTAB_RESOLVE_SERVICES_VIA_API=true"};
  if (server.rfind("https://", 0) != 0) env.base.push_back("TRIMTAB_KUBERNETES_SERVICE_SCHEME=http");
  if (automount) env.base.push_back("TRIMTAB_SERVICE_ACCOUNT_DIR=" + (dir / "serviceaccount").string());
  if (auto* scaled = dynamic_cast<ScaledClock*>(options_.clock)) {
    // speed,virtual-now-ms,wall-now-ms: the child runs its clock from the same point.
    const int64_t wall =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch()).count();
    env.base.push_back("TRIMTAB_LOCAL_CLOCK=" + std::to_string(scaled->speed()) + "," +
                       std::to_string(ToUnixMillis(scaled->Now())) + "," + std::to_string(wall));
  }
  for (const std::string& e : env.base) {
    size_t eq = e.find('=');
    env.vars[e.substr(0, eq)] = e.substr(eq + 1);
  }

  std::vector<ContainerState> containers;
  const Json& specs = At(pod, {"spec", "containers"});
  for (const Json& spec : specs) {
    ContainerState c;
    c.name = Str(spec, {"name"});
    c.log_file = (dir / "logs" / (c.name + ".log")).string();
    TRIMTAB_ASSIGN_OR_RETURN(c.readiness, ParseProbe(spec, "readinessProbe"));
    TRIMTAB_ASSIGN_OR_RETURN(c.liveness, ParseProbe(spec, "livenessProbe"));

    std::vector<PathMapping> mappings;
    std::vector<std::string> extra_env;
    const Json& mounts = At(spec, {"volumeMounts"});
    if (mounts.is_array()) {
      for (const Json& m : mounts) {
        auto it = volume_dirs.find(Str(m, {"name"}));
        if (it == volume_dirs.end()) {
          return InvalidArgumentError("container " + c.name + ": volumeMount " +
                                      Str(m, {"name"}) + " names no volume");
        }
        std::string mount_path = Str(m, {"mountPath"});
        while (mount_path.size() > 1 && mount_path.back() == '/') mount_path.pop_back();
        fs::path host_path = it->second;
        if (!Str(m, {"subPath"}).empty()) host_path /= Str(m, {"subPath"});
        mappings.push_back({mount_path, host_path.string()});
        if (mount_path == "/tmp") extra_env.push_back("TMPDIR=" + host_path.string());
      }
    }
    if (automount) {
      mappings.push_back({"/var/run/secrets/kubernetes.io/serviceaccount",
                          (dir / "serviceaccount").string()});
    }

    // Environment: base, then the container's env in order ($(VAR) sees earlier ones).
    std::map<std::string, std::string> vars = env.vars;
    std::vector<std::pair<std::string, std::string>> container_env;
    const Json& env_spec = At(spec, {"env"});
    if (env_spec.is_array()) {
      for (const Json& e : env_spec) {
        const std::string var = Str(e, {"name"});
        std::string value;
        if (At(e, {"valueFrom"}).is_object()) {
          TRIMTAB_ASSIGN_OR_RETURN(value, EnvValueFrom(*options_.client, pod, context.pod_ip,
                                                       At(e, {"valueFrom"}), var));
        } else {
          value = MapPaths(Expand(Str(e, {"value"}), vars), mappings);
        }
        vars[var] = value;
        container_env.emplace_back(var, value);
      }
    }
    std::map<std::string, std::string> merged;
    for (const std::string& e : env.base) merged[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
    for (const std::string& e : extra_env) merged[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
    for (const auto& [k, v] : container_env) merged[k] = v;
    for (const auto& [k, v] : merged) c.request.env.push_back(k + "=" + v);

    // Command line: the image's entrypoint is trimtab, its CMD "operator".
    const Json& command = At(spec, {"command"});
    if (command.is_array() && !command.empty()) {
      std::string first = command[0].is_string() ? command[0].get<std::string>() : "";
      if (first != "trimtab" && first != "/usr/local/bin/trimtab") {
        return InvalidArgumentError("container " + c.name + ": command " + first +
                                    " cannot run in a process pod (only trimtab can)");
      }
    }
    c.request.argv.push_back(options_.executable);
    if (command.is_array()) {
      for (size_t i = 1; i < command.size(); ++i) {
        c.request.argv.push_back(MapPaths(Expand(command[i].get<std::string>(), vars), mappings));
      }
    }
    const Json& args = At(spec, {"args"});
    if (args.is_array() && !args.empty()) {
      for (const Json& a : args) {
        c.request.argv.push_back(MapPaths(Expand(a.is_string() ? a.get<std::string>() : a.dump(),
                                                 vars),
                                          mappings));
      }
    } else if (!command.is_array() || command.empty()) {
      c.request.argv.push_back("operator");
    }
    c.request.log_file = c.log_file;
    c.request.working_dir = dir.string();
    containers.push_back(std::move(c));
  }
  auto process = std::make_unique<ProcessPodProcess>(options_, spawner_, pod, context.pod_ip,
                                                     context.node_name, std::move(containers));
  TRIMTAB_RETURN_IF_ERROR(process->StartAll());
  return std::unique_ptr<PodProcess>(std::move(process));
}

}  // namespace trimtab::cluster::runtime
