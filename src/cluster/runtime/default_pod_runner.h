// DefaultPodRunner: what runs a pod no other PodRunner claims. Its containers follow their
// ContainerScript (container_script.h) on the cluster clock: ContainerCreating for the
// start-delay, then running, then exiting when the script or the exit annotations say so. With
// `trimtab.dev/serve: http-echo` every TCP containerPort answers HTTP on the pod IP with a
// description of the request (what pod, container and node served it), which makes Services
// testable end to end.
//
// Logs are synthetic: a line when a container starts and when it exits, the script's `echo`
// output and one line per echoed HTTP request.
//
// Usage:
//   DefaultPodRunner runner(clock);
//   auto process = runner.Start({.pod = pod, .pod_ip = "127.20.1.2", .node_name = "node-1"});
//
// Thread-safety: Start from the kubelet; the processes are safe for concurrent use.
#pragma once

#include "cluster/runtime/pod_runner.h"
#include "common/clock.h"

namespace trimtab::cluster::runtime {

class DefaultPodRunner final : public PodRunner {
 public:
  explicit DefaultPodRunner(Clock* clock) : clock_(clock) {}

  std::string_view name() const override { return "default"; }
  bool Handles(const Json& pod) const override { return true; }
  StatusOr<std::unique_ptr<PodProcess>> Start(const PodStartContext& context) override;

 private:
  Clock* clock_;
};

}  // namespace trimtab::cluster::runtime
