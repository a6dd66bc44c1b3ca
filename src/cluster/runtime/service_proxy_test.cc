// The service proxy: bytes through clusterIP:port reach a server on a pod IP and come back
// (with half-close), connections are spread round robin over the endpoints, listeners follow
// Service deletion, and with the whole runtime a Deployment's http-echo pods answer through
// their Service.
#include "cluster/runtime/service_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "adapters/http/test_client.h"
#include "cluster/runtime/runtime_test_util.h"

namespace trimtab::cluster::runtime::testing {
namespace {

using std::chrono::milliseconds;

// Addresses unique to this test process, so parallel test runs do not collide on loopback.
std::string Prefix(int first_octet) {
  return "127." + std::to_string(first_octet) + "." + std::to_string(::getpid() % 250 + 1) + ".";
}

// Reads everything until the peer half-closes, then answers "<tag>:<data>" and closes.
class TcpEchoServer {
 public:
  TcpEchoServer(const std::string& ip, std::string tag) : tag_(std::move(tag)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    ::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
    ok_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && ::listen(fd_, 16) == 0;
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~TcpEchoServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  bool ok() const { return ok_; }
  int port() const { return port_; }

 private:
  void Loop() {
    while (!stop_) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string data;
      char buf[8192];
      ssize_t n;
      while ((n = ::read(c, buf, sizeof(buf))) > 0) data.append(buf, static_cast<size_t>(n));
      std::string reply = tag_ + ":" + data;
      size_t off = 0;
      while (off < reply.size()) {
        ssize_t w = ::write(c, reply.data() + off, reply.size() - off);
        if (w <= 0) break;
        off += static_cast<size_t>(w);
      }
      ::close(c);
    }
  }
  std::string tag_;
  int fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Sends `data`, half-closes, returns what comes back (nullopt when the connect fails).
std::optional<std::string> RoundTrip(const std::string& ip, int port, const std::string& data) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  size_t off = 0;
  while (off < data.size()) {
    ssize_t w = ::write(fd, data.data() + off, data.size() - off);
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[8192];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

class ServiceProxyTest : public ClusterTest {
 protected:
  void SetUp() override {
    auto server = ApiServer::Create({.port = 0, .service_cluster_ip_range = Prefix(11) + "0/24"});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    kube::RestConfig config;
    config.server = server_->url();
    client_ = std::move(kube::KubeClient::Create(config, {})).value();
  }
  void TearDown() override {
    if (proxy_) proxy_->Stop();
    if (informers_) informers_->Stop();
    ClusterTest::TearDown();
  }
  void StartProxy() {
    informers_ = std::make_unique<InformerSet>(client_.get());
    proxy_ = std::make_unique<ServiceProxy>(informers_.get(),
                                            ServiceProxyOptions{.retry_interval = milliseconds(100)});
    ASSERT_TRUE(informers_->Start(milliseconds(5000)).ok());
    ASSERT_TRUE(proxy_->Start().ok());
  }
  // A Service without selector (port 8080) and the Endpoints the test gives it.
  std::string ServiceWithEndpoints(const std::string& name, Json subsets) {
    Json svc = Create(ServicesGvr(), {{"apiVersion", "v1"},
                                      {"kind", "Service"},
                                      {"metadata", {{"name", name}}},
                                      {"spec", {{"ports", Json::array({{{"port", 8080}}})}}}});
    Create(EndpointsGvr(), {{"apiVersion", "v1"},
                            {"kind", "Endpoints"},
                            {"metadata", {{"name", name}}},
                            {"subsets", subsets}});
    return Str(svc, {"spec", "clusterIP"});
  }

  std::unique_ptr<InformerSet> informers_;
  std::unique_ptr<ServiceProxy> proxy_;
};

Json Subset(const std::string& ip, int port) {
  return {{"addresses", Json::array({{{"ip", ip}}})}, {"ports", Json::array({{{"port", port}}})}};
}

TEST_F(ServiceProxyTest, ForwardsBytesRoundRobinAndFollowsTheService) {
  TcpEchoServer a(Prefix(21) + "2", "A");
  TcpEchoServer b(Prefix(21) + "3", "B");
  ASSERT_TRUE(a.ok() && b.ok());
  StartProxy();
  std::string ip = ServiceWithEndpoints(
      "echo", Json::array({Subset(Prefix(21) + "2", a.port()), Subset(Prefix(21) + "3", b.port())}));
  ASSERT_EQ(ip.rfind(Prefix(11), 0), 0u) << ip;
  ASSERT_TRUE(Eventually([&] {
    auto r = RoundTrip(ip, 8080, "ping");
    return r && (*r == "A:ping" || *r == "B:ping");
  }));
  std::string big(300000, 'x');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  std::set<std::string> tags;
  for (int i = 0; i < 4; ++i) {
    auto r = RoundTrip(ip, 8080, big);
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->size(), big.size() + 2);
    EXPECT_EQ(r->substr(2), big);
    tags.insert(r->substr(0, 1));
  }
  EXPECT_EQ(tags, (std::set<std::string>{"A", "B"}));

  // No endpoints: the connection is closed without data.
  ASSERT_TRUE(client_->Patch(EndpointsGvr(), "default", "echo", kube::PatchType::kMerge,
                             R"({"subsets":[]})").ok());
  ASSERT_TRUE(Eventually([&] { return RoundTrip(ip, 8080, "x") == std::string(); }));
  // A deleted Service stops listening.
  ASSERT_TRUE(client_->Delete(ServicesGvr(), "default", "echo").ok());
  EXPECT_TRUE(Eventually([&] { return !RoundTrip(ip, 8080, "x").has_value(); }));
  EXPECT_TRUE(proxy_->ListenersForTest().empty());
}

TEST_F(ServiceProxyTest, DeploymentPodsAnswerThroughTheirService) {
  StartRuntime({.nodes = UniformNodes(2, "4", "8Gi"),
                .pod_cidr = Prefix(22) + "0/24",
                .node_pod_prefix = 26,
                .node_ip_range = Prefix(23) + "0/24",
                .service_cidr = Prefix(11) + "0/24"});
  Json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "echo"}}},
      {"spec",
       {{"replicas", 2},
        {"selector", {{"matchLabels", {{"app", "echo"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "echo"}}}, {"annotations", {{"trimtab.dev/serve", "http-echo"}}}}},
          {"spec", {{"containers", Json::array({{{"name", "echo"},
                                                 {"image", "echo:1"},
                                                 {"ports", Json::array({{{"name", "http"}, {"containerPort", 8080}}})}}})}}}}}}}};
  Create(DeploymentsGvr(), deployment);
  Json svc = Create(ServicesGvr(), {{"apiVersion", "v1"},
                                    {"kind", "Service"},
                                    {"metadata", {{"name", "echo"}}},
                                    {"spec", {{"selector", {{"app", "echo"}}},
                                              {"ports", Json::array({{{"port", 9000}, {"targetPort", "http"}}})}}}});
  std::string url = "http://" + Str(svc, {"spec", "clusterIP"}) + ":9000";
  http::TestHttpClient http(url);
  std::set<std::string> pods;
  ASSERT_TRUE(Eventually([&] {
    http::TestHttpResponse r = http.Request("GET", "/hello", "", {"Connection: close"});
    if (r.status != 200) return false;
    size_t at = r.body.find("pod: default/");
    if (at == std::string::npos) return false;
    pods.insert(r.body.substr(at, r.body.find('\n', at) - at));
    EXPECT_NE(r.body.find("request: GET /hello"), std::string::npos) << r.body;
    return pods.size() == 2;
  }, std::chrono::seconds(15)));
  // The request shows in the serving pod's log.
  bool logged = false;
  for (const Json& pod : List(PodsGvr(), "app=echo")) {
    logged = logged || runtime_->PodLogs(pod, "echo", false).value_or("").find("http-echo: GET /hello") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

// Issue 27: when another process held a Service address, the proxy only warned and the
// operator talked to that process. It is now an error the proxy reports until the address frees.
TEST_F(ServiceProxyTest, Issue27AddressHeldByAnotherProcessIsAnError) {
  const std::string ip = Prefix(11) + "77";
  int stranger = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(8080);
  ::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  ASSERT_EQ(::bind(stranger, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(stranger, 4), 0);
  StartProxy();
  Create(ServicesGvr(), {{"apiVersion", "v1"},
                         {"kind", "Service"},
                         {"metadata", {{"name", "held"}}},
                         {"spec", {{"clusterIP", ip}, {"ports", Json::array({{{"port", 8080}}})}}}});
  const std::string key = ip + ":8080";
  ASSERT_TRUE(Eventually([&] { return proxy_->BindErrors().count(key) == 1; }));
  EXPECT_NE(proxy_->BindErrors().at(key).find("held by another process"), std::string::npos)
      << proxy_->BindErrors().at(key);
  EXPECT_TRUE(proxy_->ListenersForTest().empty());
  ::close(stranger);
  EXPECT_TRUE(Eventually([&] { return proxy_->BindErrors().empty(); }));
  EXPECT_EQ(proxy_->ListenersForTest(), std::vector<std::string>{key});
}

}  // namespace
}  // namespace trimtab::cluster::runtime::testing
