// pods/portforward (port_forward.h) and the pods and services proxy subresources
// (handlers_proxy.cc) over real HTTP: a SPDY client speaking what kubectl port-forward speaks,
// over a WebSocket and over a raw SPDY upgrade, to a pod whose IP has a listener.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include "adapters/http/spdy.h"
#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster::testing {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using tcp = net::ip::tcp;
namespace spdy = http::spdy;

constexpr char kPath[] = "/api/v1/namespaces/default/pods/p/portforward";

// The client side of one SPDY connection, over whatever moves the bytes.
class SpdyClient {
 public:
  SpdyClient(std::function<void(const std::string&)> send, std::function<std::string()> receive)
      : send_(std::move(send)), receive_(std::move(receive)) {}

  void Open(uint32_t stream, const std::string& type, int port) {
    send_(writer_.SynStream(stream, {{"streamType", type}, {"port", std::to_string(port)},
                                      {"requestID", "0"}}, false));
  }
  void Send(uint32_t stream, const std::string& data, bool fin) {
    send_(writer_.Data(stream, data, fin));
  }
  // Reads frames until both streams have ended; returns what each carried.
  std::map<uint32_t, std::string> ReadUntilFinished(std::vector<uint32_t> streams,
                                                     int* replies) {
    std::map<uint32_t, std::string> got;
    std::set<uint32_t> open(streams.begin(), streams.end());
    while (!open.empty()) {
      auto frame = reader_.Next();
      EXPECT_TRUE(frame.ok()) << frame.status().ToString();
      if (!frame.ok()) break;
      if (!frame->has_value()) {
        std::string bytes = receive_();
        if (bytes.empty()) break;
        reader_.Feed(bytes);
        continue;
      }
      const spdy::Frame& f = **frame;
      if (f.type == spdy::FrameType::kSynReply) ++*replies;
      if (f.type == spdy::FrameType::kData) {
        got[f.stream_id] += f.data;
        if (f.fin()) open.erase(f.stream_id);
      }
    }
    return got;
  }
  spdy::FrameWriter& writer() { return writer_; }
  spdy::FrameReader& reader() { return reader_; }

 private:
  std::function<void(const std::string&)> send_;
  std::function<std::string()> receive_;
  spdy::FrameWriter writer_;
  spdy::FrameReader reader_;
};

class PortForwardTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    auto backend = http::HttpServer::Create({.address = "127.0.0.1", .port = 0},
                                            [](const http::HttpRequest& r) {
                                              return http::HttpResponse::Text(
                                                  200, "hello from the pod: " + r.target);
                                            });
    ASSERT_TRUE(backend.ok());
    backend_ = std::move(*backend);
    Json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "p"}, {"labels", {{"app", "web"}}}}},
                {"spec",
                 {{"nodeName", "node-1"},
                  {"containers",
                   Json::array({{{"name", "c"},
                                 {"image", "busybox"},
                                 {"ports", Json::array({{{"containerPort", backend_->port()},
                                                         {"name", "web"}}})}}})}}}};
    ASSERT_EQ(Post("/api/v1/namespaces/default/pods", pod).status, 201);
    Reply status = Patch("/api/v1/namespaces/default/pods/p/status",
                         Json{{"status", {{"phase", "Running"}, {"podIP", "127.0.0.1"}}}},
                         "application/merge-patch+json");
    ASSERT_EQ(status.status, 200) << status.raw;
  }
  void TearDown() override {
    backend_.reset();
    ApiServerTest::TearDown();
  }

  // One forwarded connection: an HTTP request to `port` through the SPDY client; the data and
  // error streams' contents.
  static std::pair<std::string, std::string> Forward(SpdyClient& client, int port,
                                                     uint32_t first_stream) {
    client.Open(first_stream, "error", port);
    client.Send(first_stream, "", true);  // kubectl closes its side of the error stream
    client.Open(first_stream + 2, "data", port);
    client.Send(first_stream + 2, "GET /overview HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n",
                true);
    int replies = 0;
    auto got = client.ReadUntilFinished({first_stream, first_stream + 2}, &replies);
    EXPECT_EQ(replies, 2);
    return {got[first_stream + 2], got[first_stream]};
  }

  std::unique_ptr<http::HttpServer> backend_;
};

TEST_F(PortForwardTest, WebSocketTunnelForwardsToThePodsPort) {
  net::io_context ioc;
  websocket::stream<tcp::socket> ws(ioc);
  ws.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"),
                                        static_cast<unsigned short>(server_->port())));
  ws.set_option(websocket::stream_base::decorator([](websocket::request_type& r) {
    r.set(beast::http::field::sec_websocket_protocol, "v5.channel.k8s.io, SPDY/3.1+portforward.k8s.io");
  }));
  websocket::response_type response;
  ws.handshake(response, "127.0.0.1", kPath);
  EXPECT_EQ(response[beast::http::field::sec_websocket_protocol], "SPDY/3.1+portforward.k8s.io");
  ws.binary(true);
  SpdyClient client(
      [&](const std::string& bytes) { ws.write(net::buffer(bytes)); },
      [&]() {
        beast::flat_buffer buffer;
        beast::error_code ec;
        ws.read(buffer, ec);
        EXPECT_TRUE(ws.got_binary());
        return ec ? std::string() : beast::buffers_to_string(buffer.data());
      });
  // Pings are answered.
  ws.write(net::buffer(client.writer().Ping(1)));
  auto [data, error] = Forward(client, backend_->port(), 1);
  EXPECT_NE(data.find("200 OK"), std::string::npos) << data;
  EXPECT_NE(data.find("hello from the pod: /overview"), std::string::npos) << data;
  EXPECT_EQ(error, "");
  // A second connection over the same tunnel, to a port nobody listens on: the kubelet's error.
  tcp::acceptor closed(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  const int dead_port = closed.local_endpoint().port();
  closed.close();
  auto [data2, error2] = Forward(client, dead_port, 5);
  EXPECT_EQ(data2, "");
  EXPECT_NE(error2.find("error forwarding port " + std::to_string(dead_port) +
                        " to pod default/p, uid "),
            std::string::npos)
      << error2;
  EXPECT_NE(error2.find("failed to connect to 127.0.0.1:"), std::string::npos) << error2;
}

TEST_F(PortForwardTest, RawSpdyUpgradeForwardsToThePodsPort) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"),
                               static_cast<unsigned short>(server_->port())));
  std::string request = std::string("POST ") + kPath +
                        " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
                        "Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n"
                        "Content-Length: 0\r\n\r\n";
  net::write(socket, net::buffer(request));
  net::streambuf head;
  net::read_until(socket, head, "\r\n\r\n");
  std::string text(net::buffers_begin(head.data()), net::buffers_end(head.data()));
  const size_t end = text.find("\r\n\r\n") + 4;
  EXPECT_EQ(text.rfind("HTTP/1.1 101", 0), 0u) << text;
  EXPECT_NE(text.find("X-Stream-Protocol-Version: portforward.k8s.io"), std::string::npos) << text;
  std::string leftover = text.substr(end);
  SpdyClient client([&](const std::string& bytes) { net::write(socket, net::buffer(bytes)); },
                    [&]() {
                      if (!leftover.empty()) return std::exchange(leftover, std::string());
                      char buf[4096];
                      boost::system::error_code ec;
                      size_t n = socket.read_some(net::buffer(buf), ec);
                      return ec ? std::string() : std::string(buf, n);
                    });
  auto [data, error] = Forward(client, backend_->port(), 1);
  EXPECT_NE(data.find("hello from the pod: /overview"), std::string::npos) << data;
  EXPECT_EQ(error, "");
}

TEST_F(PortForwardTest, WithoutAnUpgradeOrAHostItIsABadRequest) {
  Reply plain = Call("POST", kPath, nullptr);
  EXPECT_EQ(plain.status, 400) << plain.raw;
  EXPECT_NE(plain.raw.find("SPDY/3.1+portforward.k8s.io"), std::string::npos) << plain.raw;
  Json pending = {{"apiVersion", "v1"},
                  {"kind", "Pod"},
                  {"metadata", {{"name", "pending"}}},
                  {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", pending).status, 201);
  Reply r = Call("POST", "/api/v1/namespaces/default/pods/pending/portforward", nullptr);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["message"], "pod pending does not have a host assigned");
}

TEST_F(PortForwardTest, PodAndServiceProxiesRelayTheRequest) {
  const std::string port = std::to_string(backend_->port());
  // pods/<name>:<port>/proxy/<path>, the first container port when none is given, a named one.
  Reply r = Get("/api/v1/namespaces/default/pods/p:" + port + "/proxy/jobs/overview?x=1");
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.raw, "hello from the pod: /jobs/overview?x=1");
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/p/proxy/").raw, "hello from the pod: /");
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/http:p:web/proxy/a").raw,
            "hello from the pod: /a");
  Reply dead = Get("/api/v1/namespaces/default/pods/p:1/proxy/");
  EXPECT_EQ(dead.status, 503) << dead.raw;
  EXPECT_NE(dead.body["message"].get<std::string>().find("error trying to reach service"),
            std::string::npos);
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/nosuch/proxy/").status, 404);

  // services/<name>:<port name>/proxy/<path> goes to a ready endpoint's target port.
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "web"}}},
              {"spec",
               {{"selector", {{"app", "web"}}},
                {"ports", Json::array({{{"name", "rest"}, {"port", 80}, {"targetPort", "web"}}})}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/services", svc).status, 201);
  Reply none = Get("/api/v1/namespaces/default/services/web:rest/proxy/");
  EXPECT_EQ(none.status, 503) << none.raw;
  EXPECT_EQ(none.body["message"], "no endpoints available for service \"web\"");
  Json endpoints = {
      {"apiVersion", "v1"},
      {"kind", "Endpoints"},
      {"metadata", {{"name", "web"}}},
      {"subsets", Json::array({{{"addresses", Json::array({{{"ip", "127.0.0.1"}}})},
                                {"ports", Json::array({{{"name", "rest"},
                                                        {"port", backend_->port()}}})}}})}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/endpoints", endpoints).status, 201);
  for (const char* name : {"web:rest", "web:80", "web"}) {
    Reply s = Get(std::string("/api/v1/namespaces/default/services/") + name +
                  "/proxy/overview");
    EXPECT_EQ(s.status, 200) << name << ": " << s.raw;
    EXPECT_EQ(s.raw, "hello from the pod: /overview") << name;
  }
}

}  // namespace
}  // namespace trimtab::cluster::testing
