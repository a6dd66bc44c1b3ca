// Registration of the webhook plugin kind: JSON config -> WebhookOptions -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/webhook/webhook.h"

namespace trimtab::plugins {

StatusOr<WebhookOptions> ParseWebhookOptions(const Json& config, const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  WebhookOptions o;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("url", &o.url));
  int64_t timeout_ms = o.timeout.count();
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("timeoutMs", &timeout_ms));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("bearerToken", &o.bearer_token));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("caFile", &o.ca_file));
  std::string policy = "Fail";
  TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("failurePolicy", {"Fail", "Ignore"}, &policy));
  if (const Json* headers = r.Get("headers")) {
    if (!headers->is_object()) {
      return InvalidArgumentError(r.FieldPath("headers") + ": must be an object");
    }
    for (const auto& [name, value] : headers->items()) {
      if (!value.is_string()) {
        return InvalidArgumentError(JoinPath(r.FieldPath("headers"), name) + ": must be a string");
      }
      o.headers.emplace_back(name, value.get<std::string>());
    }
  }
  if (const Json* metrics = r.Get("metrics")) {
    const std::string mpath = r.FieldPath("metrics");
    if (!metrics->is_array()) return InvalidArgumentError(mpath + ": must be a list");
    for (size_t i = 0; i < metrics->size(); ++i) {
      JsonReader m((*metrics)[i], JoinPath(mpath, i));
      core::MetricRequirement requirement;
      TRIMTAB_RETURN_IF_ERROR(core::ReadMetricRequirement(m, &requirement));
      TRIMTAB_RETURN_IF_ERROR(m.NoUnknownFields());
      if (Status s = requirement.Validate(); !s.ok()) {
        return InvalidArgumentError(JoinPath(mpath, i) + ": " + s.message());
      }
      o.metrics.push_back(std::move(requirement));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (o.url.rfind("http://", 0) != 0 && o.url.rfind("https://", 0) != 0) {
    return InvalidArgumentError(r.FieldPath("url") + ": must start with http:// or https://");
  }
  if (timeout_ms <= 0) return InvalidArgumentError(r.FieldPath("timeoutMs") + ": must be > 0");
  o.timeout = std::chrono::milliseconds(timeout_ms);
  o.ignore_failures = policy == "Ignore";
  return o;
}

Status RegisterWebhookPlugin(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kWebhookType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(WebhookOptions options, ParseWebhookOptions(config, path));
        TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<WebhookPlugin> plugin,
                                 WebhookPlugin::Create(identity, std::move(options)));
        return std::unique_ptr<core::ExecutorPlugin>(std::move(plugin));
      });
}

}  // namespace trimtab::plugins
