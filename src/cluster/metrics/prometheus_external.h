// External metrics answered by a Prometheus through the rules of prometheus_rules.h: each rule
// becomes an ExternalSeriesFn that runs the query trimtab builds (GET /api/v1/query) and turns
// every series of the vector result into one ExternalValue (labels: the rule's labels the series
// carries; value and timestamp: the sample). An empty result is no value (an empty list).
//
// Usage (`trimtab local --prometheus-url URL --external-metrics-rules FILE`):
//   TRIMTAB_RETURN_IF_ERROR(AddPrometheusRules(url, rules, provider.get()));
//
// Thread-safety: the series functions are safe for concurrent use.
#pragma once

#include <string>
#include <vector>

#include "cluster/metrics/local_metrics.h"
#include "cluster/metrics/prometheus_rules.h"

namespace trimtab::cluster::metrics {

// Registers one external metric per rule on `provider`. Errors: a bad URL.
Status AddPrometheusRules(const std::string& prometheus_url,
                          const std::vector<PrometheusRule>& rules,
                          LocalMetricsProvider* provider);

}  // namespace trimtab::cluster::metrics
