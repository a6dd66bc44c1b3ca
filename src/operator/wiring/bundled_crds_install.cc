#include <thread>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "operator/wiring/bundled_crds.h"

namespace trimtab::op {
namespace {

const kube::GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                       /*namespaced=*/false};

// The resource a CRD defines, in its storage version (what a client lists to see it served).
StatusOr<kube::GroupVersionResource> ServedResource(const Json& crd, std::string_view file) {
  const Json& spec = crd.value("spec", Json::object());
  const std::string group = spec.value("group", "");
  const std::string plural = spec.value("names", Json::object()).value("plural", "");
  std::string version;
  for (const Json& v : spec.value("versions", Json::array())) {
    if (v.value("storage", false)) version = v.value("name", "");
  }
  if (group.empty() || plural.empty() || version.empty()) {
    return InternalError(std::string(file) +
                         ": bundled CRD lacks spec.group, spec.names.plural or a storage version");
  }
  return kube::GroupVersionResource{group, version, plural,
                                    spec.value("scope", "Namespaced") == "Namespaced"};
}

}  // namespace

StatusOr<std::vector<std::string>> InstallBundledCrds(const kube::KubeClient& client,
                                                      std::chrono::milliseconds timeout) {
  return InstallCrds(client, BundledCrds(), timeout);
}

StatusOr<std::vector<std::string>> InstallCrds(const kube::KubeClient& client,
                                               const std::vector<EmbeddedFile>& files,
                                               std::chrono::milliseconds timeout) {
  std::vector<std::string> created;
  std::vector<kube::GroupVersionResource> served;
  for (const EmbeddedFile& file : files) {
    TRIMTAB_ASSIGN_OR_RETURN(Json crd, ParseYaml(file.text, file.name));
    const std::string name = crd["metadata"].value("name", "");
    TRIMTAB_ASSIGN_OR_RETURN(kube::GroupVersionResource gvr, ServedResource(crd, file.name));
    served.push_back(gvr);
    StatusOr<Json> existing = client.Get(kCrds, "", name);
    if (existing.ok()) continue;
    if (existing.status().code() != StatusCode::kNotFound) {
      return Status(existing.status().code(),
                    "reading CRD " + name + ": " + existing.status().message());
    }
    StatusOr<Json> made = client.Create(kCrds, "", crd);
    // Someone else created it between the GET and the POST: theirs stands.
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return Status(made.status().code(), "creating CRD " + name + ": " + made.status().message());
    }
    if (made.ok()) created.push_back(name);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const kube::GroupVersionResource& gvr : served) {
    while (true) {
      StatusOr<std::vector<Json>> listed = client.List(gvr, gvr.namespaced ? "default" : "", {});
      if (listed.ok()) break;
      if (std::chrono::steady_clock::now() > deadline) {
        return DeadlineExceededError("CRD " + gvr.String() + " is not served after " +
                                     std::to_string(timeout.count()) +
                                     " ms: " + listed.status().message());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return created;
}

}  // namespace trimtab::op
