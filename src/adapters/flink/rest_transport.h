// FlinkRestTransport: one request to a JobManager's REST API and the one way its answers become
// a JSON document or a Status, shared by the operator's job operations (rest_client.h) and the
// autoscaler's metric collector (metrics_collector.h).
//
// Errors name the call and the endpoint and carry Flink's `errors` text (the informative line of
// each entry):
//   "Flink REST GET /jobs/x/checkpoints (http://10.0.0.7:8081): HTTP 404: Job x not found"
// Codes follow what the caller should do next:
//   400                         kInvalidArgument    the request is wrong; do not retry it
//   404                         kNotFound           the job, trigger or metric does not exist
//   409                         kConflict           re-read and retry (an operation in flight)
//   408, 504, client timeout    kDeadlineExceeded   back off
//   429, 5xx, other status,     kUnavailable        back off and retry
//   connection failure, a body that is not JSON, a body that is only {"errors": [...]} (Flink's
//   RestClient reads that as an error whatever the status)
//
// Thread-safety: const methods, safe for concurrent use (the HttpClient is).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "adapters/http/client.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::flink {

struct FlinkRestRequest {
  std::string method = "GET";
  std::string path;  // "/jobs/overview", with its query if any
  std::string body;  // sent with Content-Type `content_type` (application/json when empty)
  std::string content_type;
  std::chrono::milliseconds timeout{0};  // 0 = the HTTP client's default
};

class FlinkRestTransport {
 public:
  // `http` must outlive the transport; `base_url` like "http://host:8081" (a trailing slash is
  // dropped).
  FlinkRestTransport(const http::HttpClient* http, std::string base_url);

  const std::string& base_url() const { return base_url_; }

  // Any 2xx with a JSON body (or an empty one, read as {}) is the document.
  StatusOr<Json> Call(const FlinkRestRequest& request) const;

 private:
  const http::HttpClient* http_;
  std::string base_url_;
};

// The first line of a text Flink sent (an answer, an error entry, a stack trace), for a message:
// bytes that are not UTF-8 are written as \xNN, since the message ends up in JSON (events, status,
// logs) and a JSON writer refuses invalid UTF-8 (a 200 answer of garbage once aborted the
// operator this way).
std::string FlinkFirstLine(std::string_view text);

// How errors name a request: its method and path, "PATCH /jobs/x?mode=cancel"; for a GET without
// the query ("GET /jobs/x/vertices/y/subtasks/metrics", not the list of metric names).
std::string FlinkRestCallName(const FlinkRestRequest& request);

// The Status of a non-2xx answer (or of an {"errors"} body), as described above.
Status FlinkRestError(const std::string& call, const std::string& base_url, int http_status,
                      const std::string& body);

}  // namespace trimtab::flink
