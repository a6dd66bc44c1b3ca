#include "cluster/runtime/service_account_controller.h"

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {

ServiceAccountController::ServiceAccountController(const kube::KubeClient* client,
                                                   InformerSet* informers, Clock* clock)
    : client_(client),
      informers_(informers),
      controller_("serviceaccount-controller", clock, 1,
                  [this](const std::string& ns) { return Sync(ns); }) {
  auto enqueue_ns = [this](const Json& ns) { controller_.Enqueue(Str(ns, {"metadata", "name"})); };
  informers_->Get(NamespacesGvr())->AddEventHandler(
      {.on_add = enqueue_ns, .on_update = [enqueue_ns](const Json&, const Json& n) { enqueue_ns(n); }});
  informers_->Get(ServiceAccountsGvr())->AddEventHandler({.on_delete = [this](const Json& sa) {
    if (Str(sa, {"metadata", "name"}) == "default") {
      controller_.Enqueue(Str(sa, {"metadata", "namespace"}));
    }
  }});
}

Result ServiceAccountController::Sync(const std::string& ns) {
  auto namespace_object = informers_->Store(NamespacesGvr()).GetByKey(ns);
  if (!namespace_object || IsDeleting(*namespace_object) ||
      Str(*namespace_object, {"status", "phase"}) == "Terminating") {
    return Result::Done();
  }
  if (informers_->Store(ServiceAccountsGvr()).GetByKey(ns + "/default")) return Result::Done();
  Json sa = {{"apiVersion", "v1"},
             {"kind", "ServiceAccount"},
             {"metadata", {{"name", "default"}, {"namespace", ns}}}};
  auto created = client_->Create(ServiceAccountsGvr(), ns, sa);
  if (created.ok() || created.status().code() == StatusCode::kAlreadyExists ||
      created.status().code() == StatusCode::kPermissionDenied ||
      created.status().code() == StatusCode::kNotFound) {
    return Result::Done();  // exists, or the namespace is going away
  }
  return Result::Retry(created.status().ToString());
}

}  // namespace trimtab::cluster::runtime
