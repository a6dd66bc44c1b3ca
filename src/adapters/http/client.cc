#include "adapters/http/client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace trimtab::http {
namespace {

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' ||
                        s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// Per-transfer state shared with the curl callbacks.
struct Transfer {
  ClientResponse* response = nullptr;
  const StreamOptions* stream = nullptr;  // null for Do()
  bool head_complete = false;
  bool deliver_body = false;  // stream mode and a 2xx status
  bool stopped_by_caller = false;
  std::string partial_line;
};

void CompleteHead(Transfer* t) {
  t->head_complete = true;
  if (t->stream == nullptr) return;
  t->deliver_body = t->response->status >= 200 && t->response->status < 300;
  if (t->stream->on_headers && !t->stream->on_headers(*t->response)) t->stopped_by_caller = true;
}

size_t OnHeader(char* data, size_t size, size_t nitems, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nitems;
  std::string_view line(data, n);
  if (line.starts_with("HTTP/")) {
    // A new status line (after 100 Continue, or the first one): start over.
    t->response->headers.clear();
    const size_t sp = line.find(' ');
    int status = 0;
    if (sp != std::string_view::npos) {
      for (size_t i = sp + 1; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]));
           ++i) {
        status = status * 10 + (line[i] - '0');
      }
    }
    t->response->status = status;
    return n;
  }
  const std::string_view trimmed = TrimView(line);
  if (trimmed.empty()) {
    if (t->response->status >= 200 && !t->head_complete) {
      CompleteHead(t);
      if (t->stopped_by_caller) return 0;  // aborts the transfer
    }
    return n;
  }
  const size_t colon = trimmed.find(':');
  if (colon != std::string_view::npos) {
    t->response->headers.emplace_back(std::string(TrimView(trimmed.substr(0, colon))),
                                      std::string(TrimView(trimmed.substr(colon + 1))));
  }
  return n;
}

size_t OnBody(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  if (!t->head_complete) CompleteHead(t);
  if (t->stopped_by_caller) return 0;
  if (!t->deliver_body) {
    t->response->body.append(data, n);
    return n;
  }
  const StreamOptions& s = *t->stream;
  if (!s.on_data) return n;
  if (!s.split_lines) {
    if (!s.on_data(std::string_view(data, n))) {
      t->stopped_by_caller = true;
      return 0;
    }
    return n;
  }
  std::string_view chunk(data, n);
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      t->partial_line.append(chunk);
      break;
    }
    std::string_view line;
    if (t->partial_line.empty()) {
      line = chunk.substr(0, nl);
    } else {
      t->partial_line.append(chunk.substr(0, nl));
      line = t->partial_line;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool more = s.on_data(line);
    t->partial_line.clear();
    chunk.remove_prefix(nl + 1);
    if (!more) {
      t->stopped_by_caller = true;
      return 0;
    }
  }
  return n;
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

}  // namespace

const std::string* FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (EqualsIgnoreCase(k, name)) return &v;
  }
  return nullptr;
}

void Cancellation::Cancel() {
  cancelled_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, wake] : wakers_) wake();
}

int Cancellation::AddWaker(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  const int id = next_id_++;
  wakers_.emplace_back(id, std::move(wake));
  return id;
}

void Cancellation::RemoveWaker(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(wakers_, [id](const auto& w) { return w.first == id; });
}

class HttpClient::Impl {
 public:
  explicit Impl(const HttpClientOptions& options) : options_(options) {}

  ~Impl() {
    for (CURL* h : idle_) curl_easy_cleanup(h);
  }

  CURL* Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        CURL* h = idle_.back();
        idle_.pop_back();
        curl_easy_reset(h);  // keeps the connection cache
        return h;
      }
    }
    return curl_easy_init();
  }

  void Release(CURL* h) {
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);  // the buffer lives on a caller's stack
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < options_.max_idle_handles) {
      idle_.push_back(h);
    } else {
      curl_easy_cleanup(h);
    }
  }

  // Configures `h` for `request`; returns the header list that must outlive the transfer.
  StatusOr<SlistPtr> Setup(CURL* h, const ClientRequest& request, Transfer* transfer,
                           bool streaming, char* error_buffer) const {
    const TlsOptions& tls = options_.tls;
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    std::chrono::milliseconds timeout = request.timeout;
    if (timeout.count() == 0 && !streaming) timeout = options_.default_timeout;
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    if (!streaming) curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");

    if (request.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (request.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
          request.method == "PATCH") {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
      }
    }

    curl_slist* list = nullptr;
    bool has_auth = false;
    for (const auto& [k, v] : request.headers) {
      has_auth = has_auth || EqualsIgnoreCase(k, "Authorization");
      list = curl_slist_append(list, (k + ": " + v).c_str());
    }
    if (!has_auth && !options_.bearer_token.empty()) {
      list = curl_slist_append(list, ("Authorization: Bearer " + options_.bearer_token).c_str());
    }
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
    SlistPtr headers(list);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());

    if (tls.insecure_skip_verify) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!tls.ca_data.empty()) {
      curl_blob blob{const_cast<char*>(tls.ca_data.data()), tls.ca_data.size(), CURL_BLOB_COPY};
      curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
    } else if (!tls.ca_file.empty()) {
      curl_easy_setopt(h, CURLOPT_CAINFO, tls.ca_file.c_str());
    }
    if (!tls.client_cert_data.empty()) {
      curl_blob blob{const_cast<char*>(tls.client_cert_data.data()), tls.client_cert_data.size(),
                     CURL_BLOB_COPY};
      curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &blob);
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (!tls.client_cert_file.empty()) {
      curl_easy_setopt(h, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    }
    if (!tls.client_key_data.empty()) {
      curl_blob blob{const_cast<char*>(tls.client_key_data.data()), tls.client_key_data.size(),
                     CURL_BLOB_COPY};
      curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &blob);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (!tls.client_key_file.empty()) {
      curl_easy_setopt(h, CURLOPT_SSLKEY, tls.client_key_file.c_str());
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }

    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, transfer);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, transfer);
    return headers;
  }

  static Status MapError(CURLcode code, const ClientRequest& request, const char* error_buffer) {
    std::string what = request.method + " " + request.url + ": ";
    what += error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    switch (code) {
      case CURLE_OPERATION_TIMEDOUT:
        return DeadlineExceededError(what);
      case CURLE_URL_MALFORMAT:
      case CURLE_UNSUPPORTED_PROTOCOL:
      case CURLE_SSL_CERTPROBLEM:
      case CURLE_SSL_CACERT_BADFILE:
      case CURLE_SSL_CRL_BADFILE:
      case CURLE_BAD_FUNCTION_ARGUMENT:
        return InvalidArgumentError(what);
      default:
        return UnavailableError(what);
    }
  }

 private:
  const HttpClientOptions& options_;
  std::mutex mu_;
  std::vector<CURL*> idle_;  // guarded by mu_
};

HttpClient::HttpClient(HttpClientOptions options, std::unique_ptr<Impl> impl)
    : options_(std::move(options)), impl_(std::move(impl)) {}

HttpClient::~HttpClient() = default;

StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(HttpClientOptions options) {
  std::call_once(g_curl_init_once, [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_ALL); });
  if (g_curl_init_result != CURLE_OK) {
    return InternalError(std::string("curl_global_init: ") +
                         curl_easy_strerror(g_curl_init_result));
  }
  const TlsOptions& tls = options.tls;
  if (!tls.client_cert_file.empty() && !tls.client_cert_data.empty()) {
    return InvalidArgumentError("http client: client certificate given both as file and as data");
  }
  if (!tls.client_key_file.empty() && !tls.client_key_data.empty()) {
    return InvalidArgumentError("http client: client key given both as file and as data");
  }
  const bool has_cert = !tls.client_cert_file.empty() || !tls.client_cert_data.empty();
  const bool has_key = !tls.client_key_file.empty() || !tls.client_key_data.empty();
  if (has_cert != has_key) {
    return InvalidArgumentError("http client: a client certificate needs a client key and vice versa");
  }
  auto client = std::unique_ptr<HttpClient>(new HttpClient(std::move(options), nullptr));
  // Impl keeps a reference to the options stored in the client.
  client->impl_ = std::make_unique<Impl>(client->options_);
  return client;
}

StatusOr<ClientResponse> HttpClient::Do(const ClientRequest& request) const {
  CURL* h = impl_->Acquire();
  if (h == nullptr) return InternalError("curl_easy_init failed");
  ClientResponse response;
  Transfer transfer{.response = &response};
  char error_buffer[CURL_ERROR_SIZE] = {0};
  StatusOr<SlistPtr> headers = impl_->Setup(h, request, &transfer, false, error_buffer);
  if (!headers.ok()) {
    impl_->Release(h);
    return headers.status();
  }
  const CURLcode code = curl_easy_perform(h);
  impl_->Release(h);
  if (code != CURLE_OK) return Impl::MapError(code, request, error_buffer);
  return response;
}

StatusOr<ClientResponse> HttpClient::Stream(const ClientRequest& request,
                                          const StreamOptions& options) const {
  CURL* h = impl_->Acquire();
  if (h == nullptr) return InternalError("curl_easy_init failed");
  ClientResponse response;
  Transfer transfer{.response = &response, .stream = &options};
  char error_buffer[CURL_ERROR_SIZE] = {0};
  StatusOr<SlistPtr> headers = impl_->Setup(h, request, &transfer, true, error_buffer);
  if (!headers.ok()) {
    impl_->Release(h);
    return headers.status();
  }
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) {
    impl_->Release(h);
    return InternalError("curl_multi_init failed");
  }
  curl_multi_add_handle(multi, h);
  int waker = -1;
  if (options.cancel) waker = options.cancel->AddWaker([multi] { curl_multi_wakeup(multi); });

  CURLcode result = CURLE_OK;
  bool cancelled = false;
  while (true) {
    if (options.cancel && options.cancel->cancelled()) {
      cancelled = true;
      break;
    }
    int running = 0;
    const CURLMcode mc = curl_multi_perform(multi, &running);
    if (mc != CURLM_OK) {
      result = CURLE_RECV_ERROR;
      break;
    }
    if (running == 0) {
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
        if (msg->msg == CURLMSG_DONE) result = msg->data.result;
      }
      break;
    }
    curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  if (options.cancel) options.cancel->RemoveWaker(waker);
  curl_multi_remove_handle(multi, h);
  curl_multi_cleanup(multi);
  impl_->Release(h);

  if (!transfer.head_complete && response.status != 0 && result == CURLE_OK) {
    CompleteHead(&transfer);
  }
  if (!transfer.partial_line.empty() && transfer.deliver_body && !transfer.stopped_by_caller &&
      options.on_data) {
    options.on_data(transfer.partial_line);
  }
  if (cancelled || transfer.stopped_by_caller) return response;
  if (result != CURLE_OK) return Impl::MapError(result, request, error_buffer);
  return response;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace trimtab::http
