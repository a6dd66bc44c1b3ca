// REST: metric endpoints (notes flink-rest-and-sim.md §1.3, §1.4). Plain endpoints answer
// [{"id"}] without `get` and [{"id","value":"<string>"}] with it; aggregating endpoints answer
// numbers per requested aggregation and [] when any requested metric is missing everywhere.
// Metric handlers do not check that the job or TaskManager exists: an unknown one has an empty
// store, so the answer is [].
#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

namespace {

const JobMetricsSnapshot* JobStore(ClusterState& state, const std::string& job_id) {
  const MetricSnapshot& snap = state.Metrics();
  auto it = snap.jobs.find(job_id);
  return it == snap.jobs.end() ? nullptr : &it->second;
}

const std::vector<MetricMap>* VertexStores(ClusterState& state, const std::string& job_id, const std::string& vid) {
  const JobMetricsSnapshot* job = JobStore(state, job_id);
  if (!job) return nullptr;
  auto it = job->subtasks.find(vid);
  return it == job->subtasks.end() ? nullptr : &it->second;
}

bool ValidIds(RestContext& ctx, std::initializer_list<const char*> names, http::HttpResponse* error) {
  for (const char* name : names) {
    const std::string& v = ctx.params[name];
    if (!IsHexId(v)) {
      *error = BadParameters("Cannot resolve path parameter (" + std::string(name) + ") from value \"" + v + "\".");
      return false;
    }
  }
  return true;
}

// `agg`, `subtasks`-like filters; false with a 400 in *error when malformed.
bool Aggregations(RestContext& ctx, std::vector<Aggregation>* out, http::HttpResponse* error) {
  std::optional<std::vector<Aggregation>> aggs = ParseAggregations(ctx.Query("agg"));
  if (!aggs) {
    *error = BadParameters("Cannot resolve query parameter (agg) from value \"" + *ctx.Query("agg") +
                           "\": expected a comma-separated list of min, max, avg, sum, skew.");
    return false;
  }
  *out = std::move(*aggs);
  return true;
}

}  // namespace

void AddMetricRoutes(RestRouter& router) {
  router.Add("GET", "jobmanager/metrics", [](RestContext& ctx) {
    return JsonResponse(200, MetricValuesResponse({{"", &ctx.state.Metrics().jobmanager}}, ctx.Query("get")));
  });

  router.Add("GET", "taskmanagers/:taskmanagerid/metrics", [](RestContext& ctx) {
    const MetricSnapshot& snap = ctx.state.Metrics();
    auto it = snap.taskmanagers.find(ctx.params["taskmanagerid"]);
    if (it == snap.taskmanagers.end()) return JsonResponse(200, Json::array());
    return JsonResponse(200, MetricValuesResponse({{"", &it->second}}, ctx.Query("get")));
  });

  router.Add("GET", "taskmanagers/metrics", [](RestContext& ctx) {
    http::HttpResponse error;
    std::vector<Aggregation> aggs;
    if (!Aggregations(ctx, &aggs, &error)) return error;
    const MetricSnapshot& snap = ctx.state.Metrics();
    std::vector<const MetricMap*> stores;
    const std::string* filter = ctx.Query("taskmanagers");
    const std::vector<std::string> wanted = filter ? SplitCommaList(*filter) : std::vector<std::string>{};
    for (const auto& [id, m] : snap.taskmanagers) {
      if (!filter || std::find(wanted.begin(), wanted.end(), id) != wanted.end()) stores.push_back(&m);
    }
    return JsonResponse(200, AggregatedMetricsResponse(stores, ctx.Query("get"), aggs));
  });

  router.Add("GET", "jobs/metrics", [](RestContext& ctx) {
    http::HttpResponse error;
    std::vector<Aggregation> aggs;
    if (!Aggregations(ctx, &aggs, &error)) return error;
    const MetricSnapshot& snap = ctx.state.Metrics();
    const std::string* filter = ctx.Query("jobs");
    const std::vector<std::string> wanted = filter ? SplitCommaList(*filter) : std::vector<std::string>{};
    for (const std::string& id : wanted) {
      if (!IsHexId(id)) return BadParameters("Cannot resolve query parameter (jobs) from value \"" + *filter + "\".");
    }
    std::vector<const MetricMap*> stores;
    for (const auto& [id, job] : snap.jobs) {
      if (!filter || std::find(wanted.begin(), wanted.end(), id) != wanted.end()) stores.push_back(&job.job);
    }
    return JsonResponse(200, AggregatedMetricsResponse(stores, ctx.Query("get"), aggs));
  });

  router.Add("GET", "jobs/:jobid/metrics", [](RestContext& ctx) {
    http::HttpResponse error;
    if (!ValidIds(ctx, {"jobid"}, &error)) return error;
    const JobMetricsSnapshot* job = JobStore(ctx.state, ctx.params["jobid"]);
    if (!job) return JsonResponse(200, Json::array());
    return JsonResponse(200, MetricValuesResponse({{"", &job->job}}, ctx.Query("get")));
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/metrics", [](RestContext& ctx) {
    http::HttpResponse error;
    if (!ValidIds(ctx, {"jobid", "vertexid"}, &error)) return error;
    const std::vector<MetricMap>* stores = VertexStores(ctx.state, ctx.params["jobid"], ctx.params["vertexid"]);
    if (!stores) return JsonResponse(200, Json::array());
    std::vector<std::pair<std::string, const MetricMap*>> prefixed;
    for (size_t i = 0; i < stores->size(); ++i) prefixed.emplace_back(std::to_string(i) + ".", &(*stores)[i]);
    return JsonResponse(200, MetricValuesResponse(prefixed, ctx.Query("get")));
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex/metrics", [](RestContext& ctx) {
    http::HttpResponse error;
    if (!ValidIds(ctx, {"jobid", "vertexid"}, &error)) return error;
    const std::vector<MetricMap>* stores = VertexStores(ctx.state, ctx.params["jobid"], ctx.params["vertexid"]);
    int index = -1;
    try {
      index = std::stoi(ctx.params["subtaskindex"]);
    } catch (...) {
      return BadParameters("Cannot resolve path parameter (subtaskindex) from value \"" + ctx.params["subtaskindex"] + "\".");
    }
    if (!stores || index < 0 || index >= static_cast<int>(stores->size())) return JsonResponse(200, Json::array());
    return JsonResponse(200, MetricValuesResponse({{"", &(*stores)[static_cast<size_t>(index)]}}, ctx.Query("get")));
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasks/metrics", [](RestContext& ctx) {
    http::HttpResponse error;
    if (!ValidIds(ctx, {"jobid", "vertexid"}, &error)) return error;
    std::vector<Aggregation> aggs;
    if (!Aggregations(ctx, &aggs, &error)) return error;
    std::optional<std::vector<int>> subtasks;
    if (const std::string* s = ctx.Query("subtasks")) {
      subtasks = ParseIndexRanges(*s);
      if (!subtasks) return BadParameters("Cannot resolve query parameter (subtasks) from value \"" + *s + "\".");
    }
    const std::vector<MetricMap>* stores = VertexStores(ctx.state, ctx.params["jobid"], ctx.params["vertexid"]);
    std::vector<const MetricMap*> selected;
    for (size_t i = 0; stores && i < stores->size(); ++i) {
      if (!subtasks || std::find(subtasks->begin(), subtasks->end(), static_cast<int>(i)) != subtasks->end()) {
        selected.push_back(&(*stores)[i]);
      }
    }
    return JsonResponse(200, AggregatedMetricsResponse(selected, ctx.Query("get"), aggs));
  });
}

}  // namespace trimtab::sim::flink::rest
