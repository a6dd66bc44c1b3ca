// ControllerDeps: what the FlinkDeployment and FlinkSessionJob controllers share — the
// Kubernetes client, time, events, how the Flink REST API is reached, the operator's default
// Flink configuration and the optional autoscaler.
//
// Thread-safety: the pointed-to objects must be safe for concurrent use and outlive the
// controllers.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/http/client.h"
#include "adapters/kube/kube_client.h"
#include "api/flink_spec.h"
#include "common/clock.h"
#include "operator/autoscaler/job_autoscaler.h"
#include "operator/controller_shared/events.h"
#include "operator/controller_shared/rest_endpoint_resolver.h"

namespace trimtab::op {

using TcpProbe = std::function<Status(const std::string& host, int port,
                                      std::chrono::milliseconds timeout)>;
// Fetches a session job's jar (jarURI) as bytes.
using ArtifactFetcher = std::function<StatusOr<std::string>(const std::string& uri)>;

struct ControllerDeps {
  const kube::KubeClient* client = nullptr;
  Clock* clock = nullptr;
  EventRecorder* events = nullptr;
  const RestEndpointResolver* resolver = nullptr;
  // Shared HTTP client for the Flink REST calls.
  std::shared_ptr<const http::HttpClient> http;
  // Operator default Flink configuration (kubernetes.operator.* options, defaults for every
  // cluster, namespace / version layers).
  api::FlinkConfiguration default_config;
  // Optional; called for RUNNING jobs with job.autoscaler.enabled=true.
  JobAutoscaler* autoscaler = nullptr;
  // Defaults: flink::ProbeTcp; an http(s)/file fetcher on `http`.
  TcpProbe tcp_probe;
  ArtifactFetcher fetch_artifact;
};

// What a reconcile pass asks of the work queue.
struct ReconcileResult {
  std::optional<Duration> requeue_after;  // nullopt: wait for the next change
};

// Fills unset defaults (tcp_probe, fetch_artifact).
ControllerDeps WithDefaults(ControllerDeps deps);

// Removes `finalizer` from `*object` (a resource of `resource`) with an update, re-reading the
// object and trying again on a 409 conflict, three attempts in all; `*object` follows the
// re-reads. An object that is already gone is fine.
Status RemoveFinalizer(const kube::KubeClient& client, const kube::GroupVersionResource& resource,
                       std::string_view finalizer, Json* object);

}  // namespace trimtab::op
