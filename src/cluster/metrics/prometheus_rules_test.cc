// PromQL built from external metric rules: escaping of string literals and regular expressions,
// every selector operator, labels a rule does not expose, and rule file errors naming the field.
#include "cluster/metrics/prometheus_rules.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace trimtab::cluster::metrics {
namespace {

PrometheusRule LagRule() {
  PrometheusRule r;
  r.name = "kafka_consumergroup_lag";
  r.series = "kafka_consumergroup_lag";
  r.labels = {"topic", "partition", "consumergroup"};
  r.namespace_label = "namespace";
  r.matchers = {{"job", "kafka-exporter"}};
  r.aggregation = "sum";
  return r;
}

LabelSelector Sel(const std::string& text) {
  auto s = LabelSelector::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : LabelSelector();
}

TEST(PrometheusRulesTest, BuildsTheQueryFromTheSelector) {
  auto q = BuildPromQl(LagRule(), "team-a", Sel("topic in (a.b,c),partition!=3,consumergroup"));
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(*q,
            "sum by (topic,partition,consumergroup) (kafka_consumergroup_lag{namespace=\"team-a\","
            "job=\"kafka-exporter\",consumergroup!=\"\",partition!=\"3\","
            "topic=~\"^(?:a\\\\.b|c)$\"})");
  PrometheusRule plain = LagRule();
  plain.aggregation.clear();
  plain.namespace_label.clear();
  plain.matchers.clear();
  EXPECT_EQ(*BuildPromQl(plain, "x", Sel("topic=t,!partition,consumergroup notin (g1)")),
            "kafka_consumergroup_lag{consumergroup!~\"^(?:g1)$\",partition=\"\",topic=\"t\"}");
  EXPECT_EQ(*BuildPromQl(plain, "x", LabelSelector()), "kafka_consumergroup_lag{}");
}

TEST(PrometheusRulesTest, EscapesEveryValue) {
  EXPECT_EQ(PromQlString("a\"} or vector(1) #\\\n"), "\"a\\\"} or vector(1) #\\\\\\n\"");
  EXPECT_EQ(PromQlString(std::string("\x01", 1)), "\"\\x01\"");
  EXPECT_EQ(PromQlAlternatives({"a.b", "(x)|y*", "^$"}), "^(?:a\\.b|\\(x\\)\\|y\\*|\\^\\$)$");
  // A namespace is written as a string literal too.
  PrometheusRule r = LagRule();
  EXPECT_EQ(*BuildPromQl(r, "n\"s", LabelSelector()),
            "sum by (topic,partition,consumergroup) (kafka_consumergroup_lag{namespace=\"n\\\"s\","
            "job=\"kafka-exporter\"})");
}

TEST(PrometheusRulesTest, RefusesLabelsTheRuleDoesNotExpose) {
  auto q = BuildPromQl(LagRule(), "ns", Sel("job=other"));
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().message(),
            "label \"job\" is not a label of external metric kafka_consumergroup_lag");
  auto gt = BuildPromQl(LagRule(), "ns", Sel("partition>3"));
  ASSERT_FALSE(gt.ok());
  EXPECT_NE(gt.status().message().find("has no PromQL equivalent"), std::string::npos);
}

TEST(PrometheusRulesTest, ParsesRulesAndNamesBadFields) {
  auto rules = ParsePrometheusRules(Json::parse(R"({"rules": [
      {"name": "lag", "series": "kafka_consumergroup_lag", "labels": ["topic"],
       "namespaceLabel": "namespace", "matchers": {"job": "k"}, "aggregation": "max"}]})"),
                                    "rules.yaml");
  ASSERT_TRUE(rules.ok()) << rules.status().ToString();
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].aggregation, "max");
  EXPECT_EQ((*rules)[0].matchers.at("job"), "k");
  struct Case {
    const char* doc;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"rules": [{"name": "x", "series": "up{a=\"b\"}"}]})",
            "rules.yaml.rules[0].series: \"up{a=\"b\"}\" is not a Prometheus metric name"},
           {R"({"rules": [{"name": "x", "series": "up", "labels": ["a-b"]}]})",
            "rules.yaml.rules[0].labels[0]: \"a-b\" is not a Prometheus label name"},
           {R"({"rules": [{"name": "a/b", "series": "up"}]})",
            "rules.yaml.rules[0].name: \"a/b\" is not a valid metric name (a path segment)"},
           {R"({"rules": [{"name": "x", "series": "up", "query": "up"}]})",
            "rules.yaml.rules[0].query: unknown field"},
           {R"({"rules": [{"name": "x", "series": "up"}, {"name": "x", "series": "up"}]})",
            "rules.yaml.rules[1].name: \"x\" is defined twice"},
       }) {
    auto r = ParsePrometheusRules(Json::parse(c.doc), "rules.yaml");
    ASSERT_FALSE(r.ok()) << c.doc;
    EXPECT_EQ(r.status().message(), c.error);
  }
}

}  // namespace
}  // namespace trimtab::cluster::metrics
