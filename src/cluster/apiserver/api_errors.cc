#include "cluster/apiserver/api_errors.h"

#include <nlohmann/json.hpp>

#include "cluster/store/store.h"

namespace trimtab::cluster {
namespace {

Json Details(const ResourceType& type, std::string_view name) {
  Json d = Json::object();
  if (!name.empty()) d["name"] = std::string(name);
  if (!type.group.empty()) d["group"] = type.group;
  d["kind"] = type.plural;
  return d;
}

ApiError Make(int code, std::string reason, std::string message, Json details = nullptr) {
  return ApiError{code, std::move(reason), std::move(message), std::move(details)};
}

}  // namespace

Json ApiError::ToStatus() const {
  Json s = {{"kind", "Status"},   {"apiVersion", "v1"}, {"metadata", Json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason}};
  if (details.is_object() && !details.empty()) s["details"] = details;
  s["code"] = code;
  return s;
}

std::string QualifiedResource(const ResourceType& type) {
  return type.group.empty() ? type.plural : type.plural + "." + type.group;
}

std::string QualifiedKind(const ResourceType& type) {
  return type.group.empty() ? type.kind : type.kind + "." + type.group;
}

ApiError NotFound(const ResourceType& type, std::string_view name) {
  return Make(404, "NotFound",
              QualifiedResource(type) + " \"" + std::string(name) + "\" not found",
              Details(type, name));
}

ApiError NotFound(std::string_view group, std::string_view plural, std::string_view name) {
  ResourceType t;
  t.group = std::string(group);
  t.plural = std::string(plural);
  return NotFound(t, name);
}

ApiError AlreadyExists(const ResourceType& type, std::string_view name) {
  return Make(409, "AlreadyExists",
              QualifiedResource(type) + " \"" + std::string(name) + "\" already exists",
              Details(type, name));
}

ApiError Conflict(const ResourceType& type, std::string_view name) {
  return Conflict(type, name,
                  "the object has been modified; please apply your changes to the latest version "
                  "and try again");
}

ApiError Conflict(const ResourceType& type, std::string_view name, std::string_view why) {
  return Make(409, "Conflict",
              "Operation cannot be fulfilled on " + QualifiedResource(type) + " \"" +
                  std::string(name) + "\": " + std::string(why),
              Details(type, name));
}

ApiError Invalid(const ResourceType& type, std::string_view name, std::vector<Json> causes) {
  std::string message = QualifiedKind(type) + " \"" + std::string(name) + "\" is invalid: ";
  std::string joined;
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i) joined += ", ";
    std::string field = causes[i].value("field", "");
    std::string msg = causes[i].value("message", "");
    joined += field.empty() ? msg : field + ": " + msg;
  }
  message += causes.size() > 1 ? "[" + joined + "]" : joined;
  return Invalid(type, name, std::move(message), std::move(causes));
}

ApiError Invalid(const ResourceType& type, std::string_view name, std::string message,
                 std::vector<Json> causes) {
  Json d = Json::object();
  if (!name.empty()) d["name"] = std::string(name);
  if (!type.group.empty()) d["group"] = type.group;
  d["kind"] = type.kind;
  if (!causes.empty()) d["causes"] = causes;
  return Make(422, "Invalid", std::move(message), std::move(d));
}

ApiError BadRequest(std::string message) { return Make(400, "BadRequest", std::move(message)); }

ApiError Forbidden(const ResourceType& type, std::string_view name, std::string message) {
  std::string full = QualifiedResource(type) + " \"" + std::string(name) +
                     "\" is forbidden: " + message;
  if (name.empty()) full = QualifiedResource(type) + " is forbidden: " + message;
  return Make(403, "Forbidden", std::move(full), Details(type, name));
}

ApiError MethodNotAllowed(std::string message) {
  return Make(405, "MethodNotAllowed", std::move(message));
}

ApiError Gone(std::string message) { return Make(410, "Expired", std::move(message)); }

ApiError UnsupportedMediaType(std::string message) {
  return Make(415, "UnsupportedMediaType", std::move(message));
}

ApiError InternalServerError(std::string message) {
  return Make(500, "InternalError", "Internal error occurred: " + message);
}

ApiError TooManyRequests(std::string message) {
  return Make(429, "TooManyRequests", std::move(message));
}

ApiError FromStatus(const Status& status, const ResourceType& type, std::string_view name) {
  switch (status.code()) {
    case StatusCode::kNotFound:
      return NotFound(type, name);
    case StatusCode::kAlreadyExists:
      return AlreadyExists(type, name);
    case StatusCode::kConflict:
      return Conflict(type, name);
    case StatusCode::kInvalidArgument:
      return BadRequest(status.message());
    case StatusCode::kFailedPrecondition:
      if (IsCompacted(status)) return Gone(status.message());
      return Make(409, "Conflict", status.message());
    case StatusCode::kPermissionDenied:
      return Forbidden(type, name, status.message());
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
      return Make(503, "ServiceUnavailable", status.message());
    default:
      return InternalServerError(status.message());
  }
}

Json Cause(std::string_view reason, std::string_view field, std::string_view message) {
  return Json{{"reason", std::string(reason)},
              {"message", std::string(message)},
              {"field", std::string(field)}};
}

Json SuccessStatus(const ResourceType& type, std::string_view name, std::string_view uid) {
  Json details = Details(type, name);
  if (!uid.empty()) details["uid"] = std::string(uid);
  return Json{{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", Json::object()},
              {"status", "Success"},
              {"details", details}};
}

}  // namespace trimtab::cluster
