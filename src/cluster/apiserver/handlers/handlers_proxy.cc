// The pods/proxy and services/proxy subresources of ApiHandler, as kube-apiserver serves them
// (what `kubectl get --raw .../proxy/...`, `kubectl proxy` users and dashboards call):
//
//   /api/v1/namespaces/<ns>/pods/[<scheme>:]<name>[:<port>]/proxy[/<path>][?<query>]
//   /api/v1/namespaces/<ns>/services/[<scheme>:]<name>[:<port>]/proxy[/<path>][?<query>]
//
// The request (method, body, headers other than hop-by-hop ones and the caller's Authorization)
// is sent to <scheme>://<address>:<port>/<path>?<query> (scheme http unless "https:" is given;
// certificates are not verified, as kube-apiserver's proxy does not) and the response (status,
// headers, body) is relayed. A pod's address is its podIP, its port the one given, else its first
// container port, else 80. A Service's port is named by its name or number (its only port, or its
// unnamed one, when none is given); the address is a ready endpoint of that port from the
// Service's Endpoints (round robin), at the endpoint's port (the targetPort).
//
// Errors as upstream: no such object 404; a Service without a ready endpoint for the port 503
// `no endpoints available for service "<name>"`; a backend that cannot be reached 503
// `error trying to reach service: <why>`.
//
// Differences from kube-apiserver: the relayed request is buffered (no streaming, no connection
// upgrades through the proxy), it runs on the API server's request thread for at most 30 s,
// Location headers and HTML links are not rewritten, and loopback addresses (all pod IPs of
// `trimtab local`) are allowed where upstream refuses them.
#include <atomic>
#include <cctype>

#include <nlohmann/json.hpp>

#include "adapters/http/client.h"
#include "cluster/apiserver/handlers/handler_util.h"
#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {

using http::HttpResponse;

namespace {

struct ProxyName {
  std::string scheme = "http";
  std::string name;
  std::string port;
};

ProxyName ParseProxyName(const std::string& spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  ProxyName out;
  if (parts.size() == 1) {
    out.name = parts[0];
  } else if (parts.size() == 2 && (parts[0] == "http" || parts[0] == "https")) {
    out.scheme = parts[0];
    out.name = parts[1];
  } else if (parts.size() == 2) {
    out.name = parts[0];
    out.port = parts[1];
  } else {
    out.scheme = parts[0].empty() ? "http" : parts[0];
    out.name = parts[1];
    out.port = parts[2];
  }
  return out;
}

bool IsHopByHop(const std::string& name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return n == "connection" || n == "keep-alive" || n == "proxy-authenticate" ||
         n == "proxy-authorization" || n == "te" || n == "trailer" || n == "transfer-encoding" ||
         n == "upgrade" || n == "content-length" || n == "host" || n == "authorization" ||
         // The client negotiates compression itself and hands over decoded bodies.
         n == "accept-encoding" || n == "content-encoding";
}

ApiError Unavailable(std::string message) {
  return ApiError{503, "ServiceUnavailable", std::move(message), nullptr};
}

std::atomic<uint64_t> round_robin{0};

}  // namespace

HttpResponse ApiHandler::Proxy(Call& call) {
  const ProxyName target = ParseProxyName(call.info.name);
  if (target.scheme != "http" && target.scheme != "https") {
    return ErrorResponse(BadRequest("unsupported scheme \"" + target.scheme +
                                    "\" in the proxy name \"" + call.info.name + "\""));
  }
  auto object = objects_->Get(call.type, call.info.ns, target.name);
  if (!object.ok()) return ErrorResponse(object.error());
  const Json spec = object->value("spec", Json::object());
  std::string address;
  std::string port = target.port;
  if (call.type.plural == "pods") {
    address = object->contains("status") && (*object)["status"].is_object()
                  ? (*object)["status"].value("podIP", "")
                  : "";
    if (address.empty()) {
      return ErrorResponse(Unavailable("pod " + target.name + " has no IP address yet"));
    }
    if (port.empty() && spec.is_object() && spec.contains("containers") &&
        spec["containers"].is_array()) {
      for (const Json& c : spec["containers"]) {
        if (c.is_object() && c.contains("ports") && c["ports"].is_array() && !c["ports"].empty()) {
          port = std::to_string(c["ports"][0].value("containerPort", int64_t{80}));
          break;
        }
      }
    }
    if (port.empty()) port = "80";
    if (port.find_first_not_of("0123456789") != std::string::npos) {
      // A named container port.
      std::string named;
      for (const Json& c : spec.value("containers", Json::array())) {
        for (const Json& p : c.value("ports", Json::array())) {
          if (p.value("name", "") == port) named = std::to_string(p.value("containerPort", 0));
        }
      }
      if (named.empty()) {
        return ErrorResponse(Unavailable("pod " + target.name + " has no port named \"" + port +
                                         "\""));
      }
      port = named;
    }
  } else {
    const Json ports = spec.value("ports", Json::array());
    const Json* chosen = nullptr;
    for (const Json& p : ports) {
      if (!p.is_object()) continue;
      const std::string name = p.value("name", "");
      const std::string number = std::to_string(p.value("port", int64_t{0}));
      if (target.port.empty() ? (ports.size() == 1 || name.empty())
                              : (name == target.port || number == target.port)) {
        chosen = &p;
        break;
      }
    }
    const std::string no_endpoints = "no endpoints available for service \"" + target.name + "\"";
    if (!chosen) return ErrorResponse(Unavailable(no_endpoints));
    const std::string port_name = chosen->value("name", "");
    auto endpoints_type = objects_->registry()->Find("", "v1", "endpoints");
    if (!endpoints_type) return ErrorResponse(Unavailable(no_endpoints));
    auto endpoints = objects_->Get(*endpoints_type, call.info.ns, target.name);
    std::vector<std::pair<std::string, int64_t>> ready;
    if (endpoints.ok()) {
      for (const Json& subset : endpoints->value("subsets", Json::array())) {
        for (const Json& p : subset.value("ports", Json::array())) {
          if (p.value("name", "") != port_name) continue;
          for (const Json& a : subset.value("addresses", Json::array())) {
            ready.emplace_back(a.value("ip", ""), p.value("port", int64_t{0}));
          }
        }
      }
    }
    if (ready.empty()) return ErrorResponse(Unavailable(no_endpoints));
    const auto& pick = ready[round_robin.fetch_add(1) % ready.size()];
    address = pick.first;
    port = std::to_string(pick.second);
  }
  if (!proxy_client_) return ErrorResponse(Unavailable("the API server's proxy client is unusable"));

  // What follows ".../<name>/proxy" in the request, as sent.
  const std::string& raw = call.req.target;
  const size_t q = raw.find('?');
  std::string raw_path = raw.substr(0, q);
  const std::string marker = "/" + call.type.plural + "/";
  size_t at = raw_path.find(marker);
  at = at == std::string::npos ? std::string::npos : raw_path.find("/proxy", at + marker.size());
  std::string rest = at == std::string::npos ? "/" : raw_path.substr(at + 6);
  if (rest.empty() || rest[0] != '/') rest = "/" + rest;
  std::string url = target.scheme + "://" + address + ":" + port + rest;
  if (q != std::string::npos) url += raw.substr(q);

  http::ClientRequest request{.method = call.req.method, .url = url, .body = call.req.body};
  for (const auto& [k, v] : call.req.headers) {
    if (!IsHopByHop(k)) request.headers.emplace_back(k, v);
  }
  auto response = proxy_client_->Do(request);
  if (!response.ok()) {
    return ErrorResponse(Unavailable("error trying to reach service: " +
                                     std::string(response.status().message())));
  }
  HttpResponse out;
  out.status = response->status;
  for (const auto& [k, v] : response->headers) {
    if (!IsHopByHop(k)) out.headers.emplace_back(k, v);
  }
  out.body = std::move(response->body);
  return out;
}

}  // namespace trimtab::cluster
