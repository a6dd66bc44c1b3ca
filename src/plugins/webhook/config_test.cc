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
