// RestEndpointResolver: where the REST API of a Flink cluster is reachable from the operator.
//
//   DNS mode (in a real cluster):  http://<cluster-id>-rest.<namespace>:<port>, resolved by the
//                                  cluster DNS; the port is read from the Service when it exists.
//   API mode (resolve_via_api):    the Service <cluster-id>-rest is read from the API server and
//                                  its spec.clusterIP used; a headless Service or one without a
//                                  cluster IP (trimtab local has no service proxy) falls back to
//                                  the IP of a ready JobManager pod selected by the Service's
//                                  selector, on the target port.
//
// Usage:
//   ServiceRestEndpointResolver resolver(client, {.resolve_via_api = !in_cluster});
//   TRIMTAB_ASSIGN_OR_RETURN(std::string url, resolver.RestUrl("prod", "sm"));  // "http://10.0.0.7:8081"
//
// Errors: kNotFound when the Service (or, in API mode, any usable endpoint) does not exist.
// Thread-safety: implementations are safe for concurrent use.
#pragma once

#include <functional>
#include <string>

#include "adapters/kube/kube_client.h"

namespace trimtab::op {

class RestEndpointResolver {
 public:
  virtual ~RestEndpointResolver() = default;
  virtual StatusOr<std::string> RestUrl(const std::string& namespace_name,
                                        const std::string& cluster_id) const = 0;
};

struct ServiceResolverOptions {
  bool resolve_via_api = true;
  std::string cluster_domain;  // DNS mode: appended as ".svc.<domain>" when not empty
};

class ServiceRestEndpointResolver final : public RestEndpointResolver {
 public:
  ServiceRestEndpointResolver(const kube::KubeClient* client, ServiceResolverOptions options)
      : client_(client), options_(std::move(options)) {}
  StatusOr<std::string> RestUrl(const std::string& namespace_name,
                                const std::string& cluster_id) const override;

 private:
  const kube::KubeClient* client_;
  ServiceResolverOptions options_;
};

// For tests and embedding: a function decides.
class FunctionRestEndpointResolver final : public RestEndpointResolver {
 public:
  using Fn = std::function<StatusOr<std::string>(const std::string& ns, const std::string& id)>;
  explicit FunctionRestEndpointResolver(Fn fn) : fn_(std::move(fn)) {}
  StatusOr<std::string> RestUrl(const std::string& ns, const std::string& id) const override {
    return fn_(ns, id);
  }

 private:
  Fn fn_;
};

}  // namespace trimtab::op
