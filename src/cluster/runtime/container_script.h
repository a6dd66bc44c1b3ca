// ContainerScript: what a container of the default pod runner does, read from its command/args
// and from the pod's fault-injection annotations (docs/local-cluster.md). No process runs; the
// script is a timeline the runner evaluates on the cluster clock.
//
// Commands understood (argv, or the script of `sh|bash|ash|dash -c "..."` with `;` and `&&`):
//   true / false / exit N        end the container now with 0 / 1 / N
//   sleep N[s|m|h|d] / infinity  run for that long (seconds when no unit)
//   echo words...                a line in the container's log
//   anything else, or no command at all: a server that runs until the pod is deleted
// A script that reaches its end exits with the status of its last command.
//
// Annotations (pod-wide "trimtab.dev/<key>", or one container's "trimtab.dev/<key>.<container>"):
//   trimtab.dev/start-delay: 2s         ContainerCreating this long before running (image pull)
//   trimtab.dev/exit-after: 30s         exit after running this long (overrides the command)
//   trimtab.dev/exit-code: "1"          the exit code (alone: exit at once with it)
//   trimtab.dev/fail-readiness: "true"  the container never becomes ready
//   trimtab.dev/termination-delay: 5s   how long shutdown takes on deletion (killed with 137
//                                       when longer than the grace period)
//   trimtab.dev/serve: http-echo        answer HTTP on every TCP containerPort at the pod IP
//
// Thread-safety: values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster::runtime {

inline constexpr std::string_view kAnnotationPrefix = "trimtab.dev/";

struct ContainerScript {
  Duration start_delay{0};
  // Exit this long after starting to run; nullopt = run until stopped.
  std::optional<Duration> exit_after;
  int exit_code = 0;
  bool never_ready = false;
  Duration termination_delay{0};
  bool serve_http_echo = false;
  std::vector<int> tcp_ports;             // containerPorts with protocol TCP
  std::vector<std::string> output_lines;  // echo output, in order
};

// Reads the script of `container` (an entry of pod.spec.containers). Errors name the annotation
// and the bad value ("annotation trimtab.dev/exit-after: invalid duration \"soon\"").
StatusOr<ContainerScript> ReadContainerScript(const Json& pod, const Json& container);

}  // namespace trimtab::cluster::runtime
