// The Prometheus instrumentation of KubeClient: an on_request hook (KubeClientOptions) that counts
// every request to the API server by Kubernetes verb and response code and times it, in the
// upstream Flink Kubernetes Operator's KubeClient metric names with the verb and code as labels
// instead of name parts (docs/metrics.md):
//
//   flink_k8soperator_KubeClient_HttpRequest_Count{verb}          requests sent
//   flink_k8soperator_KubeClient_HttpRequest_Failed_Count{verb}   requests without a response
//   flink_k8soperator_KubeClient_HttpResponse_Count{verb,code}    responses by HTTP status
//   flink_k8soperator_KubeClient_HttpResponse_TimeSeconds{verb}   latency histogram (watches,
//                                                                 which last minutes, excluded)
//
// Labels are bounded: verbs are a fixed set, codes the HTTP statuses the server answers with.
//
// Usage:
//   KubeClient::Create(config, {.on_request = KubeClientMetricsHook(&registry)});
//
// Thread-safety: the hook is safe for concurrent calls; `registry` must outlive the client.
#pragma once

#include <functional>

#include "adapters/kube/kube_client.h"
#include "common/metrics_registry.h"

namespace trimtab::kube {

std::function<void(const KubeRequestRecord&)> KubeClientMetricsHook(MetricsRegistry* registry);

}  // namespace trimtab::kube
