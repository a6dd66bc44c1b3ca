#include "adapters/http/server.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "adapters/http/test_client.h"

namespace trimtab::http {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<HttpServer> StartServer(HttpHandler handler, HttpServerOptions options = {}) {
  auto server = HttpServer::Create(std::move(options), std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return std::move(server).value();
}

TEST(HttpServerTest, ParsesRequestAndReturnsResponse) {
  HttpRequest seen;
  std::mutex mu;
  auto server = StartServer([&](const HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    seen = req;
    HttpResponse res = HttpResponse::Json(201, R"({"ok":true})");
    res.headers.emplace_back("X-Test", "yes");
    return res;
  });
  ASSERT_GT(server->port(), 0);
  TestHttpClient client(server->base_url());
  TestHttpResponse r = client.Request("POST", "/a%20b/c?x=1&y=hello+world&y=2&flag&z=%3D",
                                      R"({"k":1})", {"X-Custom: v1"});
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.body, R"({"ok":true})");
  EXPECT_EQ(r.headers["x-test"], "yes");
  EXPECT_EQ(r.headers["Content-Type"], "application/json");
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/a b/c");
  EXPECT_EQ(seen.target, "/a%20b/c?x=1&y=hello+world&y=2&flag&z=%3D");
  ASSERT_EQ(seen.query.size(), 5u);
  EXPECT_EQ(*seen.Query("x"), "1");
  EXPECT_EQ(*seen.Query("y"), "hello world");  // first of the repeated values
  EXPECT_EQ(seen.query[2].second, "2");
  EXPECT_EQ(*seen.Query("flag"), "");
  EXPECT_EQ(*seen.Query("z"), "=");
  EXPECT_EQ(seen.Query("nope"), nullptr);
  EXPECT_EQ(seen.Header("x-custom"), "v1");
  EXPECT_EQ(seen.Header("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(seen.body, R"({"k":1})");
  EXPECT_NE(seen.remote_address.find("127.0.0.1:"), std::string::npos);
}

TEST(HttpServerTest, KeepsConnectionsAlive) {
  auto server = StartServer([](const HttpRequest& req) { return HttpResponse::Text(200, req.path); });
  TestHttpClient client(server->base_url());
  for (int i = 0; i < 5; ++i) {
    TestHttpResponse r = client.Get("/n" + std::to_string(i));
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "/n" + std::to_string(i));
  }
  EXPECT_EQ(client.connects(), 1);
}

TEST(HttpServerTest, RejectsOversizedBodies) {
  auto server = StartServer([](const HttpRequest&) { return HttpResponse::Text(200, "ok"); },
                            {.max_body_bytes = 100});
  TestHttpClient client(server->base_url());
  EXPECT_EQ(client.Request("PUT", "/", std::string(1000, 'x')).status, 413);
  TestHttpClient client2(server->base_url());
  EXPECT_EQ(client2.Request("PUT", "/", std::string(50, 'x')).status, 200);
}

TEST(HttpServerTest, HandlerExceptionBecomes500) {
  auto server = StartServer([](const HttpRequest&) -> HttpResponse {
    throw std::runtime_error("boom");
  });
  TestHttpClient client(server->base_url());
  EXPECT_EQ(client.Get("/").status, 500);
  EXPECT_EQ(client.Get("/").status, 500);  // the server is still alive
}

TEST(HttpServerTest, StreamsChunksFromAnotherThread) {
  std::thread producer;
  auto server = StartServer([&](const HttpRequest&) {
    HttpResponse res;
    res.headers.emplace_back("Content-Type", "application/json");
    res.on_stream = [&](std::shared_ptr<ResponseStream> stream) {
      EXPECT_TRUE(stream->Write("first\n"));
      producer = std::thread([stream] {
        for (int i = 0; i < 3; ++i) EXPECT_TRUE(stream->Write("line" + std::to_string(i) + "\n"));
        stream->Close();
        EXPECT_FALSE(stream->Write("after close\n"));
      });
    };
    return res;
  });
  TestHttpStream stream(server->base_url() + "/watch");
  EXPECT_EQ(stream.status(), 200);
  EXPECT_EQ(stream.header("Transfer-Encoding"), "chunked");
  EXPECT_EQ(stream.NextLine(milliseconds(5000)), "first");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(stream.NextLine(milliseconds(5000)), "line" + std::to_string(i));
  }
  EXPECT_TRUE(stream.WaitForEnd(milliseconds(5000)));
  EXPECT_EQ(stream.NextLine(milliseconds(10)), std::nullopt);
  producer.join();
}

TEST(HttpServerTest, DetectsClientGoingAway) {
  std::shared_ptr<ResponseStream> held;
  std::atomic<bool> closed{false};
  std::mutex mu;
  auto server = StartServer([&](const HttpRequest&) {
    HttpResponse res;
    res.on_stream = [&](std::shared_ptr<ResponseStream> stream) {
      stream->OnClose([&] { closed = true; });
      std::lock_guard<std::mutex> lock(mu);
      held = stream;
      stream->Write("hello\n");
    };
    return res;
  });
  {
    TestHttpStream stream(server->base_url() + "/");
    EXPECT_EQ(stream.NextLine(milliseconds(5000)), "hello");
  }  // the client aborts and disconnects
  for (int i = 0; i < 500 && !closed; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_TRUE(closed);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_NE(held, nullptr);
  EXPECT_FALSE(held->IsOpen());
  EXPECT_FALSE(held->Write("x\n"));
}

TEST(HttpServerTest, StopClosesOpenStreamsAndIsIdempotent) {
  std::shared_ptr<ResponseStream> held;
  std::mutex mu;
  auto server = StartServer([&](const HttpRequest&) {
    HttpResponse res;
    res.on_stream = [&](std::shared_ptr<ResponseStream> stream) {
      std::lock_guard<std::mutex> lock(mu);
      held = stream;
      stream->Write("open\n");
    };
    return res;
  });
  TestHttpStream stream(server->base_url() + "/");
  EXPECT_EQ(stream.NextLine(milliseconds(5000)), "open");
  server->Stop();
  EXPECT_TRUE(stream.WaitForEnd(milliseconds(5000)));
  server->Stop();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_FALSE(held->Write("late\n"));
}

TEST(HttpServerTest, ServesConcurrentClients) {
  std::atomic<int> calls{0};
  auto server = StartServer([&](const HttpRequest& req) {
    ++calls;
    return HttpResponse::Text(200, req.path);
  }, {.threads = 2});
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      TestHttpClient client(server->base_url());
      for (int i = 0; i < 25; ++i) {
        std::string path = "/t" + std::to_string(t) + "/" + std::to_string(i);
        TestHttpResponse r = client.Get(path);
        if (r.status == 200 && r.body == path) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 200);
  EXPECT_EQ(calls, 200);
}

TEST(HttpServerTest, ReportsBindFailure) {
  auto first = StartServer([](const HttpRequest&) { return HttpResponse::Text(200, ""); });
  auto second = HttpServer::Create({.port = first->port()},
                                   [](const HttpRequest&) { return HttpResponse::Text(200, ""); });
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  auto bad = HttpServer::Create({.address = "not-an-ip"},
                                [](const HttpRequest&) { return HttpResponse::Text(200, ""); });
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(PercentTest, DecodesAndEncodes) {
  EXPECT_EQ(PercentDecode("a%3Db+c%zz%4", true), "a=b c%zz%4");
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
  EXPECT_EQ(PercentEncode("app=web,x y/z~"), "app%3Dweb%2Cx%20y%2Fz~");
  EXPECT_EQ(StatusReason(404), "Not Found");
}

}  // namespace
}  // namespace trimtab::http
