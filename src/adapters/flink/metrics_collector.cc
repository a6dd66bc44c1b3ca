#include "adapters/flink/metrics_collector.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>

#include "adapters/flink/rest_client.h"
#include "adapters/flink/rest_transport.h"
#include "common/regex.h"

namespace trimtab::adapters {
namespace {

using core::VertexId;

constexpr const char kBusy[] = "busyTimeMsPerSecond";
constexpr const char kBackPressured[] = "backPressuredTimeMsPerSecond";
constexpr const char kRecordsInPerSecond[] = "numRecordsInPerSecond";
constexpr const char kSourcePrefix[] = "Source__";
constexpr const char kSlotsTotal[] = "taskSlotsTotal";
constexpr const char kSlotsAvailable[] = "taskSlotsAvailable";
constexpr const char kHeapMax[] = "Status.JVM.Memory.Heap.Max";
constexpr const char kHeapUsed[] = "Status.JVM.Memory.Heap.Used";
constexpr const char kManagedUsed[] = "Status.Flink.Memory.Managed.Used";
constexpr const char kMetaspaceUsed[] = "Status.JVM.Memory.Metaspace.Used";
constexpr const char kGcTime[] = "Status.JVM.GarbageCollector.All.TimeMsPerSecond";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "Source__<operator>.<metric>" (FLIP-27 source operator metrics).
std::vector<std::string> SourceOperatorMetrics(const std::vector<std::string>& names,
                                               std::string_view metric) {
  std::vector<std::string> out;
  const std::string suffix = "." + std::string(metric);
  for (const std::string& n : names) {
    if (n.rfind(kSourcePrefix, 0) == 0 && EndsWith(n, suffix)) out.push_back(n);
  }
  return out;
}

std::string StripSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

std::string GetQuery(const std::vector<std::string>& names) {
  std::string q;
  for (const std::string& n : names) {
    if (!q.empty()) q += ',';
    q += http::UrlEncode(n);
  }
  return "?get=" + q;
}

// The first line of each string in {"errors": [...]} (Flink puts stack traces there).
std::string StringOr(const Json& object, const char* field, std::string fallback = "") {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// Reads an integer field of `object`; `where` names the object in errors.
StatusOr<int> IntField(const Json& object, const char* field, const std::string& where) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_number_integer()) {
    return FailedPreconditionError(where + "." + field + ": expected an integer");
  }
  return static_cast<int>(it->get<int64_t>());
}

// Vertices in topological order (Kahn), ties in the order of the job details.
std::vector<core::VertexInfo> TopologicalOrder(std::vector<core::VertexInfo> vertices,
                                               const std::vector<core::Edge>& edges) {
  std::map<VertexId, int> indegree;
  for (const auto& v : vertices) indegree[v.id] = 0;
  for (const auto& e : edges) ++indegree[e.to];
  std::vector<core::VertexInfo> out;
  std::vector<bool> done(vertices.size(), false);
  while (out.size() < vertices.size()) {
    bool progressed = false;
    for (size_t i = 0; i < vertices.size(); ++i) {
      if (done[i] || indegree[vertices[i].id] > 0) continue;
      done[i] = true;
      progressed = true;
      for (const auto& e : edges) {
        if (e.from == vertices[i].id) --indegree[e.to];
      }
      out.push_back(vertices[i]);
      break;
    }
    if (!progressed) {  // a cycle cannot happen in a job graph; keep the rest as listed
      for (size_t i = 0; i < vertices.size(); ++i) {
        if (!done[i]) out.push_back(vertices[i]);
      }
      break;
    }
  }
  return out;
}

StatusOr<FlinkJobDetails> ParseJobDetails(const Json& j, const std::string& where) {
  if (!j.is_object()) return FailedPreconditionError(where + ": expected an object");
  FlinkJobDetails d;
  d.job_id = StringOr(j, "jid");
  d.name = StringOr(j, "name");
  d.state = StringOr(j, "state");
  if (d.state.empty()) return FailedPreconditionError(where + ".state: expected a string");
  if (auto now = j.find("now"); now != j.end() && now->is_number_integer() && now->get<int64_t>() > 0) {
    d.server_now = FromUnixMillis(now->get<int64_t>());
  }
  if (auto ts = j.find("timestamps"); ts != j.end() && ts->is_object()) {
    if (auto r = ts->find("RUNNING");
        r != ts->end() && r->is_number_integer() && r->get<int64_t>() > 0) {
      d.running_since = FromUnixMillis(r->get<int64_t>());
    }
  }
  auto vertices = j.find("vertices");
  if (vertices == j.end() || !vertices->is_array()) {
    return FailedPreconditionError(where + ".vertices: expected an array");
  }
  std::vector<core::VertexInfo> infos;
  for (size_t i = 0; i < vertices->size(); ++i) {
    const Json& v = (*vertices)[i];
    const std::string vw = where + ".vertices[" + std::to_string(i) + "]";
    if (!v.is_object()) return FailedPreconditionError(vw + ": expected an object");
    core::VertexInfo info;
    info.id = StringOr(v, "id");
    if (info.id.empty()) return FailedPreconditionError(vw + ".id: expected a string");
    info.name = StringOr(v, "name");
    TRIMTAB_ASSIGN_OR_RETURN(info.parallelism, IntField(v, "parallelism", vw));
    TRIMTAB_ASSIGN_OR_RETURN(info.max_parallelism, IntField(v, "maxParallelism", vw));
    info.finished = StringOr(v, "status") == "FINISHED";
    if (std::string ssg = StringOr(v, "slotSharingGroupId"); !ssg.empty()) {
      d.slot_sharing_group[info.id] = ssg;
      info.slot_sharing_group = ssg;
    }
    FlinkVertexIo io;
    if (auto m = v.find("metrics"); m != v.end() && m->is_object()) {
      if (auto x = m->find("read-records"); x != m->end()) io.read_records = ParseMetricValue(*x);
      if (auto x = m->find("write-records"); x != m->end()) io.write_records = ParseMetricValue(*x);
      if (auto x = m->find("accumulated-busy-time"); x != m->end()) {
        io.accumulated_busy_time = ParseMetricValue(*x);
      }
    }
    d.io[info.id] = io;
    infos.push_back(std::move(info));
  }
  std::vector<core::Edge> edges;
  if (auto plan = j.find("plan"); plan != j.end() && plan->is_object()) {
    if (auto nodes = plan->find("nodes"); nodes != plan->end() && nodes->is_array()) {
      for (const Json& node : *nodes) {
        const std::string to = StringOr(node, "id");
        auto inputs = node.find("inputs");
        if (to.empty() || !d.io.count(to) || inputs == node.end() || !inputs->is_array()) continue;
        for (const Json& in : *inputs) {
          const std::string from = StringOr(in, "id");
          if (from.empty() || !d.io.count(from)) continue;
          edges.push_back({from, to, StringOr(in, "ship_strategy", "REBALANCE")});
        }
      }
    }
  }
  d.topology.vertices = TopologicalOrder(std::move(infos), edges);
  d.topology.edges = std::move(edges);
  return d;
}

// A MetricSource over one job's REST API (custom metrics of source kFlinkRest).
class RestMetricSource final : public core::flink::MetricSource {
 public:
  RestMetricSource(const FlinkMetricsCollector* collector, FlinkJobRef job, Millis timeout)
      : collector_(collector), job_(std::move(job)), timeout_(timeout) {
    job_.rest_url = StripSlash(job_.rest_url);
  }

  StatusOr<double> FetchTaskManagerMetric(const core::flink::MetricFetchJob&,
                                          const core::MetricRequirement& m) override {
    TRIMTAB_RETURN_IF_ERROR(CheckSource(m));
    const std::string agg(core::MetricAggregationName(m.aggregation));
    TRIMTAB_ASSIGN_OR_RETURN(
        auto values, collector_->FetchAggregated(job_.rest_url, "/taskmanagers/metrics", {m.query},
                                                 agg, timeout_));
    return Pick(values, m, "no TaskManager reports " + m.query);
  }

  StatusOr<std::map<VertexId, double>> FetchVertexMetric(
      const core::flink::MetricFetchJob& job, const core::MetricRequirement& m) override {
    TRIMTAB_RETURN_IF_ERROR(CheckSource(m));
    const std::string agg(core::MetricAggregationName(m.aggregation));
    std::map<VertexId, double> out;
    for (const VertexId& v : job.vertices) {
      TRIMTAB_ASSIGN_OR_RETURN(
          auto values,
          collector_->FetchAggregated(
              job_.rest_url, "/jobs/" + job_.job_id + "/vertices/" + v + "/subtasks/metrics",
              {m.query}, agg, timeout_));
      StatusOr<double> value = Pick(values, m, "");
      if (value.ok()) out[v] = *value;  // a vertex without the metric has no value
    }
    return out;
  }

  StatusOr<double> FetchJobMetric(const core::flink::MetricFetchJob&,
                                  const core::MetricRequirement& m) override {
    TRIMTAB_RETURN_IF_ERROR(CheckSource(m));
    const std::string path = "/jobs/" + job_.job_id + "/metrics" + GetQuery({m.query});
    TRIMTAB_ASSIGN_OR_RETURN(Json body, collector_->GetJson(job_.rest_url, path, timeout_));
    if (body.is_array()) {
      for (const Json& item : body) {
        if (StringOr(item, "id") != m.query) continue;
        if (auto it = item.find("value"); it != item.end()) {
          if (std::optional<double> v = ParseMetricValue(*it)) return *v;
        }
      }
    }
    return NotFoundError("job " + job_.job_id + " does not report " + m.query);
  }

 private:
  static Status CheckSource(const core::MetricRequirement& m) {
    if (m.source == core::MetricSourceKind::kFlinkRest) return Status::Ok();
    return FailedPreconditionError("metric " + m.name + ": source " +
                                   std::string(core::MetricSourceKindName(m.source)) +
                                   " is not served by the Flink REST collector");
  }

  static StatusOr<double> Pick(const std::map<std::string, FlinkMetricsCollector::Aggregate>& v,
                               const core::MetricRequirement& m, const std::string& absent) {
    auto it = v.find(m.query);
    std::optional<double> value;
    if (it != v.end()) {
      switch (m.aggregation) {
        case core::MetricAggregation::kAvg:
          value = it->second.avg;
          break;
        case core::MetricAggregation::kMax:
          value = it->second.max;
          break;
        case core::MetricAggregation::kMin:
          value = it->second.min;
          break;
        case core::MetricAggregation::kSum:
          value = it->second.sum;
          break;
      }
    }
    if (!value) return NotFoundError(absent.empty() ? m.query + " not reported" : absent);
    return *value;
  }

  const FlinkMetricsCollector* collector_;
  FlinkJobRef job_;
  Millis timeout_;
};

}  // namespace

std::optional<double> ParseMetricValue(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return d;
}

StatusOr<std::unique_ptr<FlinkMetricsCollector>> FlinkMetricsCollector::Create(
    FlinkMetricsCollectorOptions options) {
  if (options.http == nullptr)
    return InvalidArgumentError("flink metrics collector: no HTTP client");
  return std::unique_ptr<FlinkMetricsCollector>(new FlinkMetricsCollector(std::move(options)));
}

std::string FlinkMetricsCollector::CacheKey(const FlinkJobRef& job) {
  return StripSlash(job.rest_url) + "|" + job.job_id;
}

void FlinkMetricsCollector::Forget(const FlinkJobRef& job) {
  std::lock_guard<std::mutex> lock(mu_);
  names_.erase(CacheKey(job));
}

StatusOr<Json> FlinkMetricsCollector::GetJson(const std::string& base_url,
                                              const std::string& path_and_query,
                                              Millis timeout) const {
  return flink::FlinkRestTransport(options_.http, base_url)
      .Call({.method = "GET", .path = path_and_query, .timeout = timeout});
}

StatusOr<std::vector<std::string>> FlinkMetricsCollector::MetricNames(const std::string& base_url,
                                                                      const std::string& path,
                                                                      Millis timeout) const {
  TRIMTAB_ASSIGN_OR_RETURN(Json body, GetJson(base_url, path, timeout));
  if (!body.is_array()) {
    return FailedPreconditionError("REST GET " + path + ": expected a JSON array of {\"id\"}");
  }
  std::vector<std::string> names;
  for (const Json& item : body) {
    std::string id = StringOr(item, "id");
    if (!id.empty()) names.push_back(std::move(id));
  }
  return names;
}

StatusOr<std::map<std::string, FlinkMetricsCollector::Aggregate>>
FlinkMetricsCollector::FetchAggregated(const std::string& base_url, const std::string& path,
                                       const std::vector<std::string>& names,
                                       const std::string& agg, Millis timeout) const {
  std::map<std::string, Aggregate> out;
  if (names.empty()) return out;
  const std::string query = GetQuery(names) + (agg.empty() ? "" : "&agg=" + agg);
  TRIMTAB_ASSIGN_OR_RETURN(Json body, GetJson(base_url, path + query, timeout));
  if (!body.is_array()) {
    return FailedPreconditionError("REST GET " + path +
                                   ": expected a JSON array of aggregated "
                                   "metrics");
  }
  for (const Json& item : body) {
    std::string id = StringOr(item, "id");
    if (id.empty()) continue;
    Aggregate a;
    if (auto it = item.find("min"); it != item.end()) a.min = ParseMetricValue(*it);
    if (auto it = item.find("max"); it != item.end()) a.max = ParseMetricValue(*it);
    if (auto it = item.find("avg"); it != item.end()) a.avg = ParseMetricValue(*it);
    if (auto it = item.find("sum"); it != item.end()) a.sum = ParseMetricValue(*it);
    out[id] = a;
  }
  // An empty answer means at least one id has no value anywhere: ask one by one so the others
  // are not lost.
  if (out.empty() && names.size() > 1) {
    for (const std::string& name : names) {
      TRIMTAB_ASSIGN_OR_RETURN(auto one, FetchAggregated(base_url, path, {name}, agg, timeout));
      out.insert(one.begin(), one.end());
    }
  }
  return out;
}

StatusOr<FlinkJobDetails> FlinkMetricsCollector::FetchJobDetails(const FlinkJobRef& job,
                                                                 Millis timeout) const {
  if (job.job_id.empty()) return InvalidArgumentError("flink metrics collector: empty job id");
  const std::string path = "/jobs/" + job.job_id;
  TRIMTAB_ASSIGN_OR_RETURN(Json body, GetJson(StripSlash(job.rest_url), path, timeout));
  return ParseJobDetails(body, "REST GET " + path + ": response");
}

StatusOr<FlinkCollection> FlinkMetricsCollector::Collect(const FlinkJobRef& job, TimePoint now,
                                                         Millis timeout) {
  const std::string base = StripSlash(job.rest_url);
  FlinkCollection c;
  TRIMTAB_ASSIGN_OR_RETURN(c.job, FetchJobDetails(job, timeout));
  c.sample.time = now;
  if (c.job.state != "RUNNING") return c;

  NameCache cache;
  {
    std::lock_guard<std::mutex> lock(mu_);
    NameCache& cached = names_[CacheKey(job)];
    if (cached.running_since != c.job.running_since) {
      cached = NameCache{};  // a new run: metric names are discovered again
      cached.running_since = c.job.running_since;
    }
    cache = cached;
  }

  std::vector<std::string> missing;
  for (core::VertexInfo& info : c.job.topology.vertices) {
    if (info.finished) continue;
    const size_t missing_before = missing.size();
    const bool source = c.job.topology.IsSource(info.id);
    const std::string where =
        "vertex " + info.id + (info.name.empty() ? "" : " (" + info.name + ")");
    const std::string metrics_path =
        "/jobs/" + job.job_id + "/vertices/" + info.id + "/subtasks/metrics";
    std::vector<std::string> names;
    auto cached = cache.vertex_names.find(info.id);
    if (!source && cached != cache.vertex_names.end()) {
      names = cached->second;
    } else {
      TRIMTAB_ASSIGN_OR_RETURN(names, MetricNames(base, metrics_path, timeout));
      if (!source) cache.vertex_names[info.id] = names;
    }
    auto has = [&names](const std::string& n) {
      return std::find(names.begin(), names.end(), n) != names.end();
    };

    std::vector<std::string> request;
    if (has(kBusy)) {
      request.push_back(kBusy);
    } else {
      missing.push_back(where + ": " + kBusy);
    }
    std::vector<std::string> in_rate, out_rate, in_count, out_count, pending;
    if (source) {
      if (int partitions = CountSourcePartitions(names); partitions > 0) {
        info.num_partitions = partitions;
      }
      if (has(kBackPressured)) {
        request.push_back(kBackPressured);
      } else {
        missing.push_back(where + ": " + kBackPressured);
      }
      in_rate = SourceOperatorMetrics(names, "numRecordsInPerSecond");
      out_rate = SourceOperatorMetrics(names, "numRecordsOutPerSecond");
      in_count = SourceOperatorMetrics(names, "numRecordsIn");
      out_count = SourceOperatorMetrics(names, "numRecordsOut");
      for (const std::string& n : names) {
        if (EndsWith(n, ".pendingRecords")) pending.push_back(n);
      }
      if (in_rate.empty() && out_rate.empty()) {
        missing.push_back(where + ": Source__*.numRecordsInPerSecond");
      }
      for (const auto* group : {&in_rate, &out_rate, &in_count, &out_count, &pending}) {
        request.insert(request.end(), group->begin(), group->end());
      }
    } else if (has(kRecordsInPerSecond)) {
      request.push_back(kRecordsInPerSecond);
    }
    TRIMTAB_ASSIGN_OR_RETURN(auto values,
                             FetchAggregated(base, metrics_path, request, "", timeout));
    auto sum_of = [&values](const std::vector<std::string>& ids) -> std::optional<double> {
      std::optional<double> total;
      for (const std::string& id : ids) {
        auto it = values.find(id);
        if (it != values.end() && it->second.sum) total = total.value_or(0) + *it->second.sum;
      }
      return total;
    };

    core::flink::RawVertexMetrics r;
    if (auto busy = values.find(kBusy); busy != values.end() && busy->second.max) {
      r.busy_time_min = busy->second.min;
      r.busy_time_max = busy->second.max;
      r.busy_time_avg = busy->second.avg;
      if (std::isnan(*busy->second.max)) c.nan_busy_time_vertices.insert(info.id);
    } else if (has(kBusy)) {
      missing.push_back(where + ": " + kBusy + " (listed, but no value)");
    }
    const FlinkVertexIo& io = c.job.io[info.id];
    if (io.accumulated_busy_time && std::isnan(*io.accumulated_busy_time)) {
      c.nan_busy_time_vertices.insert(info.id);
    }
    r.accumulated_busy_time = io.accumulated_busy_time;
    r.num_records_in = io.read_records;
    r.num_records_out = io.write_records;
    if (source) {
      if (auto bp = values.find(kBackPressured); bp != values.end() && bp->second.avg) {
        r.back_pressured_time_ms_per_second = bp->second.avg;
      } else if (has(kBackPressured)) {
        missing.push_back(where + ": " + std::string(kBackPressured) + " (listed, but no value)");
      }
      r.num_records_in_per_second = sum_of(in_rate);
      r.num_records_out_per_second = sum_of(out_rate);
      if (!r.num_records_in || *r.num_records_in == 0) {
        std::optional<double> in = sum_of(in_count);
        if (!in || *in == 0) {
          std::optional<double> out = sum_of(out_count);
          if (out && *out != 0) in = out;
        }
        if (in) r.num_records_in = in;
      }
      r.pending_records = sum_of(pending);
      if (!r.pending_records) {
        c.notes.push_back(where +
                          ": no pendingRecords metric (Kafka registers it on the first "
                          "fetched record): lag taken as 0");
      }
    } else if (auto rate = values.find(kRecordsInPerSecond);
               rate != values.end() && rate->second.sum) {
      r.num_records_in_per_second = rate->second.sum;
    }
    c.sample.vertices[info.id] = std::move(r);
    // A cached name list that no longer matches the values is discovered again next time.
    if (missing.size() > missing_before) cache.vertex_names.erase(info.id);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    NameCache& cached = names_[CacheKey(job)];
    if (cached.running_since == cache.running_since) cached.vertex_names = cache.vertex_names;
  }
  if (!missing.empty()) {
    c.missing_metrics = std::move(missing);
    return c;
  }

  // JobManager slots (values are strings on this non-aggregated endpoint).
  TRIMTAB_ASSIGN_OR_RETURN(
      Json jm,
      GetJson(base, "/jobmanager/metrics" + GetQuery({kSlotsTotal, kSlotsAvailable}), timeout));
  if (jm.is_array()) {
    for (const Json& item : jm) {
      auto it = item.find("value");
      if (it == item.end()) continue;
      const std::string id = StringOr(item, "id");
      if (id == kSlotsTotal) c.sample.job.task_slots_total = ParseMetricValue(*it);
      if (id == kSlotsAvailable) c.sample.job.task_slots_available = ParseMetricValue(*it);
    }
  }
  if (!c.sample.job.task_slots_total || !c.sample.job.task_slots_available) {
    c.notes.push_back("the JobManager does not report taskSlotsTotal / taskSlotsAvailable");
  }

  // TaskManager memory and GC: the GC metric only when discovery lists it (probed once per run).
  if (!cache.task_manager_names) {
    TRIMTAB_ASSIGN_OR_RETURN(std::vector<std::string> tm,
                             MetricNames(base, "/taskmanagers/metrics", timeout));
    cache.task_manager_names = tm;
    std::lock_guard<std::mutex> lock(mu_);
    NameCache& cached = names_[CacheKey(job)];
    if (cached.running_since == cache.running_since) cached.task_manager_names = tm;
  }
  std::vector<std::string> tm_request;
  for (const char* name : {kHeapMax, kHeapUsed, kManagedUsed, kMetaspaceUsed, kGcTime}) {
    if (std::find(cache.task_manager_names->begin(), cache.task_manager_names->end(), name) !=
        cache.task_manager_names->end()) {
      tm_request.push_back(name);
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(
      auto tm, FetchAggregated(base, "/taskmanagers/metrics", tm_request, "min,max,avg", timeout));
  auto max_of = [&tm](const char* name) -> std::optional<double> {
    auto it = tm.find(name);
    return it == tm.end() ? std::nullopt : it->second.max;
  };
  c.sample.job.heap_max = max_of(kHeapMax);
  c.sample.job.heap_used = max_of(kHeapUsed);
  c.sample.job.managed_memory_used = max_of(kManagedUsed);
  c.sample.job.metaspace_used = max_of(kMetaspaceUsed);
  c.sample.job.gc_time_ms_per_second = max_of(kGcTime);

  // The latest completed checkpoint's duration (restart.time-from-checkpoint). Optional: the
  // cycle goes on without it.
  StatusOr<Json> checkpoints = GetJson(base, "/jobs/" + job.job_id + "/checkpoints", timeout);
  if (!checkpoints.ok()) {
    c.notes.push_back("no checkpoint statistics: " + checkpoints.status().message());
  } else if (const std::optional<flink::CheckpointRecord> latest =
                 flink::ParseCheckpointStats(*checkpoints).latest_completed;
             latest && latest->end_to_end_duration) {
    c.sample.job.last_checkpoint_duration_ms = static_cast<double>(*latest->end_to_end_duration);
  }
  return c;
}

std::unique_ptr<core::flink::MetricSource> FlinkMetricsCollector::MetricSourceFor(
    const FlinkJobRef& job, Millis timeout) const {
  return std::make_unique<RestMetricSource>(this, job, timeout);
}

Status FlinkCollection::MissingMetricsStatus() const {
  if (missing_metrics.empty()) return Status::Ok();
  std::string text;
  for (const std::string& m : missing_metrics) text += (text.empty() ? "" : "; ") + m;
  return FailedPreconditionError("missing metrics: " + text);
}

}  // namespace trimtab::adapters
