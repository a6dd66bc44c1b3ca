#include "cluster/metrics/prometheus_external.h"

#include <cmath>
#include <memory>

#include <nlohmann/json.hpp>

#include "adapters/http/client.h"
#include "adapters/metrics/metric_sources.h"

namespace trimtab::cluster::metrics {

Status AddPrometheusRules(const std::string& prometheus_url,
                          const std::vector<PrometheusRule>& rules,
                          LocalMetricsProvider* provider) {
  if (!prometheus_url.starts_with("http://") && !prometheus_url.starts_with("https://")) {
    return InvalidArgumentError("--prometheus-url: \"" + prometheus_url +
                                "\" is not an http(s) URL");
  }
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<http::HttpClient> created,
                           http::HttpClient::Create({.user_agent = "trimtab-external-metrics"}));
  std::shared_ptr<http::HttpClient> client(std::move(created));
  std::string base = prometheus_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  for (const PrometheusRule& rule : rules) {
    provider->AddExternal(
        rule.name, [client, base, rule](const std::string& ns, const LabelSelector& selector,
                                        TimePoint now) -> StatusOr<std::vector<ExternalValue>> {
          TRIMTAB_ASSIGN_OR_RETURN(std::string query, BuildPromQl(rule, ns, selector));
          const std::string url = base + "/api/v1/query?query=" + http::UrlEncode(query);
          TRIMTAB_ASSIGN_OR_RETURN(
              Json data, adapters::PrometheusApiGet(*client, url, std::chrono::milliseconds(10000),
                                                             "external metric " + rule.name));
          std::vector<ExternalValue> out;
          const Json result = data.value("result", Json::array());
          if (!result.is_array()) return out;
          for (const Json& series : result) {
            const Json& pair = series.value("value", Json());
            std::optional<double> v = adapters::PrometheusSampleValue(pair);
            if (!v || !std::isfinite(*v)) continue;
            ExternalValue value;
            value.value = Quantity::FromMilli(static_cast<int64_t>(std::llround(*v * 1000.0)));
            value.timestamp = now;
            if (pair.is_array() && !pair.empty() && pair[0].is_number()) {
              value.timestamp = FromUnixMillis(static_cast<int64_t>(pair[0].get<double>() * 1000));
            }
            const Json& labels = series.value("metric", Json::object());
            for (const std::string& l : rule.labels) {
              if (labels.is_object() && labels.contains(l) && labels[l].is_string()) {
                value.labels[l] = labels[l].get<std::string>();
              }
            }
            out.push_back(std::move(value));
          }
          return out;
        });
  }
  return Status::Ok();
}

}  // namespace trimtab::cluster::metrics
