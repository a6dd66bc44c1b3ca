#include "adapters/http/server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>


#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "common/deep_stack_thread.h"

namespace trimtab::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
namespace websocket = boost::beast::websocket;
using tcp = net::ip::tcp;

bool CaseInsensitiveLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
  });
}

const std::string* HttpRequest::Query(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::string HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse HttpResponse::Text(int status, std::string body, std::string content_type) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Content-Type", std::move(content_type));
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::Json(int status, std::string body) {
  return Text(status, std::move(body), "application/json");
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view text, bool plus_as_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = HexValue(text[i + 1]);
      int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_as_space && c == '+' ? ' ' : c);
  }
  return out;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

std::string_view StatusReason(int status) {
  auto r = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  return std::string_view(r.data(), r.size());
}

namespace {

void ParseTarget(std::string_view target, HttpRequest* req) {
  size_t q = target.find('?');
  req->path = PercentDecode(target.substr(0, q), /*plus_as_space=*/false);
  if (q == std::string_view::npos) return;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view part = rest.substr(0, amp);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string key = PercentDecode(part.substr(0, eq), true);
      std::string value =
          eq == std::string_view::npos ? std::string() : PercentDecode(part.substr(eq + 1), true);
      req->query.emplace_back(std::move(key), std::move(value));
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
}

// What a connection offers the server and its streams, whatever its transport (plain TCP or TLS).
class SessionBase : public std::enable_shared_from_this<SessionBase> {
 public:
  virtual ~SessionBase() = default;
  virtual net::any_io_executor executor() = 0;
  // On the strand: write what the stream has queued; end the stream after a write error.
  virtual void WriteNextChunk() = 0;
  virtual void FailStream() = 0;
  // On the strand, from Stop(): close an idle connection, end a stream.
  virtual void BeginShutdown() = 0;
  // After the I/O threads are gone: no more posts may reach this session.
  virtual void MarkStreamDead() = 0;
};

// The ResponseStream of one streamed response. All socket work happens on the session's strand;
// the mutex guards the queue and the flags shared with producer threads.
class StreamImpl final : public ResponseStream {
 public:
  StreamImpl(std::weak_ptr<SessionBase> session, size_t max_backlog)
      : session_(std::move(session)), max_backlog_(max_backlog) {}

  bool Write(std::string data) override;
  void Close() override;
  bool IsOpen() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return open_ && !close_requested_;
  }
  void OnClose(std::function<void()> callback) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (open_) {
        on_close_.push_back(std::move(callback));
        return;
      }
    }
    callback();
  }

  // Strand side. Takes the next piece of work: a chunk, the final chunk, or nothing (the writer
  // goes idle).
  enum class Next { kChunk, kLast, kIdle };
  Next TakeNext(std::string* chunk) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!open_) {
      writing_ = false;
      return Next::kIdle;
    }
    if (!queue_.empty()) {
      *chunk = std::move(queue_.front());
      queue_.pop_front();
      backlog_ -= chunk->size();
      return Next::kChunk;
    }
    if (close_requested_) return Next::kLast;
    writing_ = false;
    return Next::kIdle;
  }
  // Marks the stream closed and runs the close callbacks (once).
  void MarkClosed() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!open_) return;
      open_ = false;
      queue_.clear();
      backlog_ = 0;
      callbacks.swap(on_close_);
    }
    for (auto& cb : callbacks) cb();
  }

 private:
  // REQUIRES: mu_ held. Schedules the writer on the strand unless it is already running.
  void KickLocked();

  std::weak_ptr<SessionBase> session_;
  const size_t max_backlog_;
  mutable std::mutex mu_;
  std::deque<std::string> queue_;  // guarded by mu_
  size_t backlog_ = 0;             // guarded by mu_
  bool open_ = true;               // guarded by mu_
  bool close_requested_ = false;   // guarded by mu_
  bool writing_ = true;            // guarded by mu_; true while the headers are in flight
  std::vector<std::function<void()>> on_close_;  // guarded by mu_
};

}  // namespace


class HttpServer::Impl {
 public:
  explicit Impl(HttpServerOptions options, HttpHandler handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        ioc_(std::max(1, options_.threads)),
        acceptor_(net::make_strand(ioc_)),
        work_(net::make_work_guard(ioc_)) {}

  Status Listen();
  void Run();
  void Stop();
  void Wait() {
    std::unique_lock<std::mutex> lock(stop_mu_);
    stop_cv_.wait(lock, [&] { return stopped_; });
  }

  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }
  HttpServerStats stats() const {
    return {.accept_failures = accept_failures_.load(),
            .accept_failure_logs = accept_failure_logs_.load()};
  }
  bool stopping() const { return stopping_.load(); }
  int port() const { return port_; }

  void AddSession(SessionBase* s, std::weak_ptr<SessionBase> w) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.emplace(s, std::move(w));
  }
  void RemoveSession(SessionBase* s) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.erase(s);
    sessions_cv_.notify_all();
  }

 private:
  void Accept();
  // After a failed accept: log (at most once per options_.accept_error_log_interval) and retry
  // after a delay that doubles from accept_retry_min to accept_retry_max. Without it a full
  // descriptor table made the loop spin at 100 % CPU and log megabytes per second.
  void AcceptFailed(const beast::error_code& ec);

  const HttpServerOptions options_;
  const HttpHandler handler_;
  // Declared before ioc_ so that sessions destroyed while ioc_ shuts down can still unregister.
  std::mutex sessions_mu_;
  std::condition_variable sessions_cv_;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions_;  // guarded by sessions_mu_
  std::unique_ptr<ssl::context> tls_;  // set when serving HTTPS
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopped_ = false;  // guarded by stop_mu_

  net::io_context ioc_;
  tcp::acceptor acceptor_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  // The I/O threads. Handlers run on them and walk request and stored documents recursively,
  // down to the JSON nesting limit, so they get a deep stack (common/deep_stack_thread.h).
  std::vector<DeepStackThread> threads_;
  std::atomic<bool> stopping_{false};
  int port_ = 0;
  // Accept back-off; touched only on the acceptor's strand.
  net::steady_timer accept_retry_timer_{acceptor_.get_executor()};
  std::chrono::milliseconds accept_delay_{0};
  std::chrono::steady_clock::time_point last_accept_log_{};
  uint64_t suppressed_accept_logs_ = 0;
  std::atomic<uint64_t> accept_failures_{0};
  std::atomic<uint64_t> accept_failure_logs_{0};
};

namespace {

// What the client of a TLS connection presented: its certificate's subject and whether it
// verified against the context's client CA (OpenSSL checked it during the handshake, for the
// purpose sslclient; the verify callback let the handshake go on either way).
std::optional<ClientCertificate> PeerCertificate(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return std::nullopt;
  ClientCertificate out;
  out.verified = SSL_get_verify_result(ssl) == X509_V_OK;
  const X509_NAME* subject = X509_get_subject_name(cert);
  auto values = [subject](int nid) {
    std::vector<std::string> found;
    for (int i = X509_NAME_get_index_by_NID(subject, nid, -1); i >= 0;
         i = X509_NAME_get_index_by_NID(subject, nid, i)) {
      unsigned char* utf8 = nullptr;
      const int n =
          ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i)));
      if (n >= 0) found.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<size_t>(n));
      OPENSSL_free(utf8);
    }
    return found;
  };
  std::vector<std::string> names = values(NID_commonName);
  if (!names.empty()) out.common_name = names.back();
  out.organizations = values(NID_organizationName);
  X509_free(cert);
  return out;
}

// Asks clients for a certificate issued by `ca_pem` (advertised as the acceptable CA) and lets
// the handshake succeed whether or not it verifies: the verification result is read afterwards.
Status RequestClientCertificates(ssl::context& tls, const std::string& ca_pem) {
  beast::error_code ec;
  tls.add_certificate_authority(net::buffer(ca_pem), ec);
  if (ec) return InvalidArgumentError("http server: unusable client CA: " + ec.message());
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  if (bio == nullptr) return InternalError("http server: out of memory");
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    SSL_CTX_add_client_CA(tls.native_handle(), ca);
    X509_free(ca);
  }
  BIO_free(bio);
  // With peer verification on, OpenSSL refuses to resume a session without an id context.
  static constexpr unsigned char kSessionContext[] = "trimtab-http";
  SSL_CTX_set_session_id_context(tls.native_handle(), kSessionContext, sizeof(kSessionContext) - 1);
  tls.set_verify_mode(ssl::verify_peer);
  tls.set_verify_callback([](bool, ssl::verify_context&) { return true; });
  return Status::Ok();
}

// One TCP connection: reads requests, runs the handler, writes responses (or a stream).
// `Stream` is beast::tcp_stream (HTTP) or beast::ssl_stream<beast::tcp_stream> (HTTPS).
template <typename Stream>
class Session final : public SessionBase {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  Session(tcp::socket socket, HttpServer::Impl* server, ssl::context* tls)
      : stream_(MakeStream(std::move(socket), tls)), server_(server) {}
  ~Session() override {
    if (stream_state_) stream_state_->MarkClosed();
    server_->RemoveSession(this);
  }

  void Start() {
    beast::error_code ec;
    auto ep = Socket().remote_endpoint(ec);
    if (!ec) remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
    server_->AddSession(this, weak_from_this());
    net::dispatch(stream_.get_executor(), [self = Self()] { self->Handshake(); });
  }

  // Called on the strand by Stop().
  void BeginShutdown() override {
    if (stream_state_) {
      stream_state_->Close();
    } else if (state_ == State::kReading) {
      CloseSocket();
    }
    // kHandling / kWriting: OnWrite sees stopping() and closes after the response.
  }

  // After the I/O threads are gone: no more posts may reach this session.
  void MarkStreamDead() override {
    if (stream_state_) stream_state_->MarkClosed();
  }

  void WriteNextChunk() override {
    std::string chunk;
    switch (stream_state_->TakeNext(&chunk)) {
      case StreamImpl::Next::kIdle:
        return;
      case StreamImpl::Next::kChunk: {
        auto buf = std::make_shared<std::string>(std::move(chunk));
        net::async_write(stream_, bhttp::make_chunk(net::buffer(*buf)),
                         [self = Self(), buf](beast::error_code ec, size_t) {
                           if (ec) return self->FailStream();
                           self->WriteNextChunk();
                         });
        return;
      }
      case StreamImpl::Next::kLast:
        net::async_write(stream_, bhttp::make_chunk_last(),
                         [self = Self()](beast::error_code, size_t) {
                           self->stream_state_->MarkClosed();
                           self->CloseSocket();
                         });
        return;
    }
  }

  void FailStream() override {
    stream_state_->MarkClosed();
    CloseSocket();
  }

  net::any_io_executor executor() override { return stream_.get_executor(); }

 private:
  enum class State { kReading, kHandling, kWriting, kStreaming, kClosed };

  static Stream MakeStream(tcp::socket socket, ssl::context* tls) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *tls);
    } else {
      (void)tls;
      return Stream(std::move(socket));
    }
  }
  std::shared_ptr<Session> Self() {
    return std::static_pointer_cast<Session>(shared_from_this());
  }
  beast::tcp_stream& Tcp() { return beast::get_lowest_layer(stream_); }
  tcp::socket& Socket() { return Tcp().socket(); }

  // HTTPS: the TLS handshake first, within tls_handshake_timeout.
  void Handshake() {
    if constexpr (kTls) {
      Tcp().expires_after(server_->options().tls_handshake_timeout);
      stream_.async_handshake(ssl::stream_base::server, [self = Self()](beast::error_code ec) {
        if (ec) return self->CloseSocket();
        if (!self->server_->options().tls_client_ca_pem.empty()) {
          self->client_certificate_ = PeerCertificate(self->stream_.native_handle());
        }
        self->ReadHeader();
      });
    } else {
      ReadHeader();
    }
  }

  void ReadHeader() {
    if (server_->stopping()) return CloseSocket();
    state_ = State::kReading;
    parser_.emplace();
    parser_->body_limit(server_->options().max_body_bytes);
    parser_->header_limit(64 * 1024);
    Tcp().expires_after(server_->options().idle_timeout);
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        [self = Self()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) return RejectTooLarge();
    if (ec) return CloseSocket();
    auto& req = parser_->get();
    if (beast::iequals(req[bhttp::field::expect], "100-continue")) {
      auto cont = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
      net::async_write(stream_, net::buffer(*cont),
                       [self = Self(), cont](beast::error_code ec2, size_t) {
                         if (ec2) return self->CloseSocket();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    Tcp().expires_after(std::chrono::seconds(60));
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = Self()](beast::error_code ec, size_t) {
                        self->OnRead(ec);
                      });
  }

  void OnRead(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) return RejectTooLarge();
    if (ec) return CloseSocket();
    state_ = State::kHandling;
    auto msg = parser_->release();
    keep_alive_ = msg.keep_alive();

    HttpRequest req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    ParseTarget(req.target, &req);
    for (const auto& field : msg) {
      std::string name(field.name_string());
      auto [it, inserted] = req.headers.emplace(name, std::string(field.value()));
      if (!inserted) it->second += ", " + std::string(field.value());
    }
    req.body = std::move(msg.body());
    req.remote_address = remote_;
    req.client_certificate = client_certificate_;

    HttpResponse res;
    try {
      res = server_->handler()(req);
    } catch (const std::exception& e) {
      spdlog::error("http: handler threw on {} {}: {}", req.method, req.target, e.what());
      res = HttpResponse::Text(500, "internal error\n");
    }
    if (res.on_upgrade) return StartUpgrade(std::move(res), std::move(msg));
    if (res.on_stream) return StartStream(std::move(res));
    WriteResponse(std::move(res));
  }

  // Hands the connection to an UpgradedSession (below), which writes the 101 or answers the
  // WebSocket handshake; this session is done.
  void StartUpgrade(HttpResponse res, bhttp::request<bhttp::string_body> request);

  void RejectTooLarge() {
    keep_alive_ = false;
    WriteResponse(HttpResponse::Text(413, "request body too large\n"));
  }

  void WriteResponse(HttpResponse res) {
    state_ = State::kWriting;
    auto msg = std::make_shared<bhttp::response<bhttp::string_body>>();
    msg->version(11);
    msg->result(static_cast<unsigned>(res.status));
    for (auto& [k, v] : res.headers) msg->insert(k, v);
    msg->body() = std::move(res.body);
    msg->keep_alive(keep_alive_ && !server_->stopping());
    msg->prepare_payload();
    Tcp().expires_after(std::chrono::seconds(60));
    bhttp::async_write(stream_, *msg, [self = Self(), msg](beast::error_code ec, size_t) {
      if (ec || !msg->keep_alive() || self->server_->stopping()) return self->CloseSocket();
      self->ReadHeader();
    });
  }

  void StartStream(HttpResponse res) {
    state_ = State::kStreaming;
    Tcp().expires_never();
    auto msg = std::make_shared<bhttp::response<bhttp::empty_body>>();
    msg->version(11);
    msg->result(static_cast<unsigned>(res.status));
    for (auto& [k, v] : res.headers) msg->insert(k, v);
    msg->keep_alive(false);
    msg->chunked(true);
    auto sr = std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*msg);
    stream_state_ =
        std::make_shared<StreamImpl>(weak_from_this(), server_->options().max_stream_backlog_bytes);
    bhttp::async_write_header(stream_, *sr,
                              [self = Self(), msg, sr](beast::error_code ec, size_t) {
                                if (ec) return self->FailStream();
                                self->WriteNextChunk();
                              });
    WatchForHangup();
    try {
      res.on_stream(stream_state_);
    } catch (const std::exception& e) {
      spdlog::error("http: stream callback threw: {}", e.what());
      stream_state_->Close();
    }
  }

  // While streaming, a read that fails means the client went away.
  void WatchForHangup() {
    stream_.async_read_some(
        net::buffer(hangup_buf_), [self = Self()](beast::error_code ec, size_t) {
          if (ec) return self->FailStream();
          self->WatchForHangup();
        });
  }

  void CloseSocket() {
    if (state_ == State::kClosed) return;
    state_ = State::kClosed;
    beast::error_code ec;
    Socket().shutdown(tcp::socket::shutdown_both, ec);
    Socket().close(ec);
    if (stream_state_) stream_state_->MarkClosed();
  }

  Stream stream_;
  HttpServer::Impl* server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::shared_ptr<StreamImpl> stream_state_;
  std::array<char, 256> hangup_buf_{};
  std::string remote_;
  std::optional<ClientCertificate> client_certificate_;  // HTTPS, after the handshake
  bool keep_alive_ = true;
  State state_ = State::kReading;
};


// A connection taken over by an upgrade: a Tunnel over the raw stream or over a WebSocket.
// Socket work runs on the connection's strand; the mutex guards the write queue and the flags
// shared with writer threads.
template <typename Stream, bool kWebSocket>
class UpgradedSession final : public SessionBase, public Tunnel {
 public:
  using Transport = std::conditional_t<kWebSocket, websocket::stream<Stream>, Stream>;

  UpgradedSession(Stream stream, HttpServer::Impl* server, std::string leftover)
      : transport_(std::move(stream)), server_(server), pending_input_(std::move(leftover)) {}
  ~UpgradedSession() override { server_->RemoveSession(this); }

  // Writes the upgrade response (raw) or answers the handshake (WebSocket), then calls
  // `on_upgrade` with this tunnel.
  void Begin(HttpResponse res, bhttp::request<bhttp::string_body> request) {
    server_->AddSession(this, weak_from_this());
    beast::get_lowest_layer(transport_).expires_never();
    auto self = Self();
    auto on_upgrade = std::move(res.on_upgrade);
    if constexpr (kWebSocket) {
      transport_.set_option(websocket::stream_base::timeout{
          std::chrono::seconds(30), websocket::stream_base::none(), false});
      transport_.binary(true);
      transport_.read_message_max(server_->options().max_body_bytes);
      std::string protocol = res.websocket_protocol;
      auto extra = res.headers;
      transport_.set_option(websocket::stream_base::decorator(
          [protocol, extra](websocket::response_type& r) {
            for (const auto& [k, v] : extra) r.set(k, v);
            r.set(bhttp::field::sec_websocket_protocol, protocol);
          }));
      auto req = std::make_shared<bhttp::request<bhttp::string_body>>(std::move(request));
      transport_.async_accept(*req, [self, req, on_upgrade](beast::error_code ec) {
        if (ec) return self->Fail();
        self->Opened(on_upgrade);
      });
    } else {
      auto msg = std::make_shared<bhttp::response<bhttp::string_body>>();
      msg->version(11);
      msg->result(static_cast<unsigned>(res.status));
      for (auto& [k, v] : res.headers) msg->insert(k, v);
      msg->body() = std::move(res.body);
      msg->prepare_payload();
      bhttp::async_write(transport_, *msg, [self, msg, on_upgrade](beast::error_code ec, size_t) {
        if (ec) return self->Fail();
        self->Opened(on_upgrade);
      });
    }
  }

  // Tunnel.
  void Start(std::function<void(std::string)> on_data, std::function<void()> on_closed) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (open_) {
        on_data_ = std::move(on_data);
        on_closed_ = std::move(on_closed);
      }
    }
    if (!IsOpen()) {
      if (on_closed) on_closed();
      return;
    }
    net::dispatch(transport_.get_executor(), [self = Self()] {
      if (!self->pending_input_.empty()) {
        std::string first = std::move(self->pending_input_);
        self->pending_input_.clear();
        self->Deliver(std::move(first));
      }
      self->ReadMore();
    });
  }

  bool Write(std::string data) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!open_ || close_requested_) return false;
    if (data.empty()) return true;
    if (backlog_ + data.size() > server_->options().max_stream_backlog_bytes) {
      spdlog::warn("http: tunnel peer is {} bytes behind; disconnecting it", backlog_);
      close_requested_ = true;
      net::post(transport_.get_executor(), [self = Self()] { self->Fail(); });
      return false;
    }
    backlog_ += data.size();
    queue_.push_back(std::move(data));
    KickLocked();
    return true;
  }

  void Close() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!open_ || close_requested_) return;
    close_requested_ = true;
    KickLocked();
  }

  // SessionBase.
  net::any_io_executor executor() override { return transport_.get_executor(); }
  void WriteNextChunk() override { WriteNext(); }
  void FailStream() override { Fail(); }
  void BeginShutdown() override { Fail(); }
  void MarkStreamDead() override { MarkClosed(); }

 private:
  std::shared_ptr<UpgradedSession> Self() {
    return std::static_pointer_cast<UpgradedSession>(shared_from_this());
  }
  bool IsOpen() {
    std::lock_guard<std::mutex> lock(mu_);
    return open_;
  }

  void Opened(const std::function<void(std::shared_ptr<Tunnel>)>& on_upgrade) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      started_ = true;
      if (!queue_.empty() || close_requested_) KickLocked();
    }
    try {
      on_upgrade(std::static_pointer_cast<Tunnel>(Self()));
    } catch (const std::exception& e) {
      spdlog::error("http: upgrade callback threw: {}", e.what());
      Fail();
    }
  }

  void Deliver(std::string data) {
    std::function<void(std::string)> cb;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cb = on_data_;
    }
    if (cb) cb(std::move(data));
  }

  void ReadMore() {
    if (!IsOpen()) return;
    if constexpr (kWebSocket) {
      transport_.async_read(read_buffer_, [self = Self()](beast::error_code ec, size_t) {
        if (ec) return self->Fail();
        if (!self->transport_.got_binary()) {
          spdlog::warn("http: websocket tunnel got a text message; closing it");
          return self->Fail();
        }
        std::string data = beast::buffers_to_string(self->read_buffer_.data());
        self->read_buffer_.consume(self->read_buffer_.size());
        self->Deliver(std::move(data));
        self->ReadMore();
      });
    } else {
      transport_.async_read_some(
          net::buffer(raw_buffer_), [self = Self()](beast::error_code ec, size_t n) {
            if (ec) return self->Fail();
            self->Deliver(std::string(self->raw_buffer_.data(), n));
            self->ReadMore();
          });
    }
  }

  // REQUIRES: mu_ held.
  void KickLocked() {
    if (writing_ || !started_) return;
    writing_ = true;
    net::post(transport_.get_executor(), [self = Self()] { self->WriteNext(); });
  }

  // On the strand: one write at a time, then the close when asked for and drained.
  void WriteNext() {
    std::string chunk;
    bool close = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!open_) {
        writing_ = false;
        return;
      }
      if (!queue_.empty()) {
        chunk = std::move(queue_.front());
        queue_.pop_front();
        backlog_ -= chunk.size();
      } else if (close_requested_) {
        close = true;
      } else {
        writing_ = false;
        return;
      }
    }
    if (close) {
      if constexpr (kWebSocket) {
        transport_.async_close(websocket::close_code::normal,
                               [self = Self()](beast::error_code) { self->Fail(); });
      } else {
        Fail();
      }
      return;
    }
    auto buf = std::make_shared<std::string>(std::move(chunk));
    auto done = [self = Self(), buf](beast::error_code ec, size_t) {
      if (ec) return self->Fail();
      self->WriteNext();
    };
    if constexpr (kWebSocket) {
      transport_.async_write(net::buffer(*buf), std::move(done));
    } else {
      net::async_write(transport_, net::buffer(*buf), std::move(done));
    }
  }

  // On the strand: closes the socket and the tunnel.
  void Fail() {
    beast::error_code ec;
    auto& socket = beast::get_lowest_layer(transport_).socket();
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
    MarkClosed();
  }

  void MarkClosed() {
    std::function<void()> closed;
    std::function<void(std::string)> data;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!open_) return;
      open_ = false;
      queue_.clear();
      backlog_ = 0;
      closed.swap(on_closed_);
      data.swap(on_data_);
    }
    if (closed) closed();
  }

  Transport transport_;
  HttpServer::Impl* server_;
  std::string pending_input_;  // bytes read past the upgrade request (raw upgrades)
  beast::flat_buffer read_buffer_;
  std::array<char, 16 * 1024> raw_buffer_{};
  std::mutex mu_;
  std::deque<std::string> queue_;                  // guarded by mu_
  size_t backlog_ = 0;                             // guarded by mu_
  bool open_ = true;                               // guarded by mu_
  bool started_ = false;                           // guarded by mu_; the 101 is out
  bool close_requested_ = false;                   // guarded by mu_
  bool writing_ = false;                           // guarded by mu_
  std::function<void(std::string)> on_data_;       // guarded by mu_
  std::function<void()> on_closed_;                // guarded by mu_
};

template <typename Stream>
void Session<Stream>::StartUpgrade(HttpResponse res, bhttp::request<bhttp::string_body> request) {
  const bool ws = !res.websocket_protocol.empty();
  if (ws && !websocket::is_upgrade(request)) {
    keep_alive_ = false;
    return WriteResponse(HttpResponse::Text(400, "a WebSocket upgrade request is required\n"));
  }
  std::string leftover = beast::buffers_to_string(buffer_.data());
  buffer_.consume(buffer_.size());
  state_ = State::kClosed;  // the socket now belongs to the upgraded session
  if (ws) {
    std::make_shared<UpgradedSession<Stream, true>>(std::move(stream_), server_, std::string())
        ->Begin(std::move(res), std::move(request));
  } else {
    std::make_shared<UpgradedSession<Stream, false>>(std::move(stream_), server_,
                                                     std::move(leftover))
        ->Begin(std::move(res), std::move(request));
  }
}

bool StreamImpl::Write(std::string data) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_ || close_requested_) return false;
  if (data.empty()) return true;
  if (backlog_ + data.size() > max_backlog_) {
    spdlog::warn("http: stream client is {} bytes behind; disconnecting it", backlog_);
    queue_.clear();
    backlog_ = 0;
    close_requested_ = true;
    if (auto s = session_.lock()) {
      net::post(s->executor(), [s] { s->FailStream(); });
    }
    return false;
  }
  backlog_ += data.size();
  queue_.push_back(std::move(data));
  KickLocked();
  return true;
}

void StreamImpl::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_ || close_requested_) return;
  close_requested_ = true;
  KickLocked();
}

void StreamImpl::KickLocked() {
  if (writing_) return;
  writing_ = true;
  if (auto s = session_.lock()) {
    net::post(s->executor(), [s] { s->WriteNextChunk(); });
  }
}

}  // namespace

Status HttpServer::Impl::Listen() {
  beast::error_code ec;
  if (!options_.tls_certificate_pem.empty() || !options_.tls_key_pem.empty()) {
    if (options_.tls_certificate_pem.empty() || options_.tls_key_pem.empty()) {
      return InvalidArgumentError("http server: TLS needs both a certificate and a key");
    }
    tls_ = std::make_unique<ssl::context>(ssl::context::tls_server);
    tls_->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                      ssl::context::single_dh_use);
    tls_->use_certificate_chain(net::buffer(options_.tls_certificate_pem), ec);
    if (!ec) tls_->use_private_key(net::buffer(options_.tls_key_pem), ssl::context::pem, ec);
    if (ec) return InvalidArgumentError("http server: unusable TLS certificate or key: " + ec.message());
    if (!options_.tls_client_ca_pem.empty()) {
      TRIMTAB_RETURN_IF_ERROR(RequestClientCertificates(*tls_, options_.tls_client_ca_pem));
    }
  }
  auto address = net::ip::make_address(options_.address, ec);
  if (ec) return InvalidArgumentError("http server: bad bind address \"" + options_.address + "\"");
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options_.port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return UnavailableError("http server: cannot listen on " + options_.address + ":" +
                            std::to_string(options_.port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  return Status::Ok();
}

void HttpServer::Impl::Run() {
  Accept();
  int n = std::max(1, options_.threads);
  for (int i = 0; i < n; ++i) {
    auto thread = DeepStackThread::Start([this] { ioc_.run(); });
    if (thread.ok()) {
      threads_.push_back(std::move(thread).value());
    } else {
      spdlog::error("http: cannot start an I/O thread: {}", thread.status().message());
    }
  }
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted || stopping_) return;
      AcceptFailed(ec);
      return;
    }
    accept_delay_ = std::chrono::milliseconds(0);
    if (!stopping_) {
      beast::error_code opt_ec;
      socket.set_option(tcp::no_delay(true), opt_ec);
      if (tls_) {
        std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(std::move(socket), this,
                                                                       tls_.get())
            ->Start();
      } else {
        std::make_shared<Session<beast::tcp_stream>>(std::move(socket), this, nullptr)->Start();
      }
      Accept();
    }
  });
}

void HttpServer::Impl::AcceptFailed(const beast::error_code& ec) {
  accept_failures_.fetch_add(1);
  accept_delay_ = accept_delay_.count() == 0
                      ? options_.accept_retry_min
                      : std::min(accept_delay_ * 2, options_.accept_retry_max);
  const auto now = std::chrono::steady_clock::now();
  if (accept_failure_logs_.load() == 0 ||
      now - last_accept_log_ >= options_.accept_error_log_interval) {
    accept_failure_logs_.fetch_add(1);
    spdlog::warn("http server {}:{}: accept failed: {} ({} more since the last report); retrying "
                 "in {} ms",
                 options_.address, port_, ec.message(), suppressed_accept_logs_,
                 accept_delay_.count());
    last_accept_log_ = now;
    suppressed_accept_logs_ = 0;
  } else {
    ++suppressed_accept_logs_;
  }
  accept_retry_timer_.expires_after(accept_delay_);
  accept_retry_timer_.async_wait([this](beast::error_code timer_ec) {
    if (!timer_ec && !stopping_) Accept();
  });
}

void HttpServer::Impl::Stop() {
  if (stopping_.exchange(true)) {  // another caller is stopping or has stopped
    Wait();
    return;
  }
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ec;
    acceptor_.close(ec);
    accept_retry_timer_.cancel();
  });
  std::vector<std::shared_ptr<SessionBase>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (auto& [ptr, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) net::post(s->executor(), [s] { s->BeginShutdown(); });
  live.clear();
  {
    std::unique_lock<std::mutex> lock(sessions_mu_);
    sessions_cv_.wait_for(lock, options_.stop_grace, [&] { return sessions_.empty(); });
  }
  work_.reset();
  ioc_.stop();
  for (DeepStackThread& t : threads_) t.join();
  threads_.clear();
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (auto& [ptr, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->MarkStreamDead();
  live.clear();
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopped_ = true;
  }
  stop_cv_.notify_all();
}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(HttpServerOptions options,
                                                         HttpHandler handler) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  TRIMTAB_RETURN_IF_ERROR(impl->Listen());
  impl->Run();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { Stop(); }
int HttpServer::port() const { return impl_->port(); }
HttpServerStats HttpServer::stats() const { return impl_->stats(); }
std::string HttpServer::base_url() const {
  const std::string& a = impl_->options().address;
  bool v6 = a.find(':') != std::string::npos;
  const bool tls = !impl_->options().tls_certificate_pem.empty();
  return std::string(tls ? "https://" : "http://") + (v6 ? "[" + a + "]" : a) + ":" +
         std::to_string(impl_->port());
}
void HttpServer::Wait() { impl_->Wait(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace trimtab::http
