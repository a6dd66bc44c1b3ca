// Test-only HTTP client on libcurl: blocking requests and line-by-line reading of streamed
// (chunked) responses such as watches. Used by the tests of the HTTP server, the local API server
// and anything else that serves HTTP on loopback.
//
// Thread-safety: a TestHttpClient or TestHttpStream is used by one thread at a time; separate
// instances are independent.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/http/server.h"

namespace trimtab::http {

// A loopback port that refuses every connection: a socket bound to 127.0.0.1:0 that never
// listens. While the object lives no other process can take the port, so "connection refused"
// tests cannot be fooled by a stranger reusing a freed port.
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:<port>".
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

struct TestHttpResponse {
  int status = 0;  // 0 when the request failed at the transport level (see error)
  std::map<std::string, std::string, CaseInsensitiveLess> headers;
  std::string body;
  std::string error;
};

// Reuses one connection across requests (keep-alive) like a real client.
class TestHttpClient {
 public:
  explicit TestHttpClient(std::string base_url);
  ~TestHttpClient();
  TestHttpClient(const TestHttpClient&) = delete;
  TestHttpClient& operator=(const TestHttpClient&) = delete;

  // `headers` are "Name: value" lines; a body gets Content-Type application/json unless given.
  TestHttpResponse Request(const std::string& method, const std::string& target,
                           const std::string& body = "",
                           const std::vector<std::string>& headers = {});
  TestHttpResponse Get(const std::string& target) { return Request("GET", target); }

  // How many new TCP connections curl opened so far (to check keep-alive).
  long connects() const { return connects_; }

 private:
  std::string base_url_;
  void* curl_;  // CURL*
  long connects_ = 0;
};

// Starts a request on a background thread and exposes the body as it arrives.
class TestHttpStream {
 public:
  TestHttpStream(const std::string& url, const std::vector<std::string>& headers = {});
  ~TestHttpStream();  // aborts the transfer if it is still running
  TestHttpStream(const TestHttpStream&) = delete;
  TestHttpStream& operator=(const TestHttpStream&) = delete;

  // The next '\n'-terminated line (without the newline), or nullopt when none arrives within
  // `timeout` or the response ended.
  std::optional<std::string> NextLine(std::chrono::milliseconds timeout);
  // Blocks until the response has ended (the server closed the stream) or `timeout` passes.
  bool WaitForEnd(std::chrono::milliseconds timeout);
  // Both wait (up to 5 s) for the whole header block; status() is 0 if it never came.
  int status();
  std::string header(const std::string& name);
  // Stops reading: the client goes away.
  void Abort();

 private:
  static size_t OnData(char* data, size_t size, size_t n, void* self);
  static size_t OnHeader(char* data, size_t size, size_t n, void* self);
  static int OnProgress(void* self, long, long, long, long);

  std::mutex mu_;
  std::condition_variable cv_;
  std::string buffer_;  // guarded by mu_
  bool ended_ = false;  // guarded by mu_
  bool abort_ = false;  // guarded by mu_
  int status_ = 0;      // guarded by mu_
  bool headers_done_ = false;  // guarded by mu_
  std::map<std::string, std::string, CaseInsensitiveLess> headers_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace trimtab::http
