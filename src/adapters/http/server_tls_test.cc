// HttpServer over TLS with certificates from x509.h, driven by HttpClient (libcurl): the
// certificate verifies against the CA for its IP and DNS names, a client without the CA fails,
// keep-alive and streamed responses work through the TLS stream.
#include <atomic>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "adapters/http/client.h"
#include "adapters/http/server.h"
#include "adapters/http/x509.h"

namespace trimtab::http {
namespace {

using namespace std::chrono_literals;

class HttpServerTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ca = GenerateCa({.common_name = "test-ca"});
    ASSERT_TRUE(ca.ok()) << ca.status().ToString();
    ca_ = *ca;
    auto leaf = IssueCertificate(ca_, {.common_name = "server",
                                       .dns_names = {"localhost"},
                                       .ip_addresses = {"127.0.0.1", "::1"}});
    ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
    leaf_ = *leaf;
  }

  void StartServer(HttpHandler handler) {
    auto server = HttpServer::Create({.address = "127.0.0.1",
                                      .port = 0,
                                      .stop_grace = 200ms,
                                      .tls_certificate_pem = leaf_.certificate_pem,
                                      .tls_key_pem = leaf_.key_pem},
                                     std::move(handler));
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  std::unique_ptr<HttpClient> Client(TlsOptions tls) {
    auto client = HttpClient::Create({.tls = std::move(tls), .default_timeout = 5000ms});
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  KeyPair ca_;
  KeyPair leaf_;
  std::unique_ptr<HttpServer> server_;
};

TEST(X509Test, CertificatesCarryTheirNamesAndChainToTheCa) {
  auto ca = GenerateCa({.common_name = "ca"});
  ASSERT_TRUE(ca.ok());
  auto leaf = IssueCertificate(*ca, {.common_name = "s",
                                     .dns_names = {"localhost", "example.test"},
                                     .ip_addresses = {"127.0.0.1", "::1"}});
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
  auto info = InspectCertificate(leaf->certificate_pem);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->dns_names, (std::vector<std::string>{"localhost", "example.test"}));
  EXPECT_EQ(info->ip_addresses, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_GT(info->not_after, std::chrono::system_clock::now() + std::chrono::hours(24 * 300));
  EXPECT_TRUE(SignedBy(leaf->certificate_pem, ca->certificate_pem));
  EXPECT_TRUE(KeyMatches(leaf->certificate_pem, leaf->key_pem));
  EXPECT_FALSE(KeyMatches(leaf->certificate_pem, ca->key_pem));
  auto other = GenerateCa({.common_name = "other"});
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(SignedBy(leaf->certificate_pem, other->certificate_pem));
  EXPECT_FALSE(IssueCertificate(*ca, {.common_name = "x", .ip_addresses = {"not-an-ip"}}).ok());
}

TEST_F(HttpServerTlsTest, ServesHttpsVerifiedByTheCa) {
  StartServer([](const HttpRequest& r) { return HttpResponse::Text(200, "hello " + r.path); });
  ASSERT_EQ(server_->base_url().rfind("https://127.0.0.1:", 0), 0u) << server_->base_url();
  auto client = Client({.ca_data = ca_.certificate_pem});
  ASSERT_NE(client, nullptr);
  for (int i = 0; i < 3; ++i) {  // keep-alive reuses the TLS connection
    auto r = client->Do({.url = server_->base_url() + "/x"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "hello /x");
  }
  // The DNS name in the certificate verifies too.
  auto by_name = client->Do({.url = "https://localhost:" + std::to_string(server_->port()) + "/"});
  ASSERT_TRUE(by_name.ok()) << by_name.status().ToString();
  EXPECT_EQ(by_name->status, 200);
}

TEST_F(HttpServerTlsTest, ClientWithoutTheCaFails) {
  StartServer([](const HttpRequest&) { return HttpResponse::Text(200, "secret"); });
  // The system trust store does not know the local CA.
  auto system = Client({});
  ASSERT_NE(system, nullptr);
  auto r = system->Do({.url = server_->base_url() + "/"});
  EXPECT_FALSE(r.ok());
  // Another CA does not verify it either.
  auto other = GenerateCa({.common_name = "other"});
  ASSERT_TRUE(other.ok());
  auto wrong = Client({.ca_data = other->certificate_pem});
  ASSERT_NE(wrong, nullptr);
  EXPECT_FALSE(wrong->Do({.url = server_->base_url() + "/"}).ok());
  // Plain HTTP to the TLS port gets no answer.
  auto plain = Client({});
  auto http = plain->Do({.url = "http://127.0.0.1:" + std::to_string(server_->port()) + "/",
                         .timeout = 2000ms});
  EXPECT_TRUE(!http.ok() || http->status != 200);
}

TEST_F(HttpServerTlsTest, StreamsOverTls) {
  StartServer([](const HttpRequest&) {
    HttpResponse r;
    r.status = 200;
    r.on_stream = [](std::shared_ptr<ResponseStream> s) {
      std::thread([s] {
        for (int i = 0; i < 3; ++i) s->Write("line " + std::to_string(i) + "\n");
        s->Close();
      }).detach();
    };
    return r;
  });
  auto client = Client({.ca_data = ca_.certificate_pem});
  ASSERT_NE(client, nullptr);
  std::vector<std::string> lines;
  auto r = client->Stream({.url = server_->base_url() + "/watch"},
                          {.on_data = [&](std::string_view line) {
                            lines.emplace_back(line);
                            return true;
                          }});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(lines, (std::vector<std::string>{"line 0", "line 1", "line 2"}));
}

TEST(HttpServerTlsOptionsTest, CertificateWithoutKeyIsRejected) {
  auto server = HttpServer::Create({.port = 0, .tls_certificate_pem = "x"},
                                   [](const HttpRequest&) { return HttpResponse::Text(200, ""); });
  EXPECT_FALSE(server.ok());
  auto garbage = HttpServer::Create({.port = 0, .tls_certificate_pem = "x", .tls_key_pem = "y"},
                                    [](const HttpRequest&) { return HttpResponse::Text(200, ""); });
  EXPECT_FALSE(garbage.ok());
}

}  // namespace
}  // namespace trimtab::http
