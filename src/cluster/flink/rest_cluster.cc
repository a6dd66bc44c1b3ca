// REST: cluster-level endpoints (/config, /overview, /jobs, /jobs/overview, /jobmanager/*,
// /taskmanagers*, DELETE /cluster).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

namespace {

constexpr int64_t kMb = 1 << 20;

std::string Revision(const FlinkVersion& v) {
  return "trimtab-sim-" + std::to_string(v.major) + std::to_string(v.minor) + " @ 2024-01-01T00:00:00+01:00";
}

bool Sensitive(std::string key) {
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"password", "secret", "fs.azure.account.key", "apikey", "api-key", "auth-params",
                           "service-key", "token", "basic-auth", "jaas.config"}) {
    if (key.find(word) != std::string::npos) return true;
  }
  return false;
}

Json ConfigEntries(const FlinkConfig& config) {
  Json out = Json::array();
  for (const auto& [k, v] : config.entries()) out.push_back({{"key", k}, {"value", Sensitive(k) ? "******" : v}});
  return out;
}

// JobDetails as /jobs/overview lists them.
Json JobOverview(const FlinkJob& job, const FlinkVersion& v, int64_t now) {
  int total = 0;
  if (job.has_execution_graph()) {
    for (const JobVertexView& vx : job.vertices()) total += vx.parallelism;
  }
  Json tasks = TaskCounts(job.task_state(), total, /*lower_case=*/true);
  tasks["total"] = total;
  const int64_t end = job.end_ms();
  Json j = {{"jid", job.id()},
            {"name", job.name()},
            {"start-time", job.start_ms()},
            {"end-time", end},
            {"duration", (end > 0 ? end : now) - job.start_ms()},
            {"state", std::string(JobStatusName(job.status()))},
            {"last-modification", job.last_modification_ms()},
            {"tasks", tasks}};
  if (v.AtLeast(2, 0)) j["pending-operators"] = 0;
  if (v.AtLeast(2, 3)) {
    j["jobType"] = "STREAMING";
    j["schedulerType"] = job.scheduler() == SchedulerType::kAdaptive ? "Adaptive" : "Default";
  }
  return j;
}

Json ResourceProfile(const TaskManagerSettings& tm, double cpu, int slots, int of) {
  const double share = of > 0 ? static_cast<double>(slots) / of : 0;
  return Json{{"cpuCores", cpu * share},
              {"taskHeapMemory", static_cast<int64_t>(static_cast<double>(tm.task_heap / kMb) * share)},
              {"taskOffHeapMemory", static_cast<int64_t>(static_cast<double>(tm.task_off_heap / kMb) * share)},
              {"managedMemory", static_cast<int64_t>(static_cast<double>(tm.managed / kMb) * share)},
              {"networkMemory", static_cast<int64_t>(static_cast<double>(tm.network / kMb) * share)},
              {"extendedResources", Json::object()}};
}

Json TaskManagerJson(const ClusterState& s, const SlotPool::TaskManager& tm) {
  const TaskManagerSettings& shape = s.settings().task_manager;
  const int slots = static_cast<int>(tm.owners.size());
  int free = 0;
  for (const std::string& o : tm.owners) free += o.empty() ? 1 : 0;
  const std::string rpc = s.version().AtLeast(1, 18) ? "pekko" : "akka";
  Json j = {{"id", tm.info.id},
            {"path", rpc + ".tcp://flink@" + tm.info.host + ":6122/user/rpc/taskmanager_0"},
            {"dataPort", tm.info.data_port},
            {"jmxPort", -1},
            {"timeSinceLastHeartbeat", s.now_ms() - s.now_ms() % 10000},
            {"slotsNumber", slots},
            {"freeSlots", free},
            {"totalResource", ResourceProfile(shape, shape.cpu, slots, slots)},
            {"freeResource", ResourceProfile(shape, shape.cpu, free, slots)},
            {"hardware", {{"cpuCores", std::max(1, static_cast<int>(shape.cpu))},
                          {"physicalMemory", shape.process_bytes},
                          {"freeMemory", shape.HeapMax()},
                          {"managedMemory", shape.managed}}},
            {"memoryConfiguration", {{"frameworkHeap", shape.framework_heap},
                                     {"taskHeap", shape.task_heap},
                                     {"frameworkOffHeap", shape.framework_off_heap},
                                     {"taskOffHeap", shape.task_off_heap},
                                     {"networkMemory", shape.network},
                                     {"managedMemory", shape.managed},
                                     {"jvmMetaspace", shape.metaspace},
                                     {"jvmOverhead", shape.overhead},
                                     {"totalFlinkMemory", shape.flink_bytes},
                                     {"totalProcessMemory", shape.process_bytes}}}};
  if (s.version().AtLeast(2, 3)) j["assignedTasks"] = slots - free;
  return j;
}

int64_t MetricLong(const MetricMap& m, const std::string& id) {
  auto it = m.find(id);
  return it == m.end() ? 0 : std::llround(std::strtod(it->second.c_str(), nullptr));
}

}  // namespace

void AddClusterRoutes(RestRouter& router) {
  router.Add("GET", "config", [](RestContext& ctx) {
    const ClusterSettings& s = ctx.state.settings();
    return JsonResponse(200, Json{{"refresh-interval", s.web_refresh_interval.count()},
                                  {"timezone-name", "Coordinated Universal Time"},
                                  {"timezone-offset", 0},
                                  {"flink-version", ctx.state.version().String()},
                                  {"flink-revision", Revision(ctx.state.version())},
                                  {"features", {{"web-submit", s.web_submit},
                                                {"web-cancel", s.web_cancel},
                                                {"web-rescale", s.web_rescale},
                                                {"web-history", false}}}});
  });

  router.Add("GET", "overview", [](RestContext& ctx) {
    int running = 0, finished = 0, cancelled = 0, failed = 0;
    for (const auto& j : ctx.state.jobs()) {
      switch (j->status()) {
        case JobStatus::kFinished: ++finished; break;
        case JobStatus::kCanceled: ++cancelled; break;
        case JobStatus::kFailed: ++failed; break;
        case JobStatus::kSuspended: break;
        default: ++running; break;
      }
    }
    return JsonResponse(200, Json{{"taskmanagers", ctx.state.slots().task_managers().size()},
                                  {"slots-total", ctx.state.slots().total_slots()},
                                  {"slots-available", ctx.state.slots().free_slots()},
                                  {"jobs-running", running},
                                  {"jobs-finished", finished},
                                  {"jobs-cancelled", cancelled},
                                  {"jobs-failed", failed},
                                  {"flink-version", ctx.state.version().String()},
                                  {"flink-commit", Revision(ctx.state.version()).substr(0, 15)}});
  });

  router.Add("GET", "jobs", [](RestContext& ctx) {
    Json jobs = Json::array();
    for (const auto& j : ctx.state.jobs()) jobs.push_back({{"id", j->id()}, {"status", std::string(JobStatusName(j->status()))}});
    return JsonResponse(200, Json{{"jobs", jobs}});
  });

  router.Add("GET", "jobs/overview", [](RestContext& ctx) {
    Json jobs = Json::array();
    for (const auto& j : ctx.state.jobs()) jobs.push_back(JobOverview(*j, ctx.state.version(), ctx.state.now_ms()));
    return JsonResponse(200, Json{{"jobs", jobs}});
  });

  router.Add("GET", "jobmanager/config", [](RestContext& ctx) {
    FlinkConfig c = ctx.state.config();
    c.Set("jobmanager.rpc.address", ctx.state.host());
    c.Set("rest.address", ctx.state.host());
    c.Set("rest.port", std::to_string(ctx.state.settings().rest_port));
    return JsonResponse(200, ConfigEntries(c));
  });

  const auto environment = [](RestContext& ctx) {
    if (ctx.params.count("jobid")) {
      http::HttpResponse error;
      if (!RequireJob(ctx, &error)) return error;
    }
    return JsonResponse(200, Json{{"jvm", {{"version", "OpenJDK 64-Bit Server VM - Eclipse Adoptium - 17 - 17.0.10+7"},
                                           {"arch", "amd64"},
                                           {"options", Json::array({"-Xmx469762048", "-Xms469762048"})}}},
                                  {"classpath", Json::array({"/opt/flink/lib/flink-dist.jar"})}});
  };
  router.Add("GET", "jobmanager/environment", environment);
  router.Add("GET", "jobs/:jobid/jobmanager/environment", environment);

  router.Add("GET", "jobs/:jobid/jobmanager/config", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    FlinkConfig c = ctx.state.config();
    c.Set("$internal.pipeline.job-id", job->id());
    c.Set("pipeline.name", job->name());
    return JsonResponse(200, ConfigEntries(c));
  });

  router.Add("GET", "taskmanagers", [](RestContext& ctx) {
    Json tms = Json::array();
    for (const SlotPool::TaskManager& tm : ctx.state.slots().task_managers()) tms.push_back(TaskManagerJson(ctx.state, tm));
    return JsonResponse(200, Json{{"taskmanagers", tms}});
  });

  router.Add("GET", "taskmanagers/:taskmanagerid", [](RestContext& ctx) {
    const std::string& id = ctx.params["taskmanagerid"];
    const SlotPool::TaskManager* tm = ctx.state.slots().Find(id);
    if (!tm) {
      return ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException",
                               "Could not find TaskExecutor " + id + ".");
    }
    Json j = TaskManagerJson(ctx.state, *tm);
    const MetricSnapshot& snap = ctx.state.Metrics();
    auto mit = snap.taskmanagers.find(id);
    const MetricMap empty;
    const MetricMap& m = mit == snap.taskmanagers.end() ? empty : mit->second;
    Json metrics = {{"heapUsed", MetricLong(m, "Status.JVM.Memory.Heap.Used")},
                    {"heapCommitted", MetricLong(m, "Status.JVM.Memory.Heap.Committed")},
                    {"heapMax", MetricLong(m, "Status.JVM.Memory.Heap.Max")},
                    {"nonHeapUsed", MetricLong(m, "Status.JVM.Memory.NonHeap.Used")},
                    {"nonHeapCommitted", MetricLong(m, "Status.JVM.Memory.NonHeap.Committed")},
                    {"nonHeapMax", MetricLong(m, "Status.JVM.Memory.NonHeap.Max")},
                    {"directCount", MetricLong(m, "Status.JVM.Memory.Direct.Count")},
                    {"directUsed", MetricLong(m, "Status.JVM.Memory.Direct.MemoryUsed")},
                    {"directMax", MetricLong(m, "Status.JVM.Memory.Direct.TotalCapacity")},
                    {"mappedCount", 0},
                    {"mappedUsed", 0},
                    {"mappedMax", 0},
                    {"nettyShuffleMemorySegmentsAvailable", MetricLong(m, "Status.Shuffle.Netty.AvailableMemory") / 32768},
                    {"nettyShuffleMemorySegmentsUsed", MetricLong(m, "Status.Shuffle.Netty.UsedMemory") / 32768},
                    {"nettyShuffleMemorySegmentsTotal", MetricLong(m, "Status.Shuffle.Netty.TotalMemory") / 32768},
                    {"nettyShuffleMemoryAvailable", MetricLong(m, "Status.Shuffle.Netty.AvailableMemory")},
                    {"nettyShuffleMemoryUsed", MetricLong(m, "Status.Shuffle.Netty.UsedMemory")},
                    {"nettyShuffleMemoryTotal", MetricLong(m, "Status.Shuffle.Netty.TotalMemory")},
                    {"garbageCollectors",
                     Json::array({{{"name", "G1_Young_Generation"},
                                   {"count", MetricLong(m, "Status.JVM.GarbageCollector.G1_Young_Generation.Count")},
                                   {"time", MetricLong(m, "Status.JVM.GarbageCollector.G1_Young_Generation.Time")}},
                                  {{"name", "G1_Old_Generation"}, {"count", 0}, {"time", 0}}})}};
    if (!ctx.state.version().AtLeast(2, 0)) {
      metrics["memorySegmentsAvailable"] = metrics["nettyShuffleMemorySegmentsAvailable"];
      metrics["memorySegmentsTotal"] = metrics["nettyShuffleMemorySegmentsTotal"];
    }
    j["metrics"] = metrics;
    Json allocated = Json::array();
    const TaskManagerSettings& shape = ctx.state.settings().task_manager;
    const int slots = static_cast<int>(tm->owners.size());
    for (const std::string& owner : tm->owners) {
      if (owner.empty()) continue;
      Json slot = {{"resource", ResourceProfile(shape, shape.cpu, 1, slots)}, {"jobId", owner}};
      if (ctx.state.version().AtLeast(2, 3)) {
        const FlinkJob* job = ctx.state.FindJob(owner);
        slot["assignedTasks"] = job ? static_cast<int>(job->vertices().size()) : 0;
      }
      allocated.push_back(std::move(slot));
    }
    j["allocatedSlots"] = allocated;
    return JsonResponse(200, j);
  });

  router.Add("DELETE", "cluster", [](RestContext& ctx) {
    ctx.state.RequestShutdown();
    return JsonResponse(200, Json::object());
  });
}

}  // namespace trimtab::sim::flink::rest
