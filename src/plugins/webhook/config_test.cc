#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/webhook/webhook.h"

namespace trimtab::plugins {
namespace {

using ::testing::HasSubstr;

TEST(WebhookConfigTest, Parses) {
  auto o = ParseWebhookOptions(
      Json::parse(R"({"url": "https://policy.example/scale", "timeoutMs": 750,
                      "headers": {"X-Team": "data"}, "bearerToken": "t",
                      "failurePolicy": "Ignore"})"),
      "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->url, "https://policy.example/scale");
  EXPECT_EQ(o->timeout.count(), 750);
  ASSERT_EQ(o->headers.size(), 1u);
  EXPECT_EQ(o->headers[0].second, "data");
  EXPECT_EQ(o->bearer_token, "t");
  EXPECT_TRUE(o->ignore_failures);
  auto d = ParseWebhookOptions(Json{{"url", "http://x"}}, "c");
  EXPECT_EQ(d->timeout.count(), 2000);
  EXPECT_FALSE(d->ignore_failures);
}

TEST(WebhookConfigTest, DeclaresTheMetricsTheEndpointReads) {
  auto o = ParseWebhookOptions(Json::parse(R"json({"url": "http://x", "metrics": [
      {"name": "KAFKA_LAG", "scope": "job", "source": "prometheus",
       "query": "sum(kafka_consumergroup_lag{consumergroup=\"{{name}}\"})"},
      {"name": "RECORD_LATENCY_MS", "scope": "vertex", "query": "latency.p99",
       "aggregation": "max"}]})json"),
                               "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_EQ(o->metrics.size(), 2u);
  EXPECT_EQ(o->metrics[0].name, "KAFKA_LAG");
  EXPECT_EQ(o->metrics[0].scope, core::MetricScope::kJob);
  EXPECT_EQ(o->metrics[0].source, core::MetricSourceKind::kPrometheus);
  EXPECT_EQ(o->metrics[1].source, core::MetricSourceKind::kFlinkRest);
  EXPECT_EQ(o->metrics[1].aggregation, core::MetricAggregation::kMax);
  auto plugin = WebhookPlugin::Create({"policy", 10}, *o);
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  EXPECT_EQ((*plugin)->RequiredMetrics(), o->metrics);
  // Errors name the entry and the field.
  EXPECT_THAT(ParseWebhookOptions(Json::parse(R"({"url": "http://x", "metrics": [
                  {"name": "A", "scope": "job", "query": "q"}, {"name": "B", "query": "q"}]})"),
                                  "c")
                  .status().message(),
              HasSubstr("c.metrics[1].scope: required field is missing"));
  EXPECT_THAT(ParseWebhookOptions(Json::parse(R"({"url": "http://x", "metrics": [
                  {"name": "A", "scope": "job", "source": "graphite", "query": "q"}]})"),
                                  "c")
                  .status().message(),
              HasSubstr("c.metrics[0].source"));
  EXPECT_THAT(ParseWebhookOptions(Json::parse(R"({"url": "http://x", "metrics": [
                  {"name": "lower", "scope": "job", "query": "q"}]})"),
                                  "c")
                  .status().message(),
              HasSubstr("c.metrics[0]: "));
  EXPECT_THAT(ParseWebhookOptions(Json::parse(R"({"url": "http://x", "metrics": {}})"), "c")
                  .status().message(),
              HasSubstr("c.metrics: must be a list"));
}

TEST(WebhookConfigTest, Rejects) {
  EXPECT_THAT(ParseWebhookOptions(Json::object(), "c").status().message(), HasSubstr("c.url"));
  EXPECT_THAT(ParseWebhookOptions(Json{{"url", "ftp://x"}}, "c").status().message(),
              HasSubstr("c.url: must start with http:// or https://"));
  EXPECT_THAT(ParseWebhookOptions(Json{{"url", "http://x"}, {"timeoutMs", 0}}, "c")
                  .status().message(),
              HasSubstr("c.timeoutMs: must be > 0"));
  EXPECT_THAT(ParseWebhookOptions(Json{{"url", "http://x"}, {"failurePolicy", "fail"}}, "c")
                  .status().message(),
              HasSubstr("c.failurePolicy"));
  EXPECT_THAT(ParseWebhookOptions(Json{{"url", "http://x"}, {"headers", {{"A", 1}}}}, "c")
                  .status().message(),
              HasSubstr("c.headers.A: must be a string"));
  EXPECT_THAT(ParseWebhookOptions(Json{{"url", "http://x"}, {"retries", 3}}, "c")
                  .status().message(),
              HasSubstr("c.retries"));
}

}  // namespace
}  // namespace trimtab::plugins
