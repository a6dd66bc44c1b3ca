// REST: job vertex endpoints (/jobs/:jobid/vertices/:vertexid, its subtasks, subtask times,
// TaskManagers, backpressure, watermarks, accumulators).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

namespace {

// The metric stores of the vertex's subtasks (empty while the tasks do not run).
std::vector<const MetricMap*> SubtaskStores(ClusterState& state, const FlinkJob& job, const JobVertexView& v) {
  std::vector<const MetricMap*> out;
  const MetricSnapshot& snap = state.Metrics();
  auto jm = snap.jobs.find(job.id());
  if (jm == snap.jobs.end()) return out;
  auto it = jm->second.subtasks.find(v.id);
  if (it == jm->second.subtasks.end()) return out;
  for (const MetricMap& m : it->second) out.push_back(&m);
  return out;
}

double Number(const MetricMap* m, const std::string& id) {
  if (!m) return 0;
  auto it = m->find(id);
  return it == m->end() ? 0 : std::strtod(it->second.c_str(), nullptr);
}

Json Stats(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  auto pct = [&](double p) {
    if (values.empty()) return 0.0;
    const double pos = p * static_cast<double>(values.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(values.size() - 1, lo + 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
  };
  double sum = 0;
  for (double v : values) sum += v;
  const auto i = [](double v) { return std::llround(v); };
  return Json{{"min", i(values.empty() ? 0 : values.front())},
              {"max", i(values.empty() ? 0 : values.back())},
              {"avg", i(values.empty() ? 0 : sum / static_cast<double>(values.size()))},
              {"sum", i(sum)},
              {"median", i(pct(0.5))},
              {"p25", i(pct(0.25))},
              {"p75", i(pct(0.75))},
              {"p95", i(pct(0.95))}};
}

Json SubtaskJson(ClusterState& state, const FlinkJob& job, int index, const MetricMap* metrics) {
  const int64_t now = state.now_ms();
  const int64_t start = job.deploy_ms() > 0 ? job.deploy_ms() : -1;
  const ExecutionState st = job.task_state();
  const bool ended = st == ExecutionState::kFinished || st == ExecutionState::kCanceled || st == ExecutionState::kFailed;
  const int64_t end = ended ? job.last_modification_ms() : -1;
  std::vector<const MetricMap*> one;
  if (metrics) one.push_back(metrics);
  const std::string endpoint = SubtaskEndpoint(job, index);
  Json j = {{"subtask", index},
            {"status", std::string(ExecutionStateName(st))},
            {"attempt", job.attempt()},
            {"endpoint", endpoint},
            {"start-time", start},
            {"end-time", end},
            {"duration", start > 0 ? (end > 0 ? end : now) - start : -1},
            {"metrics", IoMetrics(one)},
            {"taskmanager-id", SubtaskTaskManagerId(job, index)},
            {"status-duration", StatusDurations(job, now)}};
  if (!state.version().AtLeast(2, 0)) j["host"] = endpoint.substr(0, endpoint.find(':'));
  return j;
}

struct VertexRef {
  FlinkJob* job = nullptr;
  int index = -1;
};

VertexRef RequireJobVertex(RestContext& ctx, http::HttpResponse* error) {
  VertexRef r;
  r.job = RequireJob(ctx, error);
  if (!r.job) return r;
  r.index = RequireVertex(ctx, *r.job, error);
  if (r.index < 0) r.job = nullptr;
  return r;
}

std::string Level(double ratio) { return ratio <= 0.10 ? "ok" : ratio <= 0.5 ? "low" : "high"; }

}  // namespace

void AddVertexRoutes(RestRouter& router) {
  router.Add("GET", "jobs/:jobid/vertices/:vertexid", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    const std::vector<const MetricMap*> stores = SubtaskStores(ctx.state, *ref.job, v);
    Json subtasks = Json::array();
    std::map<std::string, std::vector<double>> io;
    std::map<std::string, std::vector<double>> durations;
    for (int i = 0; i < v.parallelism; ++i) {
      Json s = SubtaskJson(ctx.state, *ref.job, i, i < static_cast<int>(stores.size()) ? stores[static_cast<size_t>(i)] : nullptr);
      for (const auto& [k, value] : s["metrics"].items()) {
        if (value.is_number()) io[k].push_back(value.get<double>());
      }
      for (const auto& [k, value] : s["status-duration"].items()) durations[k].push_back(value.get<double>());
      subtasks.push_back(std::move(s));
    }
    Json metrics = Json::object();
    for (auto& [k, values] : io) metrics[k] = Stats(values);
    Json status_duration = Json::object();
    for (auto& [k, values] : durations) status_duration[k] = Stats(values);
    return JsonResponse(200, Json{{"id", v.id},
                                  {"name", v.name},
                                  {"maxParallelism", v.max_parallelism},
                                  {"parallelism", v.parallelism},
                                  {"now", ctx.state.now_ms()},
                                  {"subtasks", subtasks},
                                  {"aggregated", {{"metrics", metrics}, {"status-duration", status_duration}}}});
  });

  const auto subtask = [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    int index = -1;
    try {
      index = std::stoi(ctx.params["subtaskindex"]);
    } catch (...) {
      index = -1;
    }
    if (index < 0 || index >= v.parallelism) {
      return ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException",
                               "Invalid subtask index for vertex " + v.id);
    }
    if (ctx.params.count("attempt")) {
      int attempt = -1;
      try {
        attempt = std::stoi(ctx.params["attempt"]);
      } catch (...) {
        attempt = -1;
      }
      if (attempt != ref.job->attempt()) {
        return ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException",
                                 "Attempt " + ctx.params["attempt"] + " not found in subtask " + std::to_string(index));
      }
    }
    const std::vector<const MetricMap*> stores = SubtaskStores(ctx.state, *ref.job, v);
    return JsonResponse(200, SubtaskJson(ctx.state, *ref.job, index,
                                         index < static_cast<int>(stores.size()) ? stores[static_cast<size_t>(index)] : nullptr));
  };
  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex", subtask);
  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex/attempts/:attempt", subtask);

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasktimes", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    Json subtasks = Json::array();
    for (int i = 0; i < v.parallelism; ++i) {
      Json timestamps = Json::object();
      for (ExecutionState s : kAllExecutionStates) {
        timestamps[std::string(ExecutionStateName(s))] = ref.job->task_state_timestamp(s);
      }
      const int64_t start = ref.job->deploy_ms() > 0 ? ref.job->deploy_ms() : ctx.state.now_ms();
      Json t = {{"subtask", i},
                {"endpoint", SubtaskEndpoint(*ref.job, i)},
                {"duration", ctx.state.now_ms() - start},
                {"timestamps", timestamps}};
      if (!ctx.state.version().AtLeast(2, 0)) t["host"] = SubtaskEndpoint(*ref.job, i).substr(0, SubtaskEndpoint(*ref.job, i).find(':'));
      subtasks.push_back(std::move(t));
    }
    return JsonResponse(200, Json{{"id", v.id}, {"name", v.name}, {"now", ctx.state.now_ms()}, {"subtasks", subtasks}});
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/taskmanagers", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    const std::vector<const MetricMap*> stores = SubtaskStores(ctx.state, *ref.job, v);
    std::map<std::string, std::vector<int>> by_tm;  // TaskManager id -> subtasks
    for (int i = 0; i < v.parallelism; ++i) by_tm[SubtaskTaskManagerId(*ref.job, i)].push_back(i);
    Json tms = Json::array();
    const int64_t now = ctx.state.now_ms();
    const int64_t start = ref.job->deploy_ms() > 0 ? ref.job->deploy_ms() : -1;
    for (const auto& [tm, subtasks] : by_tm) {
      std::vector<const MetricMap*> mine;
      std::map<std::string, std::vector<double>> durations;
      for (int i : subtasks) {
        if (i < static_cast<int>(stores.size())) mine.push_back(stores[static_cast<size_t>(i)]);
        const Json d = StatusDurations(*ref.job, now);
        for (const auto& [k, value] : d.items()) durations[k].push_back(value.get<double>());
      }
      Json status_duration = Json::object();
      for (auto& [k, values] : durations) status_duration[k] = Stats(values);
      Json io_stats = Json::object();
      const Json io = IoMetrics(mine);
      for (const auto& [k, value] : io.items()) {
        if (value.is_number()) io_stats[k] = Stats({value.get<double>()});
      }
      Json entry = {{"endpoint", SubtaskEndpoint(*ref.job, subtasks.front())},
                    {"status", std::string(ExecutionStateName(ref.job->task_state()))},
                    {"start-time", start},
                    {"end-time", -1},
                    {"duration", start > 0 ? now - start : -1},
                    {"metrics", IoMetrics(mine)},
                    {"status-counts", TaskCounts(ref.job->task_state(), static_cast<int>(subtasks.size()), false)},
                    {"taskmanager-id", tm},
                    {"aggregated", {{"metrics", io_stats}, {"status-duration", status_duration}}}};
      if (!ctx.state.version().AtLeast(2, 0)) {
        const std::string ep = entry["endpoint"];
        entry["host"] = ep.substr(0, ep.find(':'));
      }
      tms.push_back(std::move(entry));
    }
    return JsonResponse(200, Json{{"id", v.id}, {"name", v.name}, {"now", now}, {"taskmanagers", tms}});
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/backpressure", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    const std::vector<const MetricMap*> stores = SubtaskStores(ctx.state, *ref.job, v);
    if (stores.empty()) return JsonResponse(200, Json{{"status", "deprecated"}});
    Json subtasks = Json::array();
    double max_ratio = 0;
    for (size_t i = 0; i < stores.size(); ++i) {
      const double ratio = Number(stores[i], "backPressuredTimeMsPerSecond") / 1000.0;
      max_ratio = std::max(max_ratio, ratio);
      subtasks.push_back({{"subtask", static_cast<int>(i)},
                          {"attempt-number", ref.job->attempt()},
                          {"backpressureLevel", Level(ratio)},
                          {"ratio", ratio},
                          {"idleRatio", Number(stores[i], "idleTimeMsPerSecond") / 1000.0},
                          {"busyRatio", Number(stores[i], "busyTimeMsPerSecond") / 1000.0}});
    }
    return JsonResponse(200, Json{{"status", "ok"},
                                  {"backpressureLevel", Level(max_ratio)},
                                  {"end-timestamp", ctx.state.Metrics().fetched_ms},
                                  {"subtasks", subtasks}});
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/watermarks", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    Json out = Json::array();
    const std::vector<const MetricMap*> stores = SubtaskStores(ctx.state, *ref.job, v);
    for (size_t i = 0; i < stores.size(); ++i) {
      auto it = stores[i]->find("currentInputWatermark");
      if (it != stores[i]->end()) out.push_back({{"id", std::to_string(i) + ".currentInputWatermark"}, {"value", it->second}});
    }
    return JsonResponse(200, out);
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/accumulators", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    return JsonResponse(200, Json{{"id", ref.job->vertices()[static_cast<size_t>(ref.index)].id},
                                  {"user-accumulators", Json::array()}});
  });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex/attempts/:attempt/accumulators",
             [](RestContext& ctx) {
               http::HttpResponse error;
               VertexRef ref = RequireJobVertex(ctx, &error);
               if (!ref.job) return error;
               const std::string& index = ctx.params["subtaskindex"];
               const std::string id = ref.job->vertices()[static_cast<size_t>(ref.index)].id;
               return JsonResponse(200, Json{{"subtask", std::atoi(index.c_str())},
                                             {"attempt", ref.job->attempt()},
                                             {"id", id},
                                             {"user-accumulators", Json::array()}});
             });

  router.Add("GET", "jobs/:jobid/vertices/:vertexid/subtasks/accumulators", [](RestContext& ctx) {
    http::HttpResponse error;
    VertexRef ref = RequireJobVertex(ctx, &error);
    if (!ref.job) return error;
    const JobVertexView& v = ref.job->vertices()[static_cast<size_t>(ref.index)];
    Json subtasks = Json::array();
    for (int i = 0; i < v.parallelism; ++i) {
      Json s = {{"subtask", i},
                {"attempt", ref.job->attempt()},
                {"endpoint", SubtaskEndpoint(*ref.job, i)},
                {"user-accumulators", Json::array()}};
      if (!ctx.state.version().AtLeast(2, 0)) s["host"] = SubtaskEndpoint(*ref.job, i).substr(0, SubtaskEndpoint(*ref.job, i).find(':'));
      subtasks.push_back(std::move(s));
    }
    return JsonResponse(200, Json{{"id", v.id}, {"parallelism", v.parallelism}, {"subtasks", subtasks}});
  });
}

}  // namespace trimtab::sim::flink::rest
