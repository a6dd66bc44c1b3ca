#include "operator/controller_shared/controller_deps.h"

#include "adapters/flink/tcp_probe.h"
#include "adapters/kube/object.h"

namespace trimtab::op {

ControllerDeps WithDefaults(ControllerDeps deps) {
  if (!deps.tcp_probe) deps.tcp_probe = &flink::ProbeTcp;
  if (!deps.fetch_artifact) {
    std::shared_ptr<const http::HttpClient> http = deps.http;
    deps.fetch_artifact = [http](const std::string& uri) -> StatusOr<std::string> {
      if (uri.starts_with("file://")) return ReadFile(uri.substr(7));
      if (!uri.starts_with("http://") && !uri.starts_with("https://")) {
        return InvalidArgumentError("cannot fetch " + uri + ": only http(s) and file URIs");
      }
      if (!http) return FailedPreconditionError("cannot fetch " + uri + ": no HTTP client");
      TRIMTAB_ASSIGN_OR_RETURN(http::ClientResponse r,
                               http->Do({.method = "GET", .url = uri,
                                         .timeout = std::chrono::minutes(5)}));
      if (r.status != 200) {
        return UnavailableError("fetch " + uri + ": HTTP " + std::to_string(r.status));
      }
      return std::move(r.body);
    };
  }
  return deps;
}

Status RemoveFinalizer(const kube::KubeClient& client, const kube::GroupVersionResource& resource,
                       std::string_view finalizer, Json* object) {
  const std::string ns = kube::ObjectNamespace(*object);
  const std::string name = kube::ObjectName(*object);
  for (int attempt = 0; attempt < 3; ++attempt) {
    Json updated = *object;
    Json kept = Json::array();
    for (const Json& f : updated["metadata"].value("finalizers", Json::array())) {
      if (f != finalizer) kept.push_back(f);
    }
    updated["metadata"]["finalizers"] = kept;
    StatusOr<Json> written = client.Update(resource, updated);
    if (written.ok() || written.status().code() == StatusCode::kNotFound) return Status::Ok();
    if (written.status().code() != StatusCode::kConflict) return written.status();
    TRIMTAB_ASSIGN_OR_RETURN(*object, client.Get(resource, ns, name));
  }
  return ConflictError("remove the finalizer " + std::string(finalizer) + " of " + ns + "/" +
                       name + ": conflicts");
}

}  // namespace trimtab::op
