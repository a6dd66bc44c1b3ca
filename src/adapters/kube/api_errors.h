// Mapping of Kubernetes API failures (HTTP status + metav1.Status body) to trimtab Status codes,
// chosen by what the caller should do next:
//
//   404 NotFound                          -> kNotFound
//   409 reason AlreadyExists              -> kAlreadyExists
//   409 otherwise (Conflict)              -> kConflict: re-read and retry
//   400 BadRequest, 415, 422 Invalid      -> kInvalidArgument
//   401 Unauthorized, 403 Forbidden       -> kPermissionDenied
//   410 Gone / Expired                    -> kFailedPrecondition (IsExpired): relist
//   405, 406, 412                         -> kFailedPrecondition
//   429 TooManyRequests, other 5xx        -> kUnavailable: back off
//   504, reason Timeout / ServerTimeout   -> kDeadlineExceeded: back off, never assume success
//
// Messages read "<operation>: <server message> (<reason>, HTTP <code>)", e.g.
//   GET /api/v1/namespaces/a/pods/x: pods "x" not found (NotFound, HTTP 404)
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace trimtab::kube {

struct ApiStatus {
  int code = 0;         // HTTP status (Status.code when the body has one)
  std::string reason;   // Status.reason: "NotFound", "AlreadyExists", "Conflict", "Expired" ...
  std::string message;  // Status.message, or the raw body when it is not a Status
};

// Reads a metav1.Status document; falls back to the HTTP status and raw body.
ApiStatus ParseApiStatus(int http_status, std::string_view body);
Status StatusFromApiStatus(const ApiStatus& api, std::string_view operation);
Status StatusFromResponse(int http_status, std::string_view body, std::string_view operation);

// True for the "resource version too old" family (HTTP 410, reasons Gone / Expired).
bool IsExpired(const Status& status);

}  // namespace trimtab::kube
