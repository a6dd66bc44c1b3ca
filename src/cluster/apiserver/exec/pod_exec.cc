#include "cluster/apiserver/exec/pod_exec.h"

#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

namespace trimtab::cluster::exec {
namespace {

constexpr char kStdin = 0, kStdout = 1, kStderr = 2, kStatus = 3, kClose = '\xff';
constexpr size_t kChunk = 32 << 10;
constexpr size_t kMaxStdin = 16 << 20;  // the sandbox's capacity plus tar's overhead

bool Truthy(const std::string* v) { return v && (*v == "true" || *v == "1"); }

std::string Str(const Json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

const Json& Field(const Json& o, const char* key) {
  static const Json kNull;
  return o.is_object() && o.contains(key) ? o[key] : kNull;
}

// Go's base64.StdEncoding, for Secret data; undecodable text is kept as it is.
std::string DecodeBase64(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0;
  unsigned acc = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r') continue;
    const int v = value(c);
    if (v < 0) return text;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

// The string data of a ConfigMap (data, binaryData decoded) or Secret (data decoded,
// stringData as is).
std::map<std::string, std::string> DataOf(const std::string& plural, const Json& object) {
  std::map<std::string, std::string> out;
  const bool secret = plural == "secrets";
  const Json& data = Field(object, "data");
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      if (!it.value().is_string()) continue;
      out[it.key()] = secret ? DecodeBase64(it.value().get<std::string>())
                             : it.value().get<std::string>();
    }
  }
  const Json& extra = Field(object, secret ? "stringData" : "binaryData");
  if (extra.is_object()) {
    for (auto it = extra.begin(); it != extra.end(); ++it) {
      if (!it.value().is_string()) continue;
      out[it.key()] = secret ? it.value().get<std::string>()
                             : DecodeBase64(it.value().get<std::string>());
    }
  }
  return out;
}

// metadata.labels['app'] style paths as the downward API reads them.
std::string FieldPathValue(const Json& pod, const std::string& path) {
  const Json& meta = Field(pod, "metadata");
  if (path == "metadata.name") return Str(meta, "name");
  if (path == "metadata.namespace") return Str(meta, "namespace");
  if (path == "metadata.uid") return Str(meta, "uid");
  if (path == "spec.nodeName") return Str(Field(pod, "spec"), "nodeName");
  if (path == "spec.serviceAccountName") return Str(Field(pod, "spec"), "serviceAccountName");
  if (path == "status.podIP") return Str(Field(pod, "status"), "podIP");
  if (path == "status.hostIP") return Str(Field(pod, "status"), "hostIP");
  for (const char* map : {"labels", "annotations"}) {
    const std::string prefix = std::string("metadata.") + map + "['";
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 2) {
      return Str(Field(meta, map), path.substr(prefix.size(), path.size() - prefix.size() - 2).c_str());
    }
  }
  return "";
}

const Json* FindContainer(const Json& pod, const std::string& name) {
  const Json& containers = Field(Field(pod, "spec"), "containers");
  if (!containers.is_array()) return nullptr;
  for (const Json& c : containers) {
    if (Str(c, "name") == name) return &c;
  }
  return nullptr;
}

std::string StatusJson(const ExecResult& r, const std::vector<std::string>& command) {
  if (r.start_error) {
    return Json{{"metadata", Json::object()},
                {"status", "Failure"},
                {"message", "error executing command in container: " + *r.start_error},
                {"reason", "InternalError"},
                {"details", {{"causes", Json::array({{{"message", *r.start_error}}})}}},
                {"code", 500}}
        .dump();
  }
  if (r.exit_code == 0) return Json{{"metadata", Json::object()}, {"status", "Success"}}.dump();
  std::string joined;
  for (const std::string& c : command) joined += (joined.empty() ? "" : " ") + c;
  return Json{{"metadata", Json::object()},
              {"status", "Failure"},
              {"message", "command terminated with non-zero exit code: error executing command [" +
                              joined + "], exit code " + std::to_string(r.exit_code)},
              {"reason", "NonZeroExitCode"},
              {"details",
               {{"causes",
                 Json::array({{{"reason", "ExitCode"}, {"message", std::to_string(r.exit_code)}}})}}}}
      .dump();
}

// One exec over an upgraded WebSocket.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<ContainerSandbox> sandbox, ExecOptions options, bool v5, Clock* clock)
      : sandbox_(std::move(sandbox)), options_(std::move(options)), v5_(v5), clock_(clock) {
    interactive_ = options_.tty && options_.stdin &&
                   ContainerSandbox::IsInteractiveShell(options_.command);
    wait_for_stdin_ = !interactive_ && options_.stdin && v5_ &&
                      ContainerSandbox::ReadsStdin(options_.command);
  }

  void Start(std::shared_ptr<http::Tunnel> tunnel) {
    tunnel_ = tunnel;
    auto self = shared_from_this();
    if (interactive_) shell_ = sandbox_->NewShellState();
    tunnel->Start([self](std::string message) { self->OnMessage(std::move(message)); },
                  [self] { self->OnClosed(); });
    if (interactive_) {
      std::lock_guard<std::mutex> lock(mu_);
      Send(kStdout, Prompt());
    } else if (!wait_for_stdin_) {
      Finish();
    }
  }

 private:
  int64_t Now() const {
    return std::chrono::duration_cast<std::chrono::seconds>(clock_->Now().time_since_epoch())
        .count();
  }

  // busybox's prompt: the working directory and "#" (root).
  std::string Prompt() const { return shell_.cwd + " # "; }

  // A terminal: the typed characters echoed, a line run when Enter comes, output with CR LF.
  // REQUIRES: mu_ held.
  bool Typed(const std::string& bytes) {
    for (char c : bytes) {
      if (escape_ > 0) {  // an escape sequence (arrow keys, ...): ignored
        escape_ = (escape_ == 1 && c == '[') ? 2 : 0;
        continue;
      }
      if (c == '\x1b') {
        escape_ = 1;
      } else if (c == '\r' || c == '\n') {
        std::string out = "\r\n";
        const std::string line = std::move(line_);
        line_.clear();
        if (!line.empty()) {
          ExecResult r = sandbox_->RunLine(line, &shell_, Now());
          for (char o : r.out + r.err) out += o == '\n' ? std::string("\r\n") : std::string(1, o);
        }
        if (shell_.exited) {
          Send(kStdout, out);
          return true;
        }
        Send(kStdout, out + Prompt());
      } else if (c == '\x7f' || c == '\b') {
        if (!line_.empty()) {
          line_.pop_back();
          Send(kStdout, "\b \b");
        }
      } else if (c == '\x03') {
        line_.clear();
        Send(kStdout, "^C\r\n" + Prompt());
      } else if (c == '\x04') {
        if (line_.empty()) {
          Send(kStdout, "\r\n");
          shell_.exited = true;
          return true;
        }
      } else if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') {
        if (line_.size() < 64 * 1024) {
          line_ += c;
          Send(kStdout, std::string(1, c));
        }
      }
    }
    return false;
  }

  void FinishInteractive() {
    ExecResult r;
    r.exit_code = shell_.status;
    tunnel_->Write(std::string(1, kStatus) + StatusJson(r, options_.command));
    tunnel_->Close();
  }

  void OnMessage(std::string message) {
    if (message.empty()) return;
    std::unique_lock<std::mutex> lock(mu_);
    if (interactive_) {
      if (done_) return;
      const bool closed = message[0] == kClose && message.size() > 1 && message[1] == kStdin;
      if ((message[0] == kStdin && Typed(message.substr(1))) || closed) {
        done_ = true;
        FinishInteractive();
      }
      return;
    }
    if (done_ || !wait_for_stdin_) return;
    if (message[0] == kStdin) {
      if (stdin_.size() + message.size() - 1 > kMaxStdin) {
        overflow_ = true;
        lock.unlock();
        Finish();
        return;
      }
      stdin_.append(message, 1, std::string::npos);
    } else if (message[0] == kClose && message.size() > 1 && message[1] == kStdin) {
      lock.unlock();
      Finish();
    }
  }

  void OnClosed() {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;  // the client went away: nothing to run for
  }

  void Finish() {
    std::string in;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (done_) return;
      done_ = true;
      in = std::move(stdin_);
    }
    ExecResult r;
    if (overflow_) {
      r.err = "stdin: more than " + std::to_string(kMaxStdin >> 20) +
              " MiB; the simulated container's file system is smaller\n";
      r.exit_code = 1;
    } else {
      r = sandbox_->Run(options_.command, in, Now());
    }
    if (!r.start_error) {
      if (options_.tty) {
        r.out += r.err;
        r.err.clear();
      }
      if (options_.stdout) Send(kStdout, r.out);
      if (options_.stderr) Send(kStderr, r.err);
    }
    tunnel_->Write(std::string(1, kStatus) + StatusJson(r, options_.command));
    tunnel_->Close();
  }

  void Send(char channel, const std::string& data) {
    for (size_t i = 0; i < data.size(); i += kChunk) {
      tunnel_->Write(std::string(1, channel) + data.substr(i, kChunk));
    }
  }

  std::shared_ptr<ContainerSandbox> sandbox_;
  ExecOptions options_;
  bool v5_;
  Clock* clock_;
  std::shared_ptr<http::Tunnel> tunnel_;
  bool wait_for_stdin_ = false;
  bool interactive_ = false;  // `kubectl exec -it POD -- sh`: line by line (Typed)
  std::mutex mu_;
  ContainerSandbox::ShellState shell_;  // guarded by mu_ (interactive)
  std::string line_;                    // guarded by mu_: the line being typed
  int escape_ = 0;                      // guarded by mu_: inside an escape sequence
  bool done_ = false;      // guarded by mu_
  std::string stdin_;      // guarded by mu_
  bool overflow_ = false;  // set before Finish
};

}  // namespace

StatusOr<ExecOptions> ParseExecOptions(const http::HttpRequest& request, const Json& pod) {
  ExecOptions o;
  for (const auto& [k, v] : request.query) {
    if (k == "command") o.command.push_back(v);
  }
  if (o.command.empty()) return InvalidArgumentError("you must specify at least 1 command");
  o.stdin = Truthy(request.Query("stdin"));
  o.stdout = Truthy(request.Query("stdout"));
  o.stderr = Truthy(request.Query("stderr"));
  o.tty = Truthy(request.Query("tty"));
  if (!o.stdin && !o.stdout && !o.stderr) {
    return InvalidArgumentError("you must specify at least 1 of stdin, stdout, stderr");
  }
  const std::string pod_name = Str(Field(pod, "metadata"), "name");
  if (const std::string* c = request.Query("container"); c && !c->empty()) {
    o.container = *c;
  } else {
    const Json& containers = Field(Field(pod, "spec"), "containers");
    if (containers.is_array() && containers.size() == 1) {
      o.container = Str(containers[0], "name");
    } else {
      std::string names;
      if (containers.is_array()) {
        for (const Json& c : containers) names += (names.empty() ? "" : " ") + Str(c, "name");
      }
      return InvalidArgumentError("a container name must be specified for pod " + pod_name +
                                  ", choose one of: [" + names + "]");
    }
  }
  if (!FindContainer(pod, o.container)) {
    return InvalidArgumentError("container " + o.container + " is not valid for pod " + pod_name);
  }
  bool running = false;
  const Json& statuses = Field(Field(pod, "status"), "containerStatuses");
  if (statuses.is_array()) {
    for (const Json& s : statuses) {
      if (Str(s, "name") == o.container && Field(Field(s, "state"), "running").is_object()) {
        running = true;
      }
    }
  }
  if (!running) return InvalidArgumentError("container not found (\"" + o.container + "\")");
  return o;
}

SandboxSetup SetupFromPod(const Json& pod, const std::string& container_name,
                          const ObjectLookup& lookup, int64_t now) {
  SandboxSetup s;
  const Json& meta = Field(pod, "metadata");
  const Json& spec = Field(pod, "spec");
  const std::string ns = Str(meta, "namespace");
  s.hostname = Str(spec, "hostname").empty() ? Str(meta, "name") : Str(spec, "hostname");
  s.created = now;
  const Json* c = FindContainer(pod, container_name);
  if (!c) return s;
  auto data_of = [&](const std::string& plural, const std::string& name) {
    std::optional<Json> o = lookup ? lookup(plural, ns, name) : std::nullopt;
    return o ? DataOf(plural, *o) : std::map<std::string, std::string>{};
  };
  // Environment, in order.
  const Json& env_from = Field(*c, "envFrom");
  if (env_from.is_array()) {
    for (const Json& e : env_from) {
      const std::string prefix = Str(e, "prefix");
      for (const char* ref : {"configMapRef", "secretRef"}) {
        const Json& r = Field(e, ref);
        if (!r.is_object()) continue;
        for (auto& [k, v] : data_of(ref[0] == 'c' ? "configmaps" : "secrets", Str(r, "name"))) {
          s.env.push_back({prefix + k, v});
        }
      }
    }
  }
  const Json& env = Field(*c, "env");
  if (env.is_array()) {
    for (const Json& e : env) {
      const std::string name = Str(e, "name");
      if (name.empty()) continue;
      const Json& from = Field(e, "valueFrom");
      if (!from.is_object()) {
        s.env.push_back({name, Str(e, "value")});
      } else if (Field(from, "fieldRef").is_object()) {
        s.env.push_back({name, FieldPathValue(pod, Str(Field(from, "fieldRef"), "fieldPath"))});
      } else {
        for (const char* ref : {"configMapKeyRef", "secretKeyRef"}) {
          const Json& r = Field(from, ref);
          if (!r.is_object()) continue;
          auto data = data_of(ref[0] == 'c' ? "configmaps" : "secrets", Str(r, "name"));
          auto it = data.find(Str(r, "key"));
          if (it != data.end()) s.env.push_back({name, it->second});
        }
      }
    }
  }
  s.working_dir = Str(*c, "workingDir").empty() ? "/" : Str(*c, "workingDir");
  std::string cmdline;
  for (const char* part : {"command", "args"}) {
    const Json& a = Field(*c, part);
    if (!a.is_array()) continue;
    for (const Json& w : a) {
      if (w.is_string()) cmdline += (cmdline.empty() ? "" : " ") + w.get<std::string>();
    }
  }
  s.main_command = cmdline.empty() ? Str(*c, "image") : cmdline;
  const std::string ip = Str(Field(pod, "status"), "podIP");
  s.files["/etc/hostname"] = s.hostname + "\n";
  s.files["/etc/hosts"] = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost "
                          "ip6-localhost ip6-loopback\n" +
                          (ip.empty() ? "" : ip + "\t" + s.hostname + "\n");
  // Volume mounts.
  std::map<std::string, const Json*> volumes;
  const Json& vols = Field(spec, "volumes");
  if (vols.is_array()) {
    for (const Json& v : vols) volumes[Str(v, "name")] = &v;
  }
  const Json& mounts = Field(*c, "volumeMounts");
  if (!mounts.is_array()) return s;
  for (const Json& m : mounts) {
    const std::string path = Str(m, "mountPath");
    const std::string sub = Str(m, "subPath");
    auto it = volumes.find(Str(m, "name"));
    if (path.empty() || it == volumes.end()) continue;
    const Json& v = *it->second;
    std::map<std::string, std::string> files;  // relative path -> content
    bool has_files = false;
    for (const char* kind : {"configMap", "secret"}) {
      const Json& src = Field(v, kind);
      if (!src.is_object()) continue;
      has_files = true;
      auto data = data_of(kind[0] == 'c' ? "configmaps" : "secrets",
                          Str(src, kind[0] == 'c' ? "name" : "secretName"));
      const Json& items = Field(src, "items");
      if (items.is_array() && !items.empty()) {
        for (const Json& item : items) {
          auto d = data.find(Str(item, "key"));
          if (d != data.end()) files[Str(item, "path")] = d->second;
        }
      } else {
        files = std::move(data);
      }
    }
    if (Field(v, "projected").is_object() && path.find("serviceaccount") != std::string::npos) {
      has_files = true;
      files["namespace"] = ns;
    }
    if (!sub.empty() && has_files) {
      auto f = files.find(sub);
      if (f != files.end()) s.files[path] = f->second;
      continue;
    }
    s.dirs.push_back(path);
    for (auto& [rel, content] : files) s.files[path + "/" + rel] = content;
  }
  return s;
}

std::shared_ptr<ContainerSandbox> PodExecutor::Sandbox(const Json& pod,
                                                       const std::string& container) {
  const Json& meta = Field(pod, "metadata");
  const std::string key = Str(meta, "namespace") + "/" + Str(meta, "name") + "/" +
                          Str(meta, "uid") + "/" + container;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sandboxes_.find(key);
  if (it != sandboxes_.end()) return it->second;
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(clock_->Now().time_since_epoch()).count();
  auto box = std::make_shared<ContainerSandbox>(SetupFromPod(pod, container, lookup_, now));
  sandboxes_[key] = box;
  order_.push_back(key);
  while (order_.size() > kMaxSandboxes) {
    sandboxes_.erase(order_.front());
    order_.pop_front();
  }
  return box;
}

std::optional<http::HttpResponse> PodExecutor::Upgrade(const http::HttpRequest& request,
                                                       const Json& pod, ExecOptions options) {
  std::string offered = request.Header("Sec-WebSocket-Protocol");
  bool v5 = false, v4 = false;
  std::stringstream in(offered);
  std::string p;
  while (std::getline(in, p, ',')) {
    p.erase(0, p.find_first_not_of(' '));
    p.erase(p.find_last_not_of(' ') + 1);
    v5 = v5 || p == "v5.channel.k8s.io";
    v4 = v4 || p == "v4.channel.k8s.io";
  }
  if (!v5 && !v4) return std::nullopt;
  auto session = std::make_shared<Session>(Sandbox(pod, options.container), std::move(options),
                                           v5, clock_);
  http::HttpResponse r;
  r.status = 101;
  r.websocket_protocol = v5 ? "v5.channel.k8s.io" : "v4.channel.k8s.io";
  r.on_upgrade = [session](std::shared_ptr<http::Tunnel> tunnel) { session->Start(tunnel); };
  return r;
}

}  // namespace trimtab::cluster::exec
