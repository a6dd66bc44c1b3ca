// webhook: an executor plugin that lives behind an HTTP endpoint, like a Kubernetes admission
// webhook. Every call POSTs the same JSON request a shared-library plugin receives
// (core/chain/chain_json.h, docs/plugins.md) and expects the same JSON response.
//
// Failures (connection error, timeout, non-2xx status, a body that is not JSON or not a valid
// response) follow failurePolicy:
//   "Fail"   (default) the call is an error, which the chain records as a veto with the reason
//   "Ignore" the decision is approved unchanged, the failure is the approval's reason
//
// Config: {"url": "https://policy.example/scale",  // required, http or https
//          "timeoutMs": 2000,                       // whole request, > 0
//          "headers": {"X-Team": "data"},           // optional extra request headers
//          "bearerToken": "...",                    // optional Authorization: Bearer
//          "caFile": "/etc/ssl/policy-ca.pem",      // optional trust anchor for https
//          "failurePolicy": "Fail",
//          "metrics": [{"name": "KAFKA_LAG", "scope": "job", "source": "prometheus",
//                       "query": "sum(kafka_consumergroup_lag{consumergroup=\"{{name}}\"})"}]}
//
// `metrics` declares the extra metrics the endpoint reads (RequiredMetrics, docs/plugins.md): the
// collector fetches them every cycle and the request carries their values.
//
// Thread-safety: Execute may run concurrently (the HTTP client is thread-safe).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adapters/http/client.h"
#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

inline constexpr const char kWebhookType[] = "webhook";

struct WebhookOptions {
  std::string url;                             // POST target
  std::chrono::milliseconds timeout{2000};     // whole request
  std::vector<std::pair<std::string, std::string>> headers;  // extra request headers
  std::string bearer_token;                    // optional
  std::string ca_file;                         // optional
  bool ignore_failures = false;                // failurePolicy Ignore
  std::vector<core::MetricRequirement> metrics;  // declared for the collector
};

class WebhookPlugin final : public core::ExecutorPlugin {
 public:
  // Fails when the HTTP client cannot be set up (unusable CA file).
  static StatusOr<std::unique_ptr<WebhookPlugin>> Create(core::PluginIdentity identity,
                                                         WebhookOptions options);

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;
  std::vector<core::MetricRequirement> RequiredMetrics() const override { return options_.metrics; }

 private:
  WebhookPlugin(core::PluginIdentity identity, WebhookOptions options,
                std::unique_ptr<http::HttpClient> client)
      : ExecutorPlugin(std::move(identity)),
        options_(std::move(options)),
        client_(std::move(client)) {}

  // The response, or an error naming the URL.
  StatusOr<core::ExecutorResult> Call(const core::ExecutorContext& context,
                                      const core::ScalingSummaries& summaries, Json& plugin_state);

  WebhookOptions options_;
  std::unique_ptr<http::HttpClient> client_;
};

StatusOr<WebhookOptions> ParseWebhookOptions(const Json& config, const std::string& path);
Status RegisterWebhookPlugin(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
