#include "adapters/http/client.h"

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>


#include <gtest/gtest.h>

#include "adapters/http/server.h"
#include "adapters/http/test_client.h"

namespace trimtab::http {
namespace {

using namespace std::chrono_literals;

class HttpClientTest : public ::testing::Test {
 protected:
  void StartServer(HttpHandler handler) {
    StatusOr<std::unique_ptr<HttpServer>> server =
        HttpServer::Create({.address = "127.0.0.1", .port = 0, .stop_grace = 200ms},
                           std::move(handler));
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  std::unique_ptr<HttpClient> MakeClient(HttpClientOptions options = {}) {
    StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(std::move(options));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  std::string Url(std::string_view target) const { return server_->base_url() + std::string(target); }

  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpClientTest, RequestAndResponse) {
  StartServer([](const HttpRequest& req) {
    HttpResponse r = HttpResponse::Json(req.method == "POST" ? 201 : 200,
                                        "{\"method\":\"" + req.method + "\",\"path\":\"" +
                                            req.path + "\",\"body\":\"" + req.body + "\"}");
    r.headers.emplace_back("X-Auth", req.Header("Authorization"));
    r.headers.emplace_back("X-Custom", req.Header("X-Custom"));
    return r;
  });
  auto client = MakeClient({.bearer_token = "s3cret"});
  ASSERT_NE(client, nullptr);

  StatusOr<ClientResponse> get = client->Do({.url = Url("/api/v1/pods?limit=1")});
  ASSERT_TRUE(get.ok()) << get.status().ToString();
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, R"({"method":"GET","path":"/api/v1/pods","body":""})");
  ASSERT_NE(get->Header("x-auth"), nullptr);
  EXPECT_EQ(*get->Header("X-AUTH"), "Bearer s3cret");
  ASSERT_NE(get->Header("content-type"), nullptr);
  EXPECT_EQ(*get->Header("content-type"), "application/json");

  StatusOr<ClientResponse> post =
      client->Do({.method = "POST",
                   .url = Url("/x"),
                   .headers = {{"Content-Type", "application/json"}, {"X-Custom", "v1"},
                               {"Authorization", "Basic abc"}},
                   .body = "hello"});
  ASSERT_TRUE(post.ok()) << post.status().ToString();
  EXPECT_EQ(post->status, 201);
  EXPECT_EQ(post->body, R"({"method":"POST","path":"/x","body":"hello"})");
  EXPECT_EQ(*post->Header("X-Custom"), "v1");
  EXPECT_EQ(*post->Header("X-Auth"), "Basic abc");  // the request's own Authorization wins

  for (const char* method : {"PUT", "PATCH", "DELETE"}) {
    StatusOr<ClientResponse> r = client->Do({.method = method, .url = Url("/y"), .body = "b"});
    ASSERT_TRUE(r.ok()) << method << ": " << r.status().ToString();
    EXPECT_EQ(r->body, std::string(R"({"method":")") + method + R"(","path":"/y","body":"b"})");
  }
}

TEST_F(HttpClientTest, ErrorStatusIsAResponse) {
  StartServer([](const HttpRequest&) {
    return HttpResponse::Json(404, R"({"kind":"Status","reason":"NotFound"})");
  });
  auto client = MakeClient();
  StatusOr<ClientResponse> r = client->Do({.url = Url("/missing")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, R"({"kind":"Status","reason":"NotFound"})");
}

TEST_F(HttpClientTest, ReusesConnections) {
  std::mutex mu;
  std::set<std::string> peers;
  StartServer([&](const HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    peers.insert(req.remote_address);
    return HttpResponse::Text(200, "ok");
  });
  auto client = MakeClient();
  for (int i = 0; i < 5; ++i) {
    StatusOr<ClientResponse> r = client->Do({.url = Url("/ping")});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->body, "ok");
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(peers.size(), 1u);  // one keep-alive connection served all five requests
}

TEST_F(HttpClientTest, ConcurrentRequests) {
  StartServer([](const HttpRequest& req) { return HttpResponse::Text(200, req.path); });
  auto client = MakeClient();
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const std::string path = "/t" + std::to_string(t) + "/" + std::to_string(i);
        StatusOr<ClientResponse> r = client->Do({.url = Url(path)});
        if (r.ok() && r->body == path) ++good;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(good.load(), 40);
}

TEST_F(HttpClientTest, StreamsLines) {
  StartServer([](const HttpRequest&) {
    HttpResponse r;
    r.headers.emplace_back("Content-Type", "application/json");
    r.on_stream = [](std::shared_ptr<ResponseStream> s) {
      s->Write("{\"a\":1}\n{\"b\"");
      s->Write(":2}\n");
      s->Write("{\"c\":3}\r\n{\"tail\":4}");
      s->Close();
    };
    return r;
  });
  auto client = MakeClient();
  std::vector<std::string> lines;
  int head_status = 0;
  StatusOr<ClientResponse> r = client->Stream(
      {.url = Url("/watch")},
      {.on_headers =
           [&](const ClientResponse& head) {
             head_status = head.status;
             return true;
           },
       .on_data =
           [&](std::string_view line) {
             lines.emplace_back(line);
             return true;
           }});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(head_status, 200);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"a":1})", R"({"b":2})", R"({"c":3})",
                                             R"({"tail":4})"}));
}

TEST_F(HttpClientTest, StreamErrorBodyAndEarlyStop) {
  StartServer([](const HttpRequest& req) {
    if (req.path == "/gone") return HttpResponse::Json(410, R"({"reason":"Expired"})");
    HttpResponse r;
    r.on_stream = [](std::shared_ptr<ResponseStream> s) {
      for (int i = 0; i < 100; ++i) s->Write("line" + std::to_string(i) + "\n");
      s->Close();
    };
    return r;
  });
  auto client = MakeClient();
  int calls = 0;
  StatusOr<ClientResponse> gone = client->Stream({.url = Url("/gone")}, {.on_data = [&](auto) {
                                                                           ++calls;
                                                                           return true;
                                                                         }});
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status, 410);
  EXPECT_EQ(gone->body, R"({"reason":"Expired"})");
  EXPECT_EQ(calls, 0);

  std::vector<std::string> got;
  StatusOr<ClientResponse> r = client->Stream({.url = Url("/many")},
                                              {.on_data = [&](std::string_view line) {
                                                got.emplace_back(line);
                                                return got.size() < 3;
                                              }});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(got, (std::vector<std::string>{"line0", "line1", "line2"}));
}

TEST_F(HttpClientTest, CancelStreamFromAnotherThread) {
  std::shared_ptr<ResponseStream> held;
  std::mutex mu;
  StartServer([&](const HttpRequest&) {
    HttpResponse r;
    r.on_stream = [&](std::shared_ptr<ResponseStream> s) {
      s->Write("first\n");
      std::lock_guard<std::mutex> lock(mu);
      held = s;  // kept open: the stream never ends on its own
    };
    return r;
  });
  auto client = MakeClient();
  auto cancel = std::make_shared<Cancellation>();
  std::atomic<bool> got_first{false};
  std::thread canceller([&] {
    for (int i = 0; i < 5000 && !got_first.load(); ++i) std::this_thread::sleep_for(1ms);
    cancel->Cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  StatusOr<ClientResponse> r = client->Stream({.url = Url("/hang")},
                                              {.on_data =
                                                   [&](std::string_view line) {
                                                     if (line == "first") got_first = true;
                                                     return true;
                                                   },
                                               .cancel = cancel});
  canceller.join();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(got_first.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 900ms);  // woken, not polled
  std::lock_guard<std::mutex> lock(mu);
  if (held) held->Close();
}

TEST_F(HttpClientTest, TransportErrors) {
  StartServer([](const HttpRequest&) {
    HttpResponse r;
    r.on_stream = [](std::shared_ptr<ResponseStream>) {};  // headers, then silence
    return r;
  });
  auto client = MakeClient();
  StatusOr<ClientResponse> slow = client->Stream({.url = Url("/slow"), .timeout = 150ms}, {});
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), StatusCode::kDeadlineExceeded) << slow.status().ToString();

  const RefusingPort closed;
  StatusOr<ClientResponse> refused = client->Do({.url = closed.base_url() + "/", .timeout = 10000ms});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable) << refused.status().ToString();

  StatusOr<ClientResponse> bad = client->Do({.url = "notascheme://x"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
}

TEST(HttpClientOptionsTest, RejectsInconsistentTls) {
  EXPECT_FALSE(HttpClient::Create({.tls = {.client_cert_data = "x"}}).ok());
  EXPECT_FALSE(
      HttpClient::Create({.tls = {.client_cert_file = "a", .client_cert_data = "b",
                                  .client_key_file = "k"}})
          .ok());
  EXPECT_TRUE(HttpClient::Create({.tls = {.insecure_skip_verify = true}}).ok());
}

TEST(UrlEncodeTest, Encodes) {
  EXPECT_EQ(UrlEncode("app=web,tier in (a,b)"), "app%3Dweb%2Ctier%20in%20%28a%2Cb%29");
  EXPECT_EQ(UrlEncode("a-b_c.d~e"), "a-b_c.d~e");
}

}  // namespace
}  // namespace trimtab::http
