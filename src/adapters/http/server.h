// HttpServer: a small HTTP/1.1 server (Boost.Beast + Asio behind a pimpl) for the local API
// server, the simulated Flink REST API and test webhook servers.
//
// A handler receives a parsed request and returns a response. A response is either complete
// (status, headers, body) or streaming: the server sends the headers with
// `Transfer-Encoding: chunked` and hands the handler's `on_stream` callback a ResponseStream that
// any thread may write chunks to until it closes the stream, the client goes away or the server
// stops. Streams never block the caller: chunks are queued and written by the I/O threads; a
// client that falls more than `max_stream_backlog_bytes` behind is disconnected (as kine and the
// apiserver drop slow watchers), so a producer can never be stalled by a consumer.
//
// With a certificate and key in the options the server speaks HTTPS instead (OpenSSL through
// Boost.Asio's ssl stream); a failed handshake just closes the connection.
//
// Connections are kept alive between complete responses (HTTP/1.1 default, `Connection: close`
// honoured); a streamed response ends its connection.
//
// A handler may also take the connection over (HttpResponse::on_upgrade): after a raw upgrade
// response (101 Switching Protocols, the handler's headers) or a WebSocket handshake (RFC 6455,
// with the subprotocol the handler chose) the connection becomes a Tunnel, a duplex byte stream
// the handler's protocol (SPDY for `kubectl port-forward`) runs over.
//
// Threading: `threads` I/O threads run accept, reads, writes and the handler itself, so handlers
// must not block for long (use a stream and a producer thread for long work). Stop() is
// graceful: the listener closes, idle keep-alive connections close, in-flight requests finish,
// open streams get their final chunk; after `stop_grace` whatever remains is cut.
//
// Usage:
//   auto server = HttpServer::Create({.address = "127.0.0.1", .port = 0},
//       [](const HttpRequest& req) { return HttpResponse::Text(200, "ok\n"); });
//   if (!server.ok()) return server.status();
//   int port = (*server)->port();
//   ...
//   (*server)->Stop();
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace trimtab::http {

// Header names compare case-insensitively.
struct CaseInsensitiveLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};

// The certificate a client presented in the TLS handshake of its connection, when the server
// asks for one (HttpServerOptions::tls_client_ca_pem).
struct ClientCertificate {
  // Chains to tls_client_ca_pem, is valid now and may be used for client authentication
  // (extendedKeyUsage clientAuth, when present). false: presented, but none of that holds.
  bool verified = false;
  std::string common_name;                 // the subject's last CN ("" when none)
  std::vector<std::string> organizations;  // the subject's O values, in order
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ... (as sent, upper case)
  std::string target;  // raw request target: "/api/v1/pods?limit=1"
  std::string path;    // percent-decoded path without the query: "/api/v1/pods"
  // Query parameters in order, percent-decoded ('+' is a space). Repeated names are kept.
  std::vector<std::pair<std::string, std::string>> query;
  std::map<std::string, std::string, CaseInsensitiveLess> headers;
  std::string body;
  std::string remote_address;  // "127.0.0.1:53422"
  // HTTPS with tls_client_ca_pem: the certificate the client presented on this connection.
  std::optional<ClientCertificate> client_certificate;

  // The first value of a query parameter, or nullptr.
  const std::string* Query(std::string_view name) const;
  // The header's value, or "" when absent.
  std::string Header(std::string_view name) const;
};

// Write side of a streaming response. Thread-safe; shared by the server and the producer.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Queues one chunk (empty chunks are ignored). Returns false once the stream is closed (by
  // Close(), the client going away, a slow client, or Stop()); the data is then dropped.
  virtual bool Write(std::string data) = 0;
  // Sends the final chunk after everything queued. Idempotent.
  virtual void Close() = 0;
  virtual bool IsOpen() const = 0;
  // Runs `callback` once when the stream closes for any reason (at once if already closed).
  // Called from an I/O thread or the closing thread; must not block.
  virtual void OnClose(std::function<void()> callback) = 0;
};

// Both directions of a connection after an upgrade: the raw bytes, or for a WebSocket the
// payloads of its binary messages taken as one byte stream. Thread-safe; shared by the server and
// the protocol running over it. Writes never block: they are queued and written by the I/O
// threads; a peer that falls more than max_stream_backlog_bytes behind is disconnected.
class Tunnel {
 public:
  virtual ~Tunnel() = default;
  // Starts reading; call once. on_data gets the received bytes in order (a WebSocket text
  // message closes the tunnel), on_closed runs once when the tunnel closes for any reason (also
  // when it closed before Start). Both run on an I/O thread and must not block. The tunnel drops
  // both callbacks once closed, so they may hold the tunnel.
  virtual void Start(std::function<void(std::string)> on_data,
                     std::function<void()> on_closed) = 0;
  // Queues bytes to send (a WebSocket: one binary message). Returns false once closed.
  virtual bool Write(std::string data) = 0;
  // Closes after the queued bytes are sent (a WebSocket: with a normal close). Idempotent.
  virtual void Close() = 0;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. {"Content-Type", "..."}
  std::string body;
  // When set, the response is streamed: headers (status and `headers`, chunked) are sent, then
  // on_stream is called once, on an I/O thread, with the stream. It may write synchronously,
  // hand the stream to another thread, or both; it must return promptly.
  std::function<void(std::shared_ptr<ResponseStream>)> on_stream;
  // When set, the connection is taken over after this response and on_upgrade is called once,
  // on an I/O thread, with the Tunnel (it must return promptly). With websocket_protocol empty
  // the response (status 101 and its Upgrade/Connection headers, set by the handler) is written
  // as is and the raw connection becomes the tunnel. Otherwise the request must be a WebSocket
  // upgrade: the server answers the handshake itself with Sec-WebSocket-Protocol set to
  // websocket_protocol (status and body are ignored, `headers` are added).
  std::function<void(std::shared_ptr<Tunnel>)> on_upgrade;
  std::string websocket_protocol;

  static HttpResponse Text(int status, std::string body,
                           std::string content_type = "text/plain; charset=utf-8");
  static HttpResponse Json(int status, std::string body);
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";  // IPv4 or IPv6 literal to bind
  int port = 0;                        // 0: the kernel picks a free port (see port())
  int threads = 4;                     // I/O + handler threads
  size_t max_body_bytes = 3 * 1024 * 1024;  // larger request bodies get 413 (apiserver: 3 MiB)
  size_t max_stream_backlog_bytes = 16 * 1024 * 1024;  // per stream, then the client is cut
  std::chrono::milliseconds stop_grace{2000};  // Stop(): how long in-flight work may finish
  std::chrono::seconds idle_timeout{120};      // keep-alive connections idle longer are closed
  // A failed accept (EMFILE: the descriptor table is full) is retried after a delay that doubles
  // from accept_retry_min to accept_retry_max and is logged at most once per interval (with the
  // count of failures in between), so the loop neither spins nor floods the log.
  std::chrono::milliseconds accept_retry_min{10};
  std::chrono::milliseconds accept_retry_max{1000};
  std::chrono::milliseconds accept_error_log_interval{10000};
  // HTTPS: when both are set, every connection starts with a TLS handshake (TLS 1.2 or newer)
  // presenting this certificate (PEM; intermediates may follow the leaf) and key, and
  // base_url() starts with https://. Empty: plain HTTP.
  std::string tls_certificate_pem;
  std::string tls_key_pem;
  // HTTPS: ask every client for a certificate issued by this CA (PEM; advertised in the
  // handshake) and hand what it presented to the handler (HttpRequest::client_certificate,
  // verified or not). A client without a certificate, or with one that does not verify, is still
  // served: the handler decides, as kube-apiserver's x509 authenticator does. Empty: not asked.
  std::string tls_client_ca_pem;
  std::chrono::milliseconds tls_handshake_timeout{10000};
};

struct HttpServerStats {
  uint64_t accept_failures = 0;      // failed accept calls
  uint64_t accept_failure_logs = 0;  // log lines written about them
};

class HttpServer {
 public:
  // Binds, listens and starts serving on the I/O threads. Fails (Unavailable) when the address
  // cannot be bound.
  static StatusOr<std::unique_ptr<HttpServer>> Create(HttpServerOptions options,
                                                      HttpHandler handler);
  ~HttpServer();  // Stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the chosen one when options.port was 0).
  int port() const;
  HttpServerStats stats() const;
  // "http://127.0.0.1:PORT" or "https://..." (IPv6 addresses in brackets).
  std::string base_url() const;
  // Blocks until Stop() has finished.
  void Wait();
  // Graceful stop (see header comment). Idempotent; safe from any thread except an I/O thread.
  void Stop();

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Percent-decodes `text` ('+' as space when `plus_as_space`); invalid escapes are kept as is.
std::string PercentDecode(std::string_view text, bool plus_as_space);
// Percent-encodes everything except unreserved characters (RFC 3986).
std::string PercentEncode(std::string_view text);
// The reason phrase for a status code ("Not Found").
std::string_view StatusReason(int status);

}  // namespace trimtab::http
