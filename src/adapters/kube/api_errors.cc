#include "adapters/kube/api_errors.h"

#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::kube {

ApiStatus ParseApiStatus(int http_status, std::string_view body) {
  ApiStatus api{.code = http_status};
  const Json doc = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc.value("kind", "") == "Status") {
    api.reason = doc.value("reason", "");
    api.message = doc.value("message", "");
    if (const auto c = doc.find("code"); c != doc.end() && c->is_number_integer()) {
      const int code = c->get<int>();
      if (code != 0) api.code = code;
    }
  } else {
    api.message = std::string(body.substr(0, 512));
    while (!api.message.empty() && (api.message.back() == '\n' || api.message.back() == '\r')) {
      api.message.pop_back();
    }
  }
  return api;
}

Status StatusFromApiStatus(const ApiStatus& api, std::string_view operation) {
  std::string message = std::string(operation) + ": " +
                        (api.message.empty() ? std::string("(no message)") : api.message) + " (" +
                        (api.reason.empty() ? std::string("no reason") : api.reason) + ", HTTP " +
                        std::to_string(api.code) + ")";
  if (api.reason == "Timeout" || api.reason == "ServerTimeout" || api.code == 504) {
    return DeadlineExceededError(std::move(message));
  }
  switch (api.code) {
    case 400:
    case 415:
    case 422:
      return InvalidArgumentError(std::move(message));
    case 401:
    case 403:
      return PermissionDeniedError(std::move(message));
    case 404:
      return NotFoundError(std::move(message));
    case 409:
      if (api.reason == "AlreadyExists") return AlreadyExistsError(std::move(message));
      return ConflictError(std::move(message));
    case 405:
    case 406:
    case 410:
    case 412:
      return FailedPreconditionError(std::move(message));
    case 429:
      return UnavailableError(std::move(message));
    default:
      break;
  }
  if (api.code >= 500) return UnavailableError(std::move(message));
  return InternalError(std::move(message));
}

Status StatusFromResponse(int http_status, std::string_view body, std::string_view operation) {
  return StatusFromApiStatus(ParseApiStatus(http_status, body), operation);
}

bool IsExpired(const Status& status) {
  return status.code() == StatusCode::kFailedPrecondition &&
         status.message().find(", HTTP 410)") != std::string::npos;
}

}  // namespace trimtab::kube
