// PodExec: the pods/exec subresource of the local API server, doing what the API server, the
// kubelet's streaming server and the container runtime do together on a real cluster for
// `kubectl exec` and `kubectl cp` (which is exec of tar).
//
// The protocol is Kubernetes' channel protocol over a WebSocket (what kubectl 1.30 and later
// try first): the client offers subprotocols (v5.channel.k8s.io, v4.channel.k8s.io, ...) and the
// server picks v5 if offered, else v4. Every binary message starts with its channel: 0 stdin,
// 1 stdout, 2 stderr, 3 the status (a metav1.Status in JSON: Success, or Failure with reason
// NonZeroExitCode and the exit code as the cause kubectl exits with), 4 terminal resize (ignored);
// v5 adds 255 + channel, the client closing its stdin. The command runs in the container's
// ContainerSandbox (container_sandbox.h), which every exec of that container shares. A command
// that reads its stdin (cat, tar x, sh reading a script, ...) runs once the client closed stdin
// (v5; with v4 it runs at once with no input); any other runs at once. Its stdout and stderr
// (merged with a tty) are sent, then the status, then the WebSocket closes. A shell with a tty
// and stdin and no script (`kubectl exec -it POD -- sh`) is interactive instead: it prints
// busybox's prompt, echoes what is typed (backspace, Ctrl-C and Ctrl-D as a terminal does them,
// escape sequences ignored), runs each line when Enter comes, keeping cd and variables, and
// ends with `exit` or Ctrl-D on an empty line, its exit status the last line's.
//
// The sandbox of a container is seeded from the pod the first time it is exec'ed into: the
// container's environment (value, fieldRef, configMapKeyRef, secretKeyRef, envFrom), working
// directory, /etc/hostname and /etc/hosts, and its volume mounts (configMap and secret volumes as
// files, with items and subPath; emptyDir and the rest as empty directories; the service
// account's namespace file). Sandboxes are kept in memory (at most kMaxSandboxes, the oldest
// forgotten first) and start again from the pod when it is recreated (another uid).
//
// Not served: exec over SPDY (kubectl's fallback, or KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false):
// such a request gets a 400 naming the WebSocket protocol. attach has its own answer
// (handlers_pods.cc).
//
// Threading: sessions run on the HTTP server's I/O threads (a command is in-memory work bounded
// by the sandbox's capacity). Thread-safe.
#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "adapters/http/server.h"
#include "cluster/apiserver/exec/container_sandbox.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster::exec {

// The query of a pods/exec request (?command=...&container=...&stdin=true&stdout=true...).
struct ExecOptions {
  std::vector<std::string> command;
  std::string container;
  bool stdin = false;
  bool stdout = true;
  bool stderr = true;
  bool tty = false;
};
// Errors name the parameter ("command is required", "container ... is not valid for pod ...").
StatusOr<ExecOptions> ParseExecOptions(const http::HttpRequest& request, const Json& pod);

// Reads a ConfigMap or Secret ("configmaps" / "secrets") for seeding; nullopt when absent.
using ObjectLookup = std::function<std::optional<Json>(
    const std::string& plural, const std::string& ns, const std::string& name)>;

// The sandbox's starting state for `container` of `pod`.
SandboxSetup SetupFromPod(const Json& pod, const std::string& container,
                          const ObjectLookup& lookup, int64_t now);

class PodExecutor {
 public:
  static constexpr size_t kMaxSandboxes = 256;

  PodExecutor(Clock* clock, ObjectLookup lookup)
      : clock_(clock), lookup_(std::move(lookup)) {}

  // The upgrade response running `options` in `pod`, or nullopt when the request is not a
  // WebSocket offering a channel.k8s.io protocol this server speaks.
  std::optional<http::HttpResponse> Upgrade(const http::HttpRequest& request, const Json& pod,
                                            ExecOptions options);

  // The sandbox of `container` in `pod` (created from the pod when new). For tests too.
  std::shared_ptr<ContainerSandbox> Sandbox(const Json& pod, const std::string& container);

 private:
  Clock* clock_;
  ObjectLookup lookup_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<ContainerSandbox>> sandboxes_;  // guarded by mu_
  std::list<std::string> order_;                                         // guarded by mu_
};

}  // namespace trimtab::cluster::exec
