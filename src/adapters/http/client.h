// HttpClient: a small blocking HTTP/1.1 client on libcurl for the Kubernetes API, the Flink REST
// API and metric endpoints.
//
// One client holds the TLS and auth settings of one endpoint family and a pool of idle curl
// handles, so consecutive requests reuse connections (keep-alive). Two modes:
//   Do()      buffers the whole response body;
//   Stream()  hands the body to a callback chunk by chunk or line by line (Kubernetes watch,
//             `logs -f`) until the server ends it, the callback returns false, or a
//             Cancellation fires.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto client, HttpClient::Create({.bearer_token = token}));
//   TRIMTAB_ASSIGN_OR_RETURN(ClientResponse r,
//                            client->Do({.method = "GET", .url = "https://host/api/v1/pods"}));
//
// Errors: transport failures only (HTTP 4xx/5xx are responses, not errors):
//   kDeadlineExceeded  the request timed out;
//   kUnavailable       connect/DNS/TLS/IO failure (back off and retry);
//   kInvalidArgument   malformed URL or unusable TLS material.
//
// Thread-safety: all methods are safe to call concurrently; each call uses its own handle.
// libcurl is kept out of this header.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace trimtab::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Returns the first value of header `name` (case-insensitive), or nullptr.
const std::string* FindHeader(const Headers& headers, std::string_view name);

struct TlsOptions {
  // Trust anchors: a PEM file or PEM text. Both empty = the system trust store.
  std::string ca_file;
  std::string ca_data;
  // Client certificate and key (PEM) for mutual TLS; file or inline data.
  std::string client_cert_file;
  std::string client_cert_data;
  std::string client_key_file;
  std::string client_key_data;
  // Skip server certificate and host name verification (kubeconfig insecure-skip-tls-verify).
  bool insecure_skip_verify = false;
};

struct HttpClientOptions {
  TlsOptions tls;
  // Sent as "Authorization: Bearer <token>" unless the request sets Authorization itself.
  std::string bearer_token;
  std::string user_agent = "trimtab/0.1";
  // Whole-request timeout for Do() when the request gives none.
  std::chrono::milliseconds default_timeout{30000};
  std::chrono::milliseconds connect_timeout{10000};
  // Idle handles (with their open connections) kept for reuse.
  size_t max_idle_handles = 8;
};

struct ClientRequest {
  std::string method = "GET";
  std::string url;
  Headers headers;
  std::string body;
  // 0 = the client's default for Do(), no limit for Stream().
  std::chrono::milliseconds timeout{0};
};

struct ClientResponse {
  int status = 0;
  Headers headers;
  // Do(): the body. Stream(): the body only when the status is not 2xx (an error document).
  std::string body;

  const std::string* Header(std::string_view name) const { return FindHeader(headers, name); }
};

// A cancellation signal shared between the thread running Stream() and any other thread.
// Cancel() makes the stream return promptly (OK, with what was received so far).
class Cancellation {
 public:
  void Cancel();
  bool cancelled() const { return cancelled_.load(); }

  // Used by the client: registers a wake-up for the duration of one stream. Returns an id.
  int AddWaker(std::function<void()> wake);
  void RemoveWaker(int id);

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  int next_id_ = 0;                                            // guarded by mu_
  std::vector<std::pair<int, std::function<void()>>> wakers_;  // guarded by mu_
};

struct StreamOptions {
  // true: on_data receives one line at a time without its "\n" (a trailing partial line is
  // delivered at the end). false: raw chunks as they arrive.
  bool split_lines = true;
  // Called once the status and headers are known; return false to stop before the body.
  std::function<bool(const ClientResponse& head)> on_headers;
  // Called for each 2xx body line/chunk; return false to stop.
  std::function<bool(std::string_view data)> on_data;
  // Optional; may be shared and cancelled from another thread.
  std::shared_ptr<Cancellation> cancel;
};

class HttpClient {
 public:
  static StatusOr<std::unique_ptr<HttpClient>> Create(HttpClientOptions options);
  ~HttpClient();

  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  StatusOr<ClientResponse> Do(const ClientRequest& request) const;
  StatusOr<ClientResponse> Stream(const ClientRequest& request, const StreamOptions& options) const;

  const HttpClientOptions& options() const { return options_; }

  class Impl;

 private:
  HttpClient(HttpClientOptions options, std::unique_ptr<Impl> impl);

  HttpClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

// Percent-encodes a URL query component (RFC 3986 unreserved characters stay as they are).
std::string UrlEncode(std::string_view text);

}  // namespace trimtab::http
