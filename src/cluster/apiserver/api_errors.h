// Kubernetes API errors: the metav1.Status objects the local API server answers with, using the
// upstream reasons, codes and message texts (k8s.io/apimachinery/pkg/api/errors), and ApiResult,
// the value-or-ApiError return type of the request-serving layer.
//
//   404 NotFound          pods "x" not found                     details {name, group, kind: plural}
//   409 AlreadyExists     configmaps "cm1" already exists
//   409 Conflict          Operation cannot be fulfilled on deployments.apps "web": the object has
//                         been modified; please apply your changes to the latest version and try again
//   422 Invalid           Deployment.apps "web" is invalid: ...   details {kind: Kind, causes}
//   400 BadRequest, 403 Forbidden, 405 MethodNotAllowed, 406 NotAcceptable, 410 Expired/Gone,
//   415 UnsupportedMediaType, 500 InternalError
//
// Thread-safety: values.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

struct ApiError {
  int code = 500;
  std::string reason;   // "NotFound", "Conflict", ...
  std::string message;
  Json details;         // null or an object
  // {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...}
  Json ToStatus() const;
};

// Either a value or an ApiError.
template <typename T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : rep_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  ApiResult(ApiError error) : rep_(std::move(error)) {}    // NOLINT(google-explicit-constructor)
  bool ok() const { return std::holds_alternative<T>(rep_); }
  const ApiError& error() const { return std::get<ApiError>(rep_); }
  const T& value() const& { return std::get<T>(rep_); }
  T& value() & { return std::get<T>(rep_); }
  T&& value() && { return std::get<T>(std::move(rep_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, ApiError> rep_;
};

// "pods" for the core group, "deployments.apps" otherwise (used in messages).
std::string QualifiedResource(const ResourceType& type);
// "Pod" / "Deployment.apps" (used in Invalid messages).
std::string QualifiedKind(const ResourceType& type);

ApiError NotFound(const ResourceType& type, std::string_view name);
// For a resource known only by group and plural (e.g. a namespace lookup).
ApiError NotFound(std::string_view group, std::string_view plural, std::string_view name);
ApiError AlreadyExists(const ResourceType& type, std::string_view name);
// The standard optimistic-concurrency conflict message.
ApiError Conflict(const ResourceType& type, std::string_view name);
// A conflict with a custom explanation (e.g. failed DELETE preconditions).
ApiError Conflict(const ResourceType& type, std::string_view name, std::string_view why);
ApiError Invalid(const ResourceType& type, std::string_view name, std::vector<Json> causes);
// An Invalid error whose message was already composed (by ValidateAndDefault).
ApiError Invalid(const ResourceType& type, std::string_view name, std::string message,
                 std::vector<Json> causes);
ApiError BadRequest(std::string message);
ApiError Forbidden(const ResourceType& type, std::string_view name, std::string message);
ApiError MethodNotAllowed(std::string message);
ApiError Gone(std::string message);      // 410 reason Expired
ApiError UnsupportedMediaType(std::string message);
ApiError InternalServerError(std::string message);
ApiError TooManyRequests(std::string message);
// Maps a Status from lower layers (store) to an ApiError about `name` of `type`.
ApiError FromStatus(const Status& status, const ResourceType& type, std::string_view name);

// One entry of details.causes.
Json Cause(std::string_view reason, std::string_view field, std::string_view message);

// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{...}}
Json SuccessStatus(const ResourceType& type, std::string_view name, std::string_view uid);

}  // namespace trimtab::cluster
