// External metrics from a Prometheus, the way prometheus-adapter's external rules do it: a rule
// maps an external metric name to a Prometheus series, and trimtab builds the PromQL from the
// rule, the request's namespace and its label selector. Callers never send PromQL; every label
// value is escaped into a string literal (and into a regular expression for `in` / `notin`), and
// a selector may only name the labels the rule exposes.
//
// Rules file (`trimtab local --prometheus-url URL --external-metrics-rules FILE`):
//
//   rules:
//   - name: kafka_consumergroup_lag        # the external metric (a path segment)
//     series: kafka_consumergroup_lag      # the Prometheus metric name
//     labels: [topic, partition, consumergroup]   # selectable, and returned as metricLabels
//     namespaceLabel: namespace            # optional: matches the request's namespace
//     matchers: {job: kafka-exporter}      # optional: fixed equality matchers
//     aggregation: sum                     # optional: sum|max|min|avg by (labels)
//
// For GET .../namespaces/team-a/kafka_consumergroup_lag?labelSelector=topic in (a,b),partition!=3
// the query is
//   sum by (topic,partition,consumergroup) (kafka_consumergroup_lag{namespace="team-a",
//       job="kafka-exporter",partition!="3",topic=~"^(?:a|b)$"})
//
// Selector mapping: k=v -> k="v"; k!=v -> k!="v"; k in (a,b) -> k=~"^(?:a|b)$";
// k notin (a,b) -> k!~"^(?:a|b)$"; k -> k!=""; !k -> k=""; > and < are refused.
//
// Thread-safety: pure functions and values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/label_selector.h"
#include "common/status.h"

namespace trimtab::cluster::metrics {

struct PrometheusRule {
  std::string name;
  std::string series;
  std::vector<std::string> labels;
  std::string namespace_label;
  std::map<std::string, std::string> matchers;
  std::string aggregation;  // "" = no aggregation
};

// Decodes the rules document; errors name the field ("rules[1].series: ...").
StatusOr<std::vector<PrometheusRule>> ParsePrometheusRules(const Json& doc,
                                                           const std::string& path);

// A PromQL string literal: "..." with \ " and control characters escaped.
std::string PromQlString(const std::string& value);
// A regular expression matching exactly one of `values` (RE2 metacharacters escaped).
std::string PromQlAlternatives(const std::vector<std::string>& values);

// The instant query for `rule` in `ns` with `selector`. InvalidArgument when the selector names
// a label the rule does not expose or uses an operator PromQL cannot express.
StatusOr<std::string> BuildPromQl(const PrometheusRule& rule, const std::string& ns,
                                  const LabelSelector& selector);

}  // namespace trimtab::cluster::metrics
