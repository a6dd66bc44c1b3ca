#include "operator/decisions/ingress_builder.h"

#include <cctype>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/decisions/jm_resources.h"
#include "operator/decisions/pod_decoration.h"
#include "operator/decisions/validator.h"

namespace trimtab::op {
namespace {

int RestPort(const api::FlinkConfiguration& conf) {
  auto it = conf.find("rest.port");
  if (it == conf.end()) return 8081;
  const std::string& v = it->second;
  if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos) {
    return 8081;
  }
  return std::stoi(v);
}

bool HasScheme(const std::string& url) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::string head;
  for (size_t i = 0; i < url.size() && i < 8; ++i) head.push_back(lower(url[i]));
  return head.rfind("http://", 0) == 0 || head.rfind("https://", 0) == 0;
}

}  // namespace

StatusOr<std::optional<decorators::KubeObject>> BuildIngress(const api::ObjectMeta& meta,
                                                             const api::FlinkDeploymentSpec& spec,
                                                             const api::FlinkConfiguration& conf) {
  if (!spec.ingress) return std::optional<decorators::KubeObject>();
  const api::IngressSpec& in = *spec.ingress;
  const std::string name = meta.name();
  const std::string ns = meta.namespace_name();
  std::string url = in.template_;
  if (!HasScheme(url)) {
    TRIMTAB_ASSIGN_OR_RETURN(url, RenderIngressTemplate(in.template_, name, ns));
  } else {
    std::string rest = url.substr(url.find("://") + 3);
    TRIMTAB_ASSIGN_OR_RETURN(rest, RenderIngressTemplate(rest, name, ns));
    url = rest;
  }
  // host[:port][/path]; the path keeps everything after the host (regex groups included).
  const size_t slash = url.find('/');
  std::string host = url.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : url.substr(slash);
  if (size_t colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
  if (size_t query = path.find('?'); query != std::string::npos) path = path.substr(0, query);

  Json http_path = {{"pathType", "ImplementationSpecific"},
                    {"backend",
                     {{"service",
                       {{"name", RestServiceName(name)}, {"port", {{"number", RestPort(conf)}}}}}}}};
  if (!path.empty()) http_path["path"] = path;
  Json rule = {{"http", {{"paths", Json::array({http_path})}}}};
  if (!host.empty()) rule["host"] = host;
  Json spec_json = {{"rules", Json::array({rule})}};
  if (!in.class_name.empty()) spec_json["ingressClassName"] = in.class_name;
  if (in.tls.is_array() && !in.tls.empty()) spec_json["tls"] = in.tls;

  Json labels = Json::object();
  for (const auto& [k, v] : in.labels) labels[k] = v;
  labels[kManagedByLabel] = kManagedByOperator;
  Json metadata = {{"name", name}, {"namespace", ns}, {"labels", labels}};
  if (!in.annotations.empty()) {
    Json annotations = Json::object();
    for (const auto& [k, v] : in.annotations) annotations[k] = v;
    metadata["annotations"] = annotations;
  }
  decorators::KubeObject out;
  out.resource = "ingresses";
  out.namespaced = true;
  out.object = {{"apiVersion", "networking.k8s.io/v1"},
                {"kind", "Ingress"},
                {"metadata", metadata},
                {"spec", spec_json}};
  return std::optional<decorators::KubeObject>(std::move(out));
}

}  // namespace trimtab::op
