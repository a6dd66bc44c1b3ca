#include "plugins/webhook/webhook.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

#include <nlohmann/json.hpp>

#include "adapters/http/server.h"
#include "adapters/http/test_client.h"
#include "core/chain/chain_test_util.h"
#include "core/chain/executor_chain.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::Summary;
using ::testing::HasSubstr;

// A policy endpoint on 127.0.0.1:<ephemeral> whose behaviour depends on the path.
class WebhookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = http::HttpServer::Create(
        {.address = "127.0.0.1", .port = 0, .threads = 2, .stop_grace = std::chrono::milliseconds(100)},
        [this](const http::HttpRequest& req) { return Handle(req); });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  void TearDown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& stream : held_) stream->Close();
    }
    server_->Stop();
  }

  http::HttpResponse Handle(const http::HttpRequest& req) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_body_ = req.body;
      last_content_type_ = req.Header("Content-Type");
      last_team_ = req.Header("X-Team");
    }
    if (req.path == "/approve") {
      return http::HttpResponse::Json(200, R"({"verdict": "approve", "reason": "fine"})");
    }
    if (req.path == "/cap") {
      Json body = Json::parse(req.body);
      Json summaries = body["summaries"];
      for (auto& [id, s] : summaries.items()) s["newParallelism"] = 3;
      int calls = body["pluginState"].is_object() ? body["pluginState"]["calls"].get<int>() : 0;
      Json out = {{"verdict", "modify"}, {"summaries", summaries}, {"reason", "policy cap 3"},
                  {"pluginState", {{"calls", calls + 1}}}};
      return http::HttpResponse::Json(200, out.dump());
    }
    if (req.path == "/veto") {
      return http::HttpResponse::Json(200, R"({"verdict": "veto", "reason": "change freeze"})");
    }
    if (req.path == "/error") return http::HttpResponse::Text(503, "overloaded");
    if (req.path == "/garbage") return http::HttpResponse::Json(200, "<html>oops");
    if (req.path == "/shape") return http::HttpResponse::Json(200, R"({"verdict": "maybe"})");
    if (req.path == "/hang") {
      http::HttpResponse r;
      r.on_stream = [this](std::shared_ptr<http::ResponseStream> stream) {
        std::lock_guard<std::mutex> lock(mu_);
        held_.push_back(std::move(stream));  // never answered: the client times out
      };
      return r;
    }
    return http::HttpResponse::Text(404, "no such policy");
  }

  std::unique_ptr<core::ExecutorPlugin> Plugin(const std::string& path,
                                               Json extra = Json::object()) {
    core::ExecutorPluginRegistry registry;
    EXPECT_TRUE(RegisterWebhookPlugin(registry).ok());
    Json config = extra;
    config["url"] = server_->base_url() + path;
    if (!config.contains("timeoutMs")) config["timeoutMs"] = 2000;
    auto plugin = registry.Create("webhook", {"policy", 5}, config, "plugins[0].config");
    EXPECT_TRUE(plugin.ok()) << plugin.status().ToString();
    return plugin.ok() ? std::move(plugin).value() : nullptr;
  }

  StatusOr<core::ExecutorResult> Call(core::ExecutorPlugin& plugin, Json& state) {
    core::CycleState cycle;
    core::ExecutorContext context{.job_key = "team/orders", .namespace_name = "team"};
    context.topology = core::testing::LinearTopology({2});
    return plugin.Execute(context, {{"v0", Summary(2, 6)}}, cycle, state);
  }

  std::unique_ptr<http::HttpServer> server_;
  std::mutex mu_;
  std::vector<std::shared_ptr<http::ResponseStream>> held_;
  std::string last_body_;
  std::string last_content_type_;
  std::string last_team_;
};

TEST_F(WebhookTest, ApproveSendsTheFullRequest) {
  auto plugin = Plugin("/approve", Json{{"headers", {{"X-Team", "data"}}}});
  Json state;
  auto r = Call(*plugin, state);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason, "fine");
  std::lock_guard<std::mutex> lock(mu_);
  Json sent = Json::parse(last_body_);
  EXPECT_EQ(sent["plugin"], "policy");
  EXPECT_EQ(sent["context"]["jobKey"], "team/orders");
  EXPECT_EQ(sent["context"]["topology"]["vertices"][0]["id"], "v0");
  EXPECT_EQ(sent["summaries"]["v0"]["newParallelism"], 6);
  EXPECT_TRUE(sent["pluginState"].is_null());
  EXPECT_EQ(last_content_type_, "application/json");
  EXPECT_EQ(last_team_, "data");
}

TEST_F(WebhookTest, ModifyAndPluginStateRoundTrip) {
  auto plugin = Plugin("/cap");
  Json state;
  auto first = Call(*plugin, state);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->verdict, ChainVerdict::kModify);
  EXPECT_EQ(first->summaries.at("v0").new_parallelism, 3);
  auto second = Call(*plugin, state);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(state, (Json{{"calls", 2}}));
}

TEST_F(WebhookTest, VetoInTheChainBecomesAVetoEvent) {
  std::vector<std::unique_ptr<core::ExecutorPlugin>> plugins;
  plugins.push_back(Plugin("/veto"));
  auto chain = core::ExecutorChain::Create(std::move(plugins));
  ASSERT_TRUE(chain.ok());
  Json states = Json::object();
  core::CycleState cycle;
  core::ChainOutcome outcome = chain->Run(core::ExecutorContext{.job_key = "team/orders"},
                                          {{"v0", Summary(2, 6)}}, cycle, &states);
  EXPECT_TRUE(outcome.vetoed);
  EXPECT_EQ(outcome.veto_reason, "change freeze");
  auto event = core::VetoEvent("team/orders", outcome, {{"v0", Summary(2, 6)}});
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->message, "Scaling vetoed by plugin policy: change freeze");
  EXPECT_EQ(event->message_key, "vetoed by policy: v0 2->6");
}

struct Failure {
  const char* name;
  const char* path;
  int timeout_ms;
  StatusCode code;
  const char* message;
};

class WebhookFailureTest : public WebhookTest, public ::testing::WithParamInterface<Failure> {};

TEST_P(WebhookFailureTest, IsAVetoWithTheReasonRecorded) {
  const Failure& f = GetParam();
  auto plugin = Plugin(f.path, Json{{"timeoutMs", f.timeout_ms}});
  Json state;
  auto r = Call(*plugin, state);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), f.code);
  EXPECT_THAT(r.status().message(), HasSubstr("webhook " + server_->base_url() + f.path));
  EXPECT_THAT(r.status().message(), HasSubstr(f.message));

  std::vector<std::unique_ptr<core::ExecutorPlugin>> plugins;
  plugins.push_back(std::move(plugin));
  auto chain = core::ExecutorChain::Create(std::move(plugins));
  Json states = Json::object();
  core::CycleState cycle;
  core::ChainOutcome outcome = chain->Run(core::ExecutorContext{.job_key = "team/orders"},
                                          {{"v0", Summary(2, 6)}}, cycle, &states);
  EXPECT_TRUE(outcome.vetoed);
  EXPECT_TRUE(outcome.steps.at(0).failed);
  EXPECT_THAT(outcome.veto_reason, HasSubstr(f.message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WebhookFailureTest,
    ::testing::Values(
        Failure{"Non2xx", "/error", 2000, StatusCode::kUnavailable, "HTTP 503: overloaded"},
        Failure{"NotFound", "/missing", 2000, StatusCode::kUnavailable, "HTTP 404"},
        Failure{"Garbage", "/garbage", 2000, StatusCode::kInvalidArgument, "invalid JSON"},
        Failure{"WrongShape", "/shape", 2000, StatusCode::kInvalidArgument,
                "response.verdict: unknown verdict \"maybe\""},
        Failure{"Timeout", "/hang", 300, StatusCode::kDeadlineExceeded, ""}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(WebhookTest, ConnectionRefusedIsUnavailable) {
  const http::RefusingPort closed;
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterWebhookPlugin(registry).ok());
  auto plugin = registry.Create("webhook", {"policy", 5},
                                Json{{"url", closed.base_url() + "/approve"}, {"timeoutMs", 1000}},
                                "plugins[0].config");
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  Json state;
  auto r = Call(**plugin, state);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
}

TEST_F(WebhookTest, IgnorePolicyApprovesAndRecordsTheFailure) {
  auto plugin = Plugin("/error", Json{{"failurePolicy", "Ignore"}});
  Json state;
  auto r = Call(*plugin, state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_THAT(r->reason, HasSubstr("failure ignored (failurePolicy Ignore): UNAVAILABLE"));
  EXPECT_THAT(r->reason, HasSubstr("HTTP 503"));
}

}  // namespace
}  // namespace trimtab::plugins
