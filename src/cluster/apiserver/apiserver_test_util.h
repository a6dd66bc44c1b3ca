// Test fixture for the local API server: starts an ApiServer on 127.0.0.1:0 (in-memory store or
// a temporary data directory) and talks to it over real HTTP.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/test_client.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/apiserver/storage/gc.h"
#include "cluster/apiserver/storage/namespace_lifecycle.h"
#include "cluster/apiserver/storage/watch.h"

namespace trimtab::cluster::testing {

inline Json Parse(const std::string& text) {
  Json j = Json::parse(text, nullptr, false);
  return j;
}

// Polls `done` every 10 ms for at most `timeout`.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

class TempDataDir {
 public:
  TempDataDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("trimtab-apiserver-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
  }
  ~TempDataDir() { std::filesystem::remove_all(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

class ApiServerTest : public ::testing::Test {
 public:
  static Json ConfigMap(const std::string& name, Json labels = Json::object(),
                        Json data = Json{{"k", "v"}}) {
    return Json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata", {{"name", name}, {"labels", labels}}},
                {"data", data}};
  }

 protected:
  void SetUp() override { StartServer(""); }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
  }

  void StartServer(const std::string& data_dir, ApiServerOptions options = {}) {
    options.data_dir = data_dir;
    options.port = 0;
    if (options.gc_period == std::chrono::milliseconds(std::chrono::seconds(10))) {
      options.gc_period = std::chrono::milliseconds(200);
    }
    options.lifecycle_period = std::chrono::milliseconds(100);
    auto server = ApiServer::Create(std::move(options));
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    client_ = std::make_unique<http::TestHttpClient>(server_->url());
  }

  struct Reply {
    int status;
    Json body;
    std::string raw;
    std::map<std::string, std::string, http::CaseInsensitiveLess> headers;
  };

  Reply Call(const std::string& method, const std::string& target, const Json& body = nullptr,
             const std::string& content_type = "application/json",
             const std::vector<std::string>& extra_headers = {}) {
    std::vector<std::string> headers = extra_headers;
    std::string text;
    if (!body.is_null()) {
      text = body.is_string() ? body.get<std::string>() : body.dump();
      headers.push_back("Content-Type: " + content_type);
    }
    http::TestHttpResponse r = client_->Request(method, target, text, headers);
    EXPECT_TRUE(r.error.empty()) << r.error;
    return Reply{r.status, Parse(r.body), r.body, r.headers};
  }
  Reply Get(const std::string& target) { return Call("GET", target); }
  Reply Post(const std::string& target, const Json& body) { return Call("POST", target, body); }
  Reply Put(const std::string& target, const Json& body) { return Call("PUT", target, body); }
  Reply Delete(const std::string& target, const Json& body = nullptr) {
    return Call("DELETE", target, body);
  }
  Reply Patch(const std::string& target, const Json& body, const std::string& type) {
    return Call("PATCH", target, body, type);
  }


  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<http::TestHttpClient> client_;
};

}  // namespace trimtab::cluster::testing
