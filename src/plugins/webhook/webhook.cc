#include "plugins/webhook/webhook.h"

#include <nlohmann/json.hpp>

#include "core/chain/chain_json.h"

namespace trimtab::plugins {

StatusOr<std::unique_ptr<WebhookPlugin>> WebhookPlugin::Create(core::PluginIdentity identity,
                                                               WebhookOptions options) {
  http::HttpClientOptions client_options;
  client_options.tls.ca_file = options.ca_file;
  client_options.bearer_token = options.bearer_token;
  client_options.default_timeout = options.timeout;
  client_options.connect_timeout = options.timeout;
  StatusOr<std::unique_ptr<http::HttpClient>> client = http::HttpClient::Create(client_options);
  if (!client.ok()) return client.status().WithContext("webhook " + options.url);
  return std::unique_ptr<WebhookPlugin>(
      new WebhookPlugin(std::move(identity), std::move(options), std::move(client).value()));
}

StatusOr<core::ExecutorResult> WebhookPlugin::Call(const core::ExecutorContext& context,
                                                   const core::ScalingSummaries& summaries,
                                                   Json& plugin_state) {
  const std::string where = "webhook " + options_.url;
  http::ClientRequest request;
  request.method = "POST";
  request.url = options_.url;
  request.timeout = options_.timeout;
  request.headers = options_.headers;
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("Accept", "application/json");
  request.body = core::MakePluginRequest(name(), context, summaries, plugin_state)
                     .dump(-1, ' ', false, Json::error_handler_t::replace);
  StatusOr<http::ClientResponse> response = client_->Do(request);
  if (!response.ok()) return response.status().WithContext(where);
  if (response->status < 200 || response->status > 299) {
    std::string body = response->body.substr(0, 200);
    return UnavailableError(where + ": HTTP " + std::to_string(response->status) +
                            (body.empty() ? "" : ": " + body));
  }
  StatusOr<Json> document = ParseJson(response->body, where + " response");
  if (!document.ok()) return document.status();
  StatusOr<core::PluginResponse> decoded = core::PluginResponseFromJson(*document, "response");
  if (!decoded.ok()) return decoded.status().WithContext(where);
  if (decoded->plugin_state_json) plugin_state = Json::parse(*decoded->plugin_state_json);
  return std::move(decoded->result);
}

StatusOr<core::ExecutorResult> WebhookPlugin::Execute(const core::ExecutorContext& context,
                                                      const core::ScalingSummaries& summaries,
                                                      core::CycleState& cycle,
                                                      Json& plugin_state) {
  StatusOr<core::ExecutorResult> result = Call(context, summaries, plugin_state);
  if (!result.ok() && options_.ignore_failures) {
    return core::ExecutorResult::Approve("failure ignored (failurePolicy Ignore): " +
                                         result.status().ToString());
  }
  return result;
}

}  // namespace trimtab::plugins
