#include "adapters/http/test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include <curl/curl.h>

namespace trimtab::http {

RefusingPort::RefusingPort() {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("RefusingPort: cannot bind a loopback socket");
  }
  port_ = ntohs(addr.sin_port);
}

RefusingPort::~RefusingPort() {
  if (fd_ >= 0) ::close(fd_);
}
namespace {

struct CurlInit {
  CurlInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

void EnsureCurl() { static CurlInit init; }

size_t AppendBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

void ParseHeaderLine(std::string_view line,
                     std::map<std::string, std::string, CaseInsensitiveLess>* headers) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string name(line.substr(0, colon));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  (*headers)[name] = std::string(value);
}

size_t CollectHeader(char* data, size_t size, size_t n, void* out) {
  ParseHeaderLine(std::string_view(data, size * n),
                  static_cast<std::map<std::string, std::string, CaseInsensitiveLess>*>(out));
  return size * n;
}

curl_slist* BuildHeaders(const std::vector<std::string>& headers, bool has_body) {
  curl_slist* list = nullptr;
  bool has_content_type = false;
  for (const auto& h : headers) {
    list = curl_slist_append(list, h.c_str());
    if (h.rfind("Content-Type:", 0) == 0 || h.rfind("content-type:", 0) == 0) {
      has_content_type = true;
    }
  }
  if (has_body && !has_content_type) {
    list = curl_slist_append(list, "Content-Type: application/json");
  }
  list = curl_slist_append(list, "Expect:");
  return list;
}

}  // namespace

TestHttpClient::TestHttpClient(std::string base_url) : base_url_(std::move(base_url)) {
  EnsureCurl();
  curl_ = curl_easy_init();
}

TestHttpClient::~TestHttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

TestHttpResponse TestHttpClient::Request(const std::string& method, const std::string& target,
                                         const std::string& body,
                                         const std::vector<std::string>& headers) {
  CURL* c = static_cast<CURL*>(curl_);
  TestHttpResponse out;
  std::string url = base_url_ + target;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_NOBODY, method == "HEAD" ? 1L : 0L);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_slist* list = BuildHeaders(headers, !body.empty());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &CollectHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &out.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(list);
  if (rc != CURLE_OK) {
    out.error = curl_easy_strerror(rc);
    return out;
  }
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  long connects = 0;
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects);
  connects_ += connects;
  out.status = static_cast<int>(code);
  return out;
}

TestHttpStream::TestHttpStream(const std::string& url, const std::vector<std::string>& headers) {
  EnsureCurl();
  thread_ = std::thread([this, url, headers] {
    CURL* c = curl_easy_init();
    curl_slist* list = BuildHeaders(headers, false);
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &TestHttpStream::OnData);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &TestHttpStream::OnHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &TestHttpStream::OnProgress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, this);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    std::lock_guard<std::mutex> lock(mu_);
    if (status_ == 0) status_ = static_cast<int>(code);
    ended_ = true;
    cv_.notify_all();
  });
}

TestHttpStream::~TestHttpStream() {
  Abort();
  thread_.join();
}

void TestHttpStream::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  abort_ = true;
}

size_t TestHttpStream::OnData(char* data, size_t size, size_t n, void* self_ptr) {
  auto* self = static_cast<TestHttpStream*>(self_ptr);
  std::lock_guard<std::mutex> lock(self->mu_);
  if (self->abort_) return 0;
  self->buffer_.append(data, size * n);
  self->cv_.notify_all();
  return size * n;
}

size_t TestHttpStream::OnHeader(char* data, size_t size, size_t n, void* self_ptr) {
  auto* self = static_cast<TestHttpStream*>(self_ptr);
  std::string_view line(data, size * n);
  std::lock_guard<std::mutex> lock(self->mu_);
  if (line == "\r\n" || line == "\n") {
    self->headers_done_ = self->status_ >= 200;
  } else if (line.rfind("HTTP/", 0) == 0) {
    size_t sp = line.find(' ');
    if (sp != std::string_view::npos) self->status_ = std::atoi(std::string(line.substr(sp + 1, 3)).c_str());
  } else {
    ParseHeaderLine(line, &self->headers_);
  }
  self->cv_.notify_all();
  return size * n;
}

int TestHttpStream::OnProgress(void* self_ptr, long, long, long, long) {
  auto* self = static_cast<TestHttpStream*>(self_ptr);
  std::lock_guard<std::mutex> lock(self->mu_);
  return self->abort_ ? 1 : 0;
}

std::optional<std::string> TestHttpStream::NextLine(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout,
               [&] { return buffer_.find('\n') != std::string::npos || ended_; });
  size_t nl = buffer_.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  std::string line = buffer_.substr(0, nl);
  buffer_.erase(0, nl + 1);
  return line;
}

bool TestHttpStream::WaitForEnd(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return ended_; });
}

int TestHttpStream::status() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(5), [&] { return headers_done_ || ended_; });
  return status_;
}

std::string TestHttpStream::header(const std::string& name) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(5), [&] { return headers_done_ || ended_; });
  auto it = headers_.find(name);
  return it == headers_.end() ? std::string() : it->second;
}

}  // namespace trimtab::http
