#include "operator/controller_shared/rest_endpoint_resolver.h"

#include <nlohmann/json.hpp>

#include "operator/decisions/jm_resources.h"
#include "operator/controller_shared/kube_resources.h"

namespace trimtab::op {
namespace {

std::string HostForUrl(const std::string& ip) {
  return ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
}

// The service port named "rest" (or the only one): {port, targetPort}.
std::pair<int, int> RestPorts(const Json& service) {
  const Json ports = service.value("spec", Json::object()).value("ports", Json::array());
  for (const Json& p : ports) {
    if (p.value("name", "") == "rest" || ports.size() == 1) {
      const int port = p.value("port", 8081);
      const Json& target = p.contains("targetPort") ? p["targetPort"] : Json(port);
      return {port, target.is_number_integer() ? target.get<int>() : port};
    }
  }
  return {8081, 8081};
}

bool PodReady(const Json& pod) {
  const Json status = pod.value("status", Json::object());
  for (const Json& c : status.value("conditions", Json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return status.value("phase", "") == "Running";
}

}  // namespace

StatusOr<std::string> ServiceRestEndpointResolver::RestUrl(const std::string& ns,
                                                           const std::string& cluster_id) const {
  const std::string service_name = RestServiceName(cluster_id);
  StatusOr<Json> service = client_->Get(ServicesResource(), ns, service_name);
  if (!options_.resolve_via_api) {
    int port = 8081;
    if (service.ok()) port = RestPorts(*service).first;
    std::string host = service_name + "." + ns;
    if (!options_.cluster_domain.empty()) host += ".svc." + options_.cluster_domain;
    return "http://" + host + ":" + std::to_string(port);
  }
  if (!service.ok()) {
    return service.status().WithContext("resolve the REST endpoint of " + ns + "/" + cluster_id);
  }
  const auto [port, target_port] = RestPorts(*service);
  const std::string cluster_ip =
      service->value("spec", Json::object()).value("clusterIP", "");
  if (!cluster_ip.empty() && cluster_ip != "None") {
    return "http://" + HostForUrl(cluster_ip) + ":" + std::to_string(port);
  }
  const Json selector = service->value("spec", Json::object()).value("selector", Json::object());
  std::string label_selector;
  for (auto it = selector.begin(); it != selector.end(); ++it) {
    if (!label_selector.empty()) label_selector += ",";
    label_selector += it.key() + "=" + it->get<std::string>();
  }
  StatusOr<LabelSelector> parsed = LabelSelector::Parse(label_selector);
  if (!parsed.ok()) return parsed.status();
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> pods,
                           client_->List(kube::PodsResource(), ns, {.labels = *parsed}));
  std::string fallback;
  for (const Json& pod : pods) {
    const std::string ip = pod.value("status", Json::object()).value("podIP", "");
    if (ip.empty() || pod["metadata"].contains("deletionTimestamp")) continue;
    if (PodReady(pod)) return "http://" + HostForUrl(ip) + ":" + std::to_string(target_port);
    if (fallback.empty()) fallback = ip;
  }
  if (!fallback.empty()) return "http://" + HostForUrl(fallback) + ":" + std::to_string(target_port);
  return NotFoundError("resolve the REST endpoint of " + ns + "/" + cluster_id + ": service " +
                       service_name + " has no cluster IP and no JobManager pod with an IP");
}

}  // namespace trimtab::op
