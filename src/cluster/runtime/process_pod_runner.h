// ProcessPodRunner: runs the pods of the trimtab image as real processes of the trimtab binary,
// so that `kubectl apply -k deploy/` on `trimtab local` runs the operator exactly as a cluster
// would: from its Deployment, under its ServiceAccount and RBAC, with its ConfigMap.
//
// It claims a pod when every container's image is the trimtab image (`trimtab`,
// `trimtab:<tag>`, `<registry>/.../trimtab:<tag>`, digests too). For each container it starts
// `executable` (the running trimtab binary) with the container's args (the image's command is
// trimtab itself; a `command` naming anything else is a start error; no args runs `operator`,
// the image's CMD), in a per-pod directory <data_dir>/pods/<ns>_<name>_<uid>/:
//
//   serviceaccount/   token (a TokenRequest bound to the pod, as the kubelet's projected volume
//                     gets it), namespace; no ca.crt: the local API server speaks plain HTTP
//   volumes/<name>/   configMap and secret volumes as files (items and keys), emptyDir empty
//   logs/<container>.log   stdout and stderr of the current run (`kubectl logs`)
//
// A container's filesystem is the host's, so paths under a volumeMount's mountPath are mapped
// to the volume's directory in the args and env values that name them
// (`--config=/etc/trimtab/config.yaml` -> `--config=<pod dir>/volumes/config/config.yaml`);
// subPath mounts map to the file. The environment is the container's env (literal values,
// fieldRef metadata.name/namespace/uid/labels/annotations, spec.nodeName,
// spec.serviceAccountName, status.podIP, status.hostIP; configMapKeyRef / secretKeyRef; $(VAR)
// references) plus what the local cluster stands in for:
//
//   KUBERNETES_SERVICE_HOST / _PORT   the local API server (as in every pod)
//   HOSTNAME                          the pod name (a container's host name)
//   TRIMTAB_SERVICE_ACCOUNT_DIR       the serviceaccount/ directory above (read by the
//                                     in-cluster configuration instead of
//                                     /var/run/secrets/kubernetes.io/serviceaccount)
//   TRIMTAB_KUBERNETES_SERVICE_SCHEME http when the API server speaks plain HTTP (in-process
//                                     tests); unset for https://, where the serviceaccount/
//                                     directory holds ca.crt as in every pod
//   TRIMTAB_HEALTH_ADDRESS            the pod IP: every pod shares the host's network, so
//                                     servers bind their own loopback pod IP, not 0.0.0.0
//   TRIMTAB_RESOLVE_SERVICES_VIA_API  true: there is no cluster DNS, Services are reached
//                                     through their clusterIP read from the API
//   TRIMTAB_LOCAL_CLOCK               the cluster clock (`trimtab local --speed`), so the
//                                     process's intervals run at the cluster's pace
//   TMPDIR                            the emptyDir mounted at /tmp, if any
//
// Probes: httpGet readiness and liveness probes (port by number or name, path, initialDelay,
// period, timeout, success/failure thresholds) against the pod IP on the cluster clock; a
// failing liveness probe kills the container (Unhealthy and Killing events), which the kubelet
// restarts per restartPolicy. exec and tcpSocket probes count as succeeding.
//
// Termination: SIGTERM to the container's process group, SIGKILL after the grace period; the
// exit code (128 + signal when killed) becomes the container's terminated state. Children
// die with trimtab local: they are forked by one long-lived thread with PR_SET_PDEATHSIG.
//
// What is not emulated: the security context (user, read-only root filesystem, capabilities),
// resource limits, other images in the same pod (such a pod is left to the next runner).
//
// Thread-safety: Start from the kubelet; processes are safe for concurrent use.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/pod_runner.h"
#include "common/clock.h"

namespace trimtab::cluster::runtime {

struct ProcessPodRunnerOptions {
  std::string executable;        // the binary to run; "" = this process's own (/proc/self/exe)
  std::string data_dir;          // per-pod directories go under <data_dir>/pods
  std::string api_server_url;    // "https://127.0.0.1:6443": KUBERNETES_SERVICE_HOST/PORT
  // The CA of an https:// API server (PEM), written to serviceaccount/ca.crt; "" for http://.
  std::string api_server_ca;
  const kube::KubeClient* client = nullptr;  // TokenRequest, ConfigMaps, Secrets (admin)
  Clock* clock = nullptr;        // the cluster clock (probes, grace periods, TRIMTAB_LOCAL_CLOCK)
  EventRecorder* events = nullptr;  // Unhealthy / Killing events; may be null
  std::string image = "trimtab";    // the image repository (last path element) claimed
};

// "trimtab", "trimtab:0.1.0", "ghcr.io/acme/trimtab:1.2@sha256:..." -> true for image "trimtab".
bool IsImageOf(std::string_view image, std::string_view repository);

// Spawns child processes from one long-lived thread (so PR_SET_PDEATHSIG ties them to this
// process, not to whichever thread asked). Internal to the runner; exposed for tests.
class ProcessSpawner {
 public:
  struct Request {
    std::vector<std::string> argv;
    std::vector<std::string> env;  // "NAME=value"
    std::string log_file;          // stdout and stderr, appended
    std::string working_dir;
  };
  ProcessSpawner();
  ~ProcessSpawner();
  // The child's pid (leader of its own process group), or an error.
  StatusOr<int> Spawn(Request request);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  struct Job;
  std::deque<std::shared_ptr<Job>> jobs_;  // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  std::thread thread_;
};

class ProcessPodRunner final : public PodRunner {
 public:
  explicit ProcessPodRunner(ProcessPodRunnerOptions options);

  std::string_view name() const override { return "process"; }
  bool Handles(const Json& pod) const override;
  StatusOr<std::unique_ptr<PodProcess>> Start(const PodStartContext& context) override;

 private:
  ProcessPodRunnerOptions options_;
  std::shared_ptr<ProcessSpawner> spawner_;
};

}  // namespace trimtab::cluster::runtime
