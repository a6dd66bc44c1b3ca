#include "cluster/apiserver/handlers/port_forward.h"

#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "adapters/http/spdy.h"

namespace trimtab::cluster {

namespace net = boost::asio;
using tcp = net::ip::tcp;
namespace spdy = http::spdy;

namespace {

constexpr std::string_view kProtocol = "portforward.k8s.io";
constexpr std::string_view kTunnelPrefix = "SPDY/3.1+";

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The comma-separated tokens of a header value, trimmed.
std::vector<std::string> Tokens(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string t = value.substr(start, comma - start);
    size_t b = t.find_first_not_of(" \t");
    size_t e = t.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(t.substr(b, e - b + 1));
    start = comma + 1;
  }
  return out;
}

class ForwardSession;

// One forwarded connection to the pod. Socket work runs on the forwarder's single I/O thread.
class PodConnection : public std::enable_shared_from_this<PodConnection> {
 public:
  PodConnection(net::io_context& ioc, std::weak_ptr<ForwardSession> session, std::string request_id)
      : socket_(ioc), session_(std::move(session)), request_id_(std::move(request_id)) {}

  void Connect(const std::string& ip, int port);
  // From the client's data stream (any thread): queued until connected.
  void Send(std::string data) {
    net::post(socket_.get_executor(), [self = shared_from_this(), data = std::move(data)]() mutable {
      self->out_.push_back(std::move(data));
      self->Flush();
    });
  }
  // The client closed the data stream: shut the sending side once the queue is written.
  void FinishSending() {
    net::post(socket_.get_executor(), [self = shared_from_this()] {
      self->finish_sending_ = true;
      self->Flush();
    });
  }
  void Close() {
    net::post(socket_.get_executor(), [self = shared_from_this()] { self->CloseNow(); });
  }

 private:
  void Flush();
  void Read();
  void CloseNow() {
    boost::system::error_code ec;
    closed_ = true;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

  tcp::socket socket_;
  std::weak_ptr<ForwardSession> session_;
  const std::string request_id_;
  std::deque<std::string> out_;
  bool connected_ = false;
  bool writing_ = false;
  bool finish_sending_ = false;
  bool send_shut_ = false;
  bool closed_ = false;
  std::array<char, 16 * 1024> buf_{};
};

// The SPDY side of one upgraded connection.
class ForwardSession : public std::enable_shared_from_this<ForwardSession> {
 public:
  ForwardSession(std::shared_ptr<void> keep_alive, net::io_context& ioc,
                 std::shared_ptr<http::Tunnel> tunnel, PortForwardTarget target)
      : keep_alive_(std::move(keep_alive)),
        ioc_(ioc),
        tunnel_(std::move(tunnel)),
        target_(std::move(target)) {}

  void Start() {
    auto self = shared_from_this();
    tunnel_->Start([self](std::string data) { self->OnBytes(std::move(data)); },
                   [self] { self->OnTunnelClosed(); });
  }

  // From a PodConnection (the I/O thread).
  void FromPod(const std::string& request_id, std::string data) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pairs_.find(request_id);
    if (it == pairs_.end() || closed_) return;
    tunnel_->Write(writer_.Data(it->second.data_stream, data, false));
  }
  void PodClosed(const std::string& request_id, const std::string& error) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pairs_.find(request_id);
    if (it == pairs_.end()) return;
    Pair& p = it->second;
    if (!closed_) {
      tunnel_->Write(writer_.Data(p.data_stream, "", true));
      std::string message;
      if (!error.empty()) {
        message = "error forwarding port " + std::to_string(p.port) + " to pod " + target_.ns +
                  "/" + target_.name + ", uid " + target_.uid + ": " + error;
        spdlog::info("apiserver: port-forward: {}", message);
      }
      tunnel_->Write(writer_.Data(p.error_stream, message, true));
    }
    streams_.erase(p.data_stream);
    streams_.erase(p.error_stream);
    pairs_.erase(it);
  }

 private:
  struct Pair {
    uint32_t error_stream = 0;
    uint32_t data_stream = 0;
    int port = 0;
    std::shared_ptr<PodConnection> conn;
  };

  void OnBytes(std::string data) {
    std::vector<std::shared_ptr<PodConnection>> to_close;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      reader_.Feed(data);
      while (true) {
        auto next = reader_.Next();
        if (!next.ok()) {
          spdlog::warn("apiserver: port-forward to {}/{}: {}", target_.ns, target_.name,
                       next.status().message());
          tunnel_->Write(writer_.GoAway(last_stream_, spdy::kRstProtocolError));
          tunnel_->Close();
          return;
        }
        if (!next->has_value()) break;
        HandleFrame(std::move(**next));
      }
    }
  }

  // REQUIRES: mu_ held.
  void HandleFrame(spdy::Frame frame) {
    switch (frame.type) {
      case spdy::FrameType::kSynStream:
        return OnSynStream(frame);
      case spdy::FrameType::kData:
        return OnData(frame);
      case spdy::FrameType::kRstStream: {
        auto s = streams_.find(frame.stream_id);
        if (s == streams_.end()) return;
        auto p = pairs_.find(s->second);
        if (p != pairs_.end() && p->second.conn) p->second.conn->Close();
        return;
      }
      case spdy::FrameType::kPing:
        tunnel_->Write(writer_.Ping(frame.value));
        return;
      case spdy::FrameType::kGoAway:
        tunnel_->Close();
        return;
      default:
        return;  // SETTINGS, WINDOW_UPDATE, HEADERS, SYN_REPLY: nothing to do
    }
  }

  // REQUIRES: mu_ held.
  void OnSynStream(const spdy::Frame& frame) {
    last_stream_ = std::max(last_stream_, frame.stream_id);
    const std::string type = frame.Header("streamtype");
    const std::string request_id = frame.Header("requestid");
    const std::string port_text = frame.Header("port");
    if (type != "error" && type != "data") {
      tunnel_->Write(writer_.RstStream(frame.stream_id, spdy::kRstProtocolError));
      return;
    }
    tunnel_->Write(writer_.SynReply(frame.stream_id, {}, false));
    Pair& p = pairs_[request_id];
    streams_[frame.stream_id] = request_id;
    (type == "error" ? p.error_stream : p.data_stream) = frame.stream_id;
    int port = 0;
    bool valid = !port_text.empty() && port_text.size() <= 5 &&
                 port_text.find_first_not_of("0123456789") == std::string::npos;
    if (valid) port = std::stoi(port_text);
    p.port = port;
    if (p.error_stream == 0 || p.data_stream == 0 || p.conn) return;
    p.conn = std::make_shared<PodConnection>(ioc_, weak_from_this(), request_id);
    if (!valid || port < 1 || port > 65535) {
      // As the kubelet: the error goes to the error stream and the pair ends.
      std::string id = request_id;
      net::post(ioc_, [w = weak_from_this(), id, port_text] {
        if (auto s = w.lock()) s->PodClosed(id, "invalid port header \"" + port_text + "\"");
      });
      return;
    }
    p.conn->Connect(target_.ip, port);
  }

  // REQUIRES: mu_ held.
  void OnData(const spdy::Frame& frame) {
    auto s = streams_.find(frame.stream_id);
    if (s == streams_.end()) return;
    auto p = pairs_.find(s->second);
    if (p == pairs_.end() || p->second.data_stream != frame.stream_id || !p->second.conn) return;
    if (!frame.data.empty()) p->second.conn->Send(frame.data);
    if (frame.fin()) p->second.conn->FinishSending();
  }

  void OnTunnelClosed() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    for (auto& [id, p] : pairs_) {
      if (p.conn) p.conn->Close();
    }
    pairs_.clear();
    streams_.clear();
  }

  std::shared_ptr<void> keep_alive_;  // the forwarder's I/O thread, which ioc_ belongs to
  net::io_context& ioc_;
  std::shared_ptr<http::Tunnel> tunnel_;
  const PortForwardTarget target_;
  std::mutex mu_;
  spdy::FrameReader reader_;                      // guarded by mu_
  spdy::FrameWriter writer_;                      // guarded by mu_; writes keep its order
  std::map<std::string, Pair> pairs_;             // guarded by mu_; by requestID
  std::map<uint32_t, std::string> streams_;       // guarded by mu_; stream -> requestID
  uint32_t last_stream_ = 0;                      // guarded by mu_
  bool closed_ = false;                           // guarded by mu_
};

void PodConnection::Connect(const std::string& ip, int port) {
  boost::system::error_code ec;
  auto address = net::ip::make_address(ip, ec);
  auto self = shared_from_this();
  if (ec) {
    net::post(socket_.get_executor(), [self, ip] {
      if (auto s = self->session_.lock()) s->PodClosed(self->request_id_, "bad pod IP \"" + ip + "\"");
    });
    return;
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  socket_.async_connect(endpoint, [self, endpoint](boost::system::error_code cec) {
    if (self->closed_) return;
    if (cec) {
      if (auto s = self->session_.lock()) {
        s->PodClosed(self->request_id_, "failed to connect to " + endpoint.address().to_string() +
                                            ":" + std::to_string(endpoint.port()) + ": " +
                                            cec.message());
      }
      return;
    }
    self->connected_ = true;
    self->Flush();
    self->Read();
  });
}

void PodConnection::Flush() {
  if (!connected_ || writing_ || closed_) return;
  if (out_.empty()) {
    if (finish_sending_ && !send_shut_) {
      send_shut_ = true;
      boost::system::error_code ec;
      socket_.shutdown(tcp::socket::shutdown_send, ec);
    }
    return;
  }
  writing_ = true;
  auto buf = std::make_shared<std::string>(std::move(out_.front()));
  out_.pop_front();
  net::async_write(socket_, net::buffer(*buf),
                   [self = shared_from_this(), buf](boost::system::error_code ec, size_t) {
                     self->writing_ = false;
                     if (ec) return self->CloseNow();
                     self->Flush();
                   });
}

void PodConnection::Read() {
  socket_.async_read_some(net::buffer(buf_), [self = shared_from_this()](
                                                 boost::system::error_code ec, size_t n) {
    auto session = self->session_.lock();
    if (ec || self->closed_) {
      self->CloseNow();
      if (session) session->PodClosed(self->request_id_, "");
      return;
    }
    if (session) session->FromPod(self->request_id_, std::string(self->buf_.data(), n));
    self->Read();
  });
}

}  // namespace

class PortForwarder::Impl {
 public:
  Impl() : work_(net::make_work_guard(ioc_)), thread_([this] { ioc_.run(); }) {}
  ~Impl() {
    work_.reset();
    ioc_.stop();
    // The last owner may be a handler on the thread itself.
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }
  net::io_context& ioc() { return ioc_; }

 private:
  net::io_context ioc_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  std::thread thread_;
};

PortForwarder::PortForwarder() : impl_(std::make_shared<Impl>()) {}
PortForwarder::~PortForwarder() = default;

std::optional<http::HttpResponse> PortForwarder::Upgrade(const http::HttpRequest& request,
                                                         PortForwardTarget target) {
  const std::string upgrade = Lower(request.Header("Upgrade"));
  std::string websocket_protocol;
  bool raw = false;
  if (upgrade == "websocket") {
    const std::string wanted = std::string(kTunnelPrefix) + std::string(kProtocol);
    for (const std::string& p : Tokens(request.Header("Sec-WebSocket-Protocol"))) {
      if (p == wanted) websocket_protocol = wanted;
    }
    if (websocket_protocol.empty()) return std::nullopt;
  } else if (upgrade.rfind("spdy/3.1", 0) == 0) {
    for (const std::string& p : Tokens(request.Header("X-Stream-Protocol-Version"))) {
      raw = raw || p == kProtocol;
    }
    if (!raw) return std::nullopt;
  } else {
    return std::nullopt;
  }
  http::HttpResponse res;
  std::shared_ptr<Impl> impl = impl_;
  res.on_upgrade = [impl, target = std::move(target)](std::shared_ptr<http::Tunnel> tunnel) {
    std::make_shared<ForwardSession>(impl, impl->ioc(), std::move(tunnel), target)->Start();
  };
  res.headers.emplace_back("X-Stream-Protocol-Version", std::string(kProtocol));
  if (raw) {
    res.status = 101;
    res.headers.emplace_back("Connection", "Upgrade");
    res.headers.emplace_back("Upgrade", "SPDY/3.1");
  } else {
    res.websocket_protocol = websocket_protocol;
  }
  return res;
}

}  // namespace trimtab::cluster
