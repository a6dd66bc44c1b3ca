#include "adapters/kube/client_metrics.h"

#include <string>

namespace trimtab::kube {

std::function<void(const KubeRequestRecord&)> KubeClientMetricsHook(MetricsRegistry* registry) {
  MetricFamily* requests = &registry->Counter(
      "flink_k8soperator_KubeClient_HttpRequest_Count",
      "Requests sent to the Kubernetes API server, by verb.", {"verb"});
  MetricFamily* failed = &registry->Counter(
      "flink_k8soperator_KubeClient_HttpRequest_Failed_Count",
      "Requests to the Kubernetes API server that got no response, by verb.", {"verb"});
  MetricFamily* responses = &registry->Counter(
      "flink_k8soperator_KubeClient_HttpResponse_Count",
      "Responses from the Kubernetes API server, by verb and HTTP status code.", {"verb", "code"});
  MetricFamily* latency = &registry->Histogram(
      "flink_k8soperator_KubeClient_HttpResponse_TimeSeconds",
      "Time from sending a request to the Kubernetes API server to reading its response, by verb "
      "(watches excluded).",
      {"verb"}, DefaultLatencyBuckets());
  return [=](const KubeRequestRecord& r) {
    const std::string verb(r.verb);
    requests->Inc({verb});
    if (r.code == 0) {
      failed->Inc({verb});
      return;
    }
    responses->Inc({verb, std::to_string(r.code)});
    if (verb != "watch") latency->Observe({verb}, r.latency.count());
  };
}

}  // namespace trimtab::kube
