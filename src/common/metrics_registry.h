// MetricsRegistry: counters, gauges and histograms with labels, rendered in the Prometheus text
// exposition format 0.0.4 for a /metrics endpoint. The one metrics mechanism of trimtab: the
// operator (reconciles, work queues, Kubernetes client, autoscaler) and the local API server
// (requests, watches, storage) register their families here.
//
// A family has a name, a help text, a type and a fixed list of label names; each distinct list of
// label values is one series. Families are created on first use and returned by reference on
// every later call with the same name (same type and labels; a mismatch is a programming error
// and asserts). Series are created on first Inc/Set/Observe and stay until removed: whoever adds
// a series for an object (a job, a vertex) removes it when the object goes away (Remove,
// RemoveMatching), so what is exported stays bounded by what exists.
//
// Rendering (Render): families sorted by name, each with `# HELP` and `# TYPE`, series sorted by
// label values; label values escaped (\ " and newline), help texts escaped (\ and newline);
// histograms as cumulative `<name>_bucket{...,le="..."}` lines ending in le="+Inf", then
// `<name>_sum` and `<name>_count`. Values print as integers when integral, otherwise in the
// shortest form that reads back exactly; NaN and infinities as Prometheus spells them.
//
// Collectors (AddCollector) run at the start of every Render, for values that are cheaper to read
// when scraped than to track (a queue's depth, leadership).
//
// Usage:
//   MetricsRegistry registry;
//   MetricFamily& passes = registry.Counter("reconcile_total", "Reconcile passes.", {"kind"});
//   passes.Inc({"FlinkDeployment"});
//   MetricFamily& took = registry.Histogram("reconcile_seconds", "Pass time.", {"kind"},
//                                           DefaultLatencyBuckets());
//   took.Observe({"FlinkDeployment"}, 0.012);
//   std::string text = registry.Render();   // serve with kPrometheusTextContentType
//
// Thread-safety: every method of both classes is safe for concurrent use. A family reference
// stays valid as long as the registry.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trimtab {

inline constexpr char kPrometheusTextContentType[] = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kHistogram };

// Label values of one series, in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class MetricFamily {
 public:
  // Counters: adds `by` (negative amounts are ignored: a counter never goes down).
  void Inc(const LabelValues& values, double by = 1);
  // Gauges: sets the value; Add moves it by `by`.
  void Set(const LabelValues& values, double value);
  void Add(const LabelValues& values, double by);
  // Histograms: counts `value` in every bucket whose upper bound is >= value.
  void Observe(const LabelValues& values, double value);

  // Drops one series (no-op when absent).
  void Remove(const LabelValues& values);
  // Drops every series whose labels include all of `match` (label name -> value); a name the
  // family does not have matches nothing. Returns how many went.
  size_t RemoveMatching(const std::map<std::string, std::string>& match);
  // Drops the series that match `match` and whose values are not in `keep` (e.g. the vertices a
  // job no longer has).
  size_t RemoveMatchingExcept(const std::map<std::string, std::string>& match,
                              const std::vector<LabelValues>& keep);

  // Counter or gauge value; a histogram's sum. nullopt when the series does not exist.
  std::optional<double> Value(const LabelValues& values) const;
  // A histogram's observation count (0 when the series does not exist).
  uint64_t Count(const LabelValues& values) const;
  size_t SeriesCount() const;

  const std::string& name() const { return name_; }
  MetricType type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends this family in the text format.
  void Render(std::string* out) const;

 private:
  friend class MetricsRegistry;
  struct Series {
    double value = 0;                   // counter, gauge; histogram sum
    uint64_t count = 0;                 // histogram
    std::vector<uint64_t> bucket_hits;  // histogram, per bucket (not cumulative)
  };
  MetricFamily(std::string name, std::string help, MetricType type,
               std::vector<std::string> label_names, std::vector<double> buckets);
  Series& SeriesLocked(const LabelValues& values);
  bool MatchesLocked(const LabelValues& values,
                     const std::vector<std::pair<size_t, std::string>>& match) const;
  // `match` as (label index, value); false when a name is not one of the family's labels.
  bool Resolve(const std::map<std::string, std::string>& match,
               std::vector<std::pair<size_t, std::string>>* resolved) const;

  const std::string name_;
  const std::string help_;
  const MetricType type_;
  const std::vector<std::string> label_names_;
  const std::vector<double> buckets_;  // sorted upper bounds, +Inf implied

  mutable std::mutex mu_;
  std::map<LabelValues, Series> series_;  // guarded by mu_
};

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // REQUIRES: `name` and every label name are valid Prometheus names, "le" is not a label name,
  // and a family of that name, if any, has the same type, labels (and buckets).
  MetricFamily& Counter(const std::string& name, const std::string& help,
                        std::vector<std::string> label_names = {});
  MetricFamily& Gauge(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names = {});
  // `buckets`: upper bounds (sorted and deduplicated here; +Inf is always added).
  MetricFamily& Histogram(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names, std::vector<double> buckets);

  // The family, or nullptr.
  MetricFamily* Find(std::string_view name) const;
  // RemoveMatching on every family. Returns how many series went.
  size_t RemoveMatching(const std::map<std::string, std::string>& match);

  // `collect` runs at the start of every Render until RemoveCollector(id) returns; it must not
  // call Render or (Add|Remove)Collector.
  int AddCollector(std::function<void()> collect);
  void RemoveCollector(int id);

  // Runs the collectors, then renders every family (text format 0.0.4).
  std::string Render() const;

 private:
  MetricFamily& Family(const std::string& name, const std::string& help, MetricType type,
                       std::vector<std::string> label_names, std::vector<double> buckets);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<MetricFamily>, std::less<>> families_;  // guarded by mu_

  mutable std::mutex collectors_mu_;  // held while collectors run
  std::map<int, std::function<void()>> collectors_;  // guarded by collectors_mu_
  int next_collector_ = 1;                           // guarded by collectors_mu_
};

// Prometheus client libraries' default latency buckets: 5 ms .. 10 s.
std::vector<double> DefaultLatencyBuckets();
// `count` bounds: start, start*factor, ... REQUIRES: start > 0, factor > 1, count >= 1.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// Text-format pieces, exposed for tests and for endpoints that write a few lines by hand.
std::string EscapeLabelValue(std::string_view value);
std::string FormatMetricValue(double value);
bool IsValidMetricName(std::string_view name);
bool IsValidLabelName(std::string_view name);

}  // namespace trimtab
