// Helpers shared by the API request handlers (handlers.cc, handlers_patch.cc): the per-request
// state, response builders and query/body decoding. Internal to the apiserver folder.
//
// Thread-safety: free functions; a Call belongs to one request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/apiserver/handlers/handlers.h"
#include "cluster/apiserver/surface/table.h"

namespace trimtab::cluster {

struct ApiHandler::Call {
  const http::HttpRequest& req;
  RequestInfo info;
  std::shared_ptr<const ResourceType> type_ref;  // keeps `type` alive for the request
  const ResourceType& type;
  bool table = false;
  TableRowObject rows = TableRowObject::kMetadata;
  WriteOptions write;
  std::vector<std::string> warnings;

  // The query parameter's value, "" when absent.
  std::string Q(std::string_view name) const {
    const std::string* v = req.Query(name);
    return v ? *v : std::string();
  }
};

http::HttpResponse JsonResponse(int code, const Json& body,
                                const std::vector<std::string>& warnings = {});
http::HttpResponse ErrorResponse(const ApiError& error);
Json VersionInfo();

// Accept asks for a meta.k8s.io Table (kubectl get).
bool WantsTable(const std::string& accept);
TableRowObject TableRowsFor(const std::string& include_object);
// apimachinery's bool query conversion: present and not "0"/"false" (any case) is true.
bool IsTrue(const std::string& value);
bool IsWatch(const ApiHandler::Call& call);
std::optional<int64_t> ParseInt(const std::string& text);

// JSON or YAML body by Content-Type, bad syntax 400. Kubernetes protobuf bodies are decoded
// for the kinds protobuf_decode.h supports (415 for others); CBOR and unknown types give 415.
// Decoding is bounded (common/json.h): nesting deeper than kMaxJsonDepth, invalid UTF-8 and
// numbers out of range are 400s. `duplicate_fields` (may be null) gets the paths of keys a JSON
// body repeats.
ApiResult<Json> DecodeBody(const http::HttpRequest& request,
                           std::vector<std::string>* duplicate_fields = nullptr);
// The body of a create or update, as kube-apiserver's decoder takes it: a JSON object (400
// otherwise), whose apiVersion and kind, when given, are those of the resource in the URL (400:
// "the API version in the data (...) does not match the expected API version (...)",
// "<Kind> in version \"<v>\" cannot be handled as a <Kind>: ..."), and whose repeated keys are,
// under fieldValidation=Strict, a 400 "strict decoding error: duplicate field \"<path>\"" and
// otherwise a warning (Ignore: nothing).
// Secrets also get their data checked (each value base64: "illegal base64 data at input byte
// N") and stringData merged into data (builtin_validation.h).
ApiResult<Json> DecodeObjectBody(ApiHandler::Call& call);
// A 413 when `object`, serialized, is larger than the store keeps (kMaxStoredObjectBytes).
std::optional<ApiError> CheckStoredSize(const Json& object);
// DeleteOptions from the body and the query (propagationPolicy, gracePeriodSeconds, dryRun,
// orphanDependents, preconditions).
ApiResult<DeleteOptions> ParseDeleteOptions(const ApiHandler::Call& call);
// Whether DELETE answers with the deleted object (pods, services, CRs...) or a Status.
bool ReturnsDeletedObject(const ResourceType& type);
// The last `n` lines of `text`.
std::string TailLines(const std::string& text, int64_t n);

// Reads ".spec.replicas"-style paths (CRD scale subresource paths).
const Json* GetDotPath(const Json& object, std::string_view path);
void SetDotPath(Json* object, std::string_view path, Json value);

}  // namespace trimtab::cluster
