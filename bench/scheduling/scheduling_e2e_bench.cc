// scheduling_e2e_bench: gang scheduling end to end through `trimtab local`'s API server, "pods
// created until all are bound" (issue 20's second speed target, >= 1,000 pods/s).
//
// For each size (2,500 / 5,000 / 10,000 pods in gangs of 10 by default) it runs, each on a fresh
// API server (SQLite in a temporary data directory, WAL, synchronous=NORMAL, 4 HTTP threads):
//
//   raw create   no runtime, no scheduler: the Volcano CRDs and a Queue, then the PodGroups
//                (minMember 10, minResources) and pods created over HTTP by `--clients`
//                keep-alive clients, each PodGroup before its 10 pods. Baseline 1: how fast the
//                API server takes the same creations.
//   end to end   the local cluster runtime in-process (1,000 simulated nodes of 32 cpu / 128Gi /
//                110 pods from the runtime's node config, the kubelet simulation on unless
//                --no-kubelet: it starts every bound pod and writes its status, as a real
//                cluster's kubelets would, polling each pod every second like the kubelet's PLEG
//                relist; no Flink pod runner, no service proxy) with Volcano's
//                scheduler (default volcano-scheduler.conf, a session every second); the same
//                creations, while a watch on the pods counts those with spec.nodeName. Reports
//                the creation rate, the time from the first create until every pod is bound,
//                pods/s end to end, and the scheduler's own session times.
//   engine       Baseline 2: one session of the engine in-process (core/scheduling, as
//                scheduling_bench) on the objects the raw run created and the end-to-end run's
//                Node objects, all pods pending.
// and prints end to end against both baselines as ratios.
//
//   scheduling_e2e_bench [--sizes 2500,5000,10000] [--clients 8] [--nodes 1000]
//                        [--timeout-seconds 300] [--no-kubelet]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/http/test_client.h"
#include "adapters/kube/informer.h"
#include "adapters/kube/kube_client.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "cluster/runtime/runtime.h"
#include "cluster/volcano/volcano_crds.h"
#include "cluster/volcano/volcano_scheduler.h"
#include "common/logging.h"
#include "core/scheduling/session.h"

namespace {

using Steady = std::chrono::steady_clock;
using trimtab::Json;
namespace fs = std::filesystem;
namespace runtime = trimtab::cluster::runtime;
namespace volcano = trimtab::cluster::volcano;
namespace sched = trimtab::core::scheduling;

constexpr char kNamespace[] = "bench";
constexpr char kQueue[] = "bench";
constexpr int kGang = 10;

double Seconds(Steady::duration d) { return std::chrono::duration<double>(d).count(); }

struct Flags {
  std::vector<int> sizes = {2500, 5000, 10000};
  int clients = 8;
  int nodes = 1000;
  int timeout_seconds = 300;
  bool kubelet = true;
};

class TempDir {
 public:
  explicit TempDir(const std::string& name) {
    path_ =
        fs::temp_directory_path() / ("trimtab-bench-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

std::string GangName(int g) { return "job-" + std::to_string(g); }

Json PodGroup(int g) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", GangName(g)}, {"namespace", kNamespace}}},
          {"spec",
           {{"minMember", kGang},
            {"queue", kQueue},
            {"minResources", {{"cpu", std::to_string(kGang)}, {"memory", "10Gi"}}}}}};
}

// A TaskManager-like pod: 1 cpu / 1Gi, schedulerName volcano, member of its gang.
Json Pod(int g, int k) {
  Json container = {{"name", "tm"},
                    {"image", "flink:1.20"},
                    {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", GangName(g) + "-tm-" + std::to_string(k)},
            {"namespace", kNamespace},
            {"annotations", {{"scheduling.k8s.io/group-name", GangName(g)}}}}},
          {"spec",
           {{"schedulerName", "volcano"},
            {"terminationGracePeriodSeconds", 0},
            {"containers", Json::array({container})}}}};
}

std::unique_ptr<trimtab::kube::KubeClient> Client(const std::string& url) {
  trimtab::kube::RestConfig config;
  config.server = url;
  auto client = trimtab::kube::KubeClient::Create(config, {.user_agent = "scheduling-e2e-bench"});
  if (!client.ok()) {
    std::fprintf(stderr, "client: %s\n", client.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(client).value();
}

void Check(const trimtab::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

std::unique_ptr<trimtab::cluster::ApiServer> StartServer(const TempDir& dir) {
  auto server = trimtab::cluster::ApiServer::Create({.data_dir = dir.path(), .threads = 4});
  if (!server.ok()) {
    std::fprintf(stderr, "cannot start the API server: %s\n", server.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(server).value();
}

// The namespace and the queue the gangs go to (the CRDs must be served).
void CreateNamespaceAndQueue(const trimtab::kube::KubeClient& client) {
  Check(client
            .Create(
                runtime::NamespacesGvr(), "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}})
            .status(),
        "creating the namespace");
  Check(client
            .Create(volcano::QueuesGvr(), "",
                    {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                     {"kind", "Queue"},
                     {"metadata", {{"name", kQueue}}},
                     {"spec", {{"weight", 1}, {"reclaimable", false}}}})
            .status(),
        "creating the queue");
}

struct Creation {
  Steady::time_point first;  // the first request was sent
  Steady::time_point last;   // the last response arrived
  int64_t errors = 0;
  std::string first_error;
};

// `clients` keep-alive clients; client t creates gangs t, t + clients, ...: the PodGroup, then
// its pods.
Creation CreateGangs(const std::string& url, int pods, int clients) {
  const int gangs = pods / kGang;
  Creation out;
  std::mutex mu;
  std::atomic<int64_t> errors{0};
  std::vector<std::thread> workers;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  const std::string groups_path =
      std::string("/apis/scheduling.volcano.sh/v1beta1/namespaces/") + kNamespace + "/podgroups";
  const std::string pods_path = std::string("/api/v1/namespaces/") + kNamespace + "/pods";
  for (int t = 0; t < clients; ++t) {
    workers.emplace_back([&, t] {
      trimtab::http::TestHttpClient client(url);
      client.Get("/version");  // connect before the clock starts
      // Bodies are rendered before the clock starts too.
      std::vector<std::pair<std::string, std::string>> requests;
      for (int g = t; g < gangs; g += clients) {
        requests.emplace_back(groups_path, PodGroup(g).dump());
        for (int k = 0; k < kGang; ++k) requests.emplace_back(pods_path, Pod(g, k).dump());
      }
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      for (const auto& [path, body] : requests) {
        auto r = client.Request("POST", path, body);
        if (r.status != 201) {
          if (errors.fetch_add(1) == 0) {
            std::lock_guard<std::mutex> lock(mu);
            out.first_error = std::to_string(r.status) + " " + r.body.substr(0, 300);
          }
        }
      }
    });
  }
  while (ready.load() < clients) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  out.first = Steady::now();
  go = true;
  for (auto& w : workers) w.join();
  out.last = Steady::now();
  out.errors = errors.load();
  return out;
}

std::vector<Json> ListAll(const trimtab::kube::KubeClient& client,
                          const trimtab::kube::GroupVersionResource& gvr, const std::string& ns) {
  auto page = client.ListPage(gvr, ns, {});
  if (!page.ok()) {
    std::fprintf(stderr, "listing %s: %s\n", gvr.String().c_str(),
                 page.status().ToString().c_str());
    std::exit(1);
  }
  std::vector<Json> out;
  for (const Json& item : (*page)["items"]) out.push_back(item);
  return out;
}

struct RawRun {
  double seconds = 0;
  double pods_per_second = 0;
  int64_t errors = 0;
  sched::ClusterObjects objects;  // what it created (nodes come from the end-to-end run)
};

RawRun RawCreate(int pods, int clients) {
  TempDir dir("sched-raw");
  auto server = StartServer(dir);
  auto client = Client(server->url());
  Check(volcano::InstallVolcanoCrds(*client).status(), "installing the Volcano CRDs");
  Check(volcano::EnsureVolcanoQueues(*client, "default"), "creating the Volcano queues");
  CreateNamespaceAndQueue(*client);
  Creation c = CreateGangs(server->url(), pods, clients);
  RawRun out;
  out.seconds = Seconds(c.last - c.first);
  out.pods_per_second = pods / out.seconds;
  out.errors = c.errors;
  if (c.errors)
    std::fprintf(stderr, "raw create: %lld errors, first: %s\n", static_cast<long long>(c.errors),
                 c.first_error.c_str());
  out.objects.pods = ListAll(*client, runtime::PodsGvr(), kNamespace);
  out.objects.pod_groups = ListAll(*client, volcano::PodGroupsGvr(), kNamespace);
  out.objects.queues = ListAll(*client, volcano::QueuesGvr(), "");
  server->Stop();
  return out;
}

// Counts the pods of the bench namespace that have a node, from a watch.
class BoundCounter {
 public:
  BoundCounter(const trimtab::kube::KubeClient* client, int expected) : expected_(expected) {
    auto informer = trimtab::kube::Informer::Create(
        client, {.gvr = runtime::PodsGvr(), .namespace_name = kNamespace});
    if (!informer.ok()) std::exit(1);
    informer_ = std::move(informer).value();
    auto seen = [this](const Json& pod) {
      const bool bound = !runtime::Str(pod, {"spec", "nodeName"}).empty();
      const bool running = runtime::Str(pod, {"status", "phase"}) == "Running";
      if (!bound && !running) return;
      const std::string uid = runtime::Str(pod, {"metadata", "uid"});
      std::lock_guard<std::mutex> lock(mu_);
      const Steady::time_point now = Steady::now();
      if (bound && bound_.insert(uid).second) {
        if (bound_.size() == 1) first_bound_ = now;
        if (static_cast<int>(bound_.size()) == expected_) {
          all_bound_ = now;
          cv_.notify_all();
        }
      }
      if (running && running_.insert(uid).second &&
          static_cast<int>(running_.size()) == expected_) {
        all_running_ = now;
      }
    };
    informer_->AddEventHandler({.on_add = seen,
                                .on_update = [seen](const Json&, const Json& pod) { seen(pod); },
                                .on_delete = nullptr});
    thread_ = std::thread([this] { informer_->Run(); });
    informer_->WaitForSync(std::chrono::seconds(30));
  }
  ~BoundCounter() {
    informer_->Stop();
    thread_.join();
  }

  // False on timeout.
  bool WaitAllBound(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout,
                        [this] { return static_cast<int>(bound_.size()) >= expected_; });
  }
  size_t bound() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bound_.size();
  }
  size_t running() const {
    std::lock_guard<std::mutex> lock(mu_);
    return running_.size();
  }
  Steady::time_point first_bound() const { return first_bound_; }
  Steady::time_point all_bound() const { return all_bound_; }
  std::optional<Steady::time_point> all_running() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(running_.size()) < expected_) return std::nullopt;
    return all_running_;
  }

 private:
  const int expected_;
  std::unique_ptr<trimtab::kube::Informer> informer_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> bound_, running_;
  Steady::time_point first_bound_, all_bound_, all_running_;
};

// Mutating requests the API server answered, by "VERB resource[/subresource]", from its own
// /metrics (apiserver_request_total, every response code).
std::map<std::string, int64_t> MutatingRequests(const std::string& url) {
  trimtab::http::TestHttpClient client(url);
  const auto r = client.Get("/metrics");
  std::map<std::string, int64_t> out;
  std::stringstream in(r.body);
  std::string line;
  auto label = [](const std::string& l, const std::string& name) {
    const std::string key = name + "=\"";
    const size_t at = l.find(key);
    if (at == std::string::npos) return std::string();
    const size_t end = l.find('"', at + key.size());
    return l.substr(at + key.size(), end - at - key.size());
  };
  while (std::getline(in, line)) {
    if (line.rfind("apiserver_request_total{", 0) != 0) continue;
    const std::string verb = label(line, "verb");
    if (verb != "POST" && verb != "PUT" && verb != "PATCH" && verb != "DELETE") continue;
    std::string what = verb + " " + label(line, "resource");
    const std::string sub = label(line, "subresource");
    if (!sub.empty()) what += "/" + sub;
    out[what] += std::atoll(line.substr(line.rfind(' ') + 1).c_str());
  }
  return out;
}

struct EndToEnd {
  bool complete = false;
  size_t bound = 0;
  size_t running_at_end = 0;
  double create_seconds = 0;
  double first_bound_seconds = 0;
  double all_bound_seconds = 0;
  int64_t errors = 0;
  volcano::VolcanoSessionStats stats;
  std::vector<Json> nodes;
  std::map<std::string, int64_t> writes;  // mutating requests until every pod was bound
};

EndToEnd RunEndToEnd(int pods, const Flags& flags) {
  TempDir dir("sched-e2e");
  auto server = StartServer(dir);
  auto scheduler = std::make_shared<volcano::VolcanoScheduler>(volcano::VolcanoSchedulerOptions{});
  runtime::RuntimeOptions options{
      .server_url = server->url(),
      .nodes = runtime::UniformNodes(flags.nodes, "32", "128Gi", 110),
      // 1,000 nodes need more than the default /16 of /24 pod subnets.
      .pod_cidr = "127.128.0.0/9",
      .schedulers = {[scheduler](const runtime::RuntimeContext&)
                         -> trimtab::StatusOr<std::shared_ptr<runtime::Scheduler>> {
        return std::shared_ptr<runtime::Scheduler>(scheduler);
      }},
      .service_proxy = false};
  options.kubelet_enabled = flags.kubelet;
  // The kubelet simulation polls each pod's process; at 10,000 pods on this machine's cores the
  // default 250 ms would simulate 1,000 kubelets' CPU here. 1 s is the real kubelet's PLEG relist
  // period; the status writes (ContainerCreating, then Running) are the same.
  options.kubelet.status_interval = std::chrono::seconds(1);
  auto started = runtime::Runtime::Create(std::move(options));
  if (!started.ok()) {
    std::fprintf(stderr, "runtime: %s\n", started.status().ToString().c_str());
    std::exit(1);
  }
  std::unique_ptr<runtime::Runtime> rt = std::move(started).value();
  auto client = Client(server->url());
  CreateNamespaceAndQueue(*client);
  EndToEnd out;
  out.nodes = ListAll(*client, runtime::NodesGvr(), "");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the queue is seen, sessions idle

  BoundCounter counter(client.get(), pods);
  const volcano::VolcanoSessionStats before = scheduler->stats();
  Creation c = CreateGangs(server->url(), pods, flags.clients);
  out.complete = counter.WaitAllBound(std::chrono::seconds(flags.timeout_seconds));
  const volcano::VolcanoSessionStats after = scheduler->stats();
  out.writes = MutatingRequests(server->url());
  out.errors = c.errors;
  if (c.errors)
    std::fprintf(stderr, "end to end: %lld create errors, first: %s\n",
                 static_cast<long long>(c.errors), c.first_error.c_str());
  out.bound = counter.bound();
  out.running_at_end = counter.running();
  out.create_seconds = Seconds(c.last - c.first);
  if (out.bound > 0) out.first_bound_seconds = Seconds(counter.first_bound() - c.first);
  if (out.complete) out.all_bound_seconds = Seconds(counter.all_bound() - c.first);
  out.stats = {.sessions = after.sessions - before.sessions,
               .binds = after.binds - before.binds,
               .build_seconds = after.build_seconds - before.build_seconds,
               .session_seconds = after.session_seconds - before.session_seconds,
               .apply_seconds = after.apply_seconds - before.apply_seconds,
               .max_cycle_seconds = after.max_cycle_seconds};
  rt->Stop();
  server->Stop();
  return out;
}

// One engine session on the raw run's objects (every pod pending) and the end-to-end nodes.
double EnginePodsPerSecond(sched::ClusterObjects objects, size_t* binds) {
  sched::SessionOptions options;
  options.record_log = false;
  double best = 1e18;
  for (int r = 0; r < 3; ++r) {
    const Steady::time_point start = Steady::now();
    auto result = sched::RunSession(sched::DefaultSchedulerConfig(), objects, options);
    best = std::min(best, Seconds(Steady::now() - start));
    if (!result.ok()) {
      std::fprintf(stderr, "engine session: %s\n", result.status().ToString().c_str());
      std::exit(1);
    }
    *binds = result->binds.size();
  }
  return *binds / best;
}

std::vector<int> ParseSizes(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const int n = std::atoi(item.c_str());
    if (n <= 0 || n % kGang != 0) {
      std::fprintf(stderr, "--sizes: %s is not a positive multiple of %d\n", item.c_str(), kGang);
      std::exit(2);
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--sizes" && has_value) {
      flags.sizes = ParseSizes(argv[++i]);
    } else if (arg == "--clients" && has_value) {
      flags.clients = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--nodes" && has_value) {
      flags.nodes = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--timeout-seconds" && has_value) {
      flags.timeout_seconds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--no-kubelet") {
      flags.kubelet = false;
    } else {
      std::fprintf(stderr,
                   "usage: scheduling_e2e_bench [--sizes 2500,5000,10000] [--clients 8] "
                   "[--nodes 1000] [--timeout-seconds 300] [--no-kubelet]\n");
      return 2;
    }
  }
  trimtab::InitLogging("error").IgnoreError();
  std::printf(
      "gang scheduling end to end: trimtab local's API server (SQLite WAL, 4 HTTP threads) + "
      "runtime, %d nodes of 32 cpu, kubelet simulation %s, Volcano default conf, gangs of %d, "
      "%d creating clients, %u hardware threads\n",
      flags.nodes, flags.kubelet ? "on" : "off", kGang, flags.clients,
      std::thread::hardware_concurrency());
  std::printf("%7s | %9s %9s | %9s %9s %9s %9s %9s | %8s %8s %8s %8s | %10s | %8s %8s\n", "pods",
              "raw s", "raw pod/s", "create s", "create/s", "first s", "bound s", "e2e pod/s",
              "sessions", "build s", "engine s", "max s", "engine p/s", "e2e/raw", "e2e/engine");
  bool all_complete = true;
  for (int pods : flags.sizes) {
    RawRun raw = RawCreate(pods, flags.clients);
    EndToEnd e2e = RunEndToEnd(pods, flags);
    raw.objects.nodes = e2e.nodes;
    size_t engine_binds = 0;
    const double engine = EnginePodsPerSecond(std::move(raw.objects), &engine_binds);
    const double e2e_rate = e2e.complete ? pods / e2e.all_bound_seconds : 0;
    std::printf(
        "%7d | %9.2f %9.0f | %9.2f %9.0f %9.2f %9.2f %9.0f | %8lld %8.2f %8.2f %8.3f | %10.0f | "
        "%8.2f %8.4f\n",
        pods, raw.seconds, raw.pods_per_second, e2e.create_seconds, pods / e2e.create_seconds,
        e2e.first_bound_seconds, e2e.all_bound_seconds, e2e_rate,
        static_cast<long long>(e2e.stats.sessions), e2e.stats.build_seconds,
        e2e.stats.session_seconds, e2e.stats.max_cycle_seconds, engine,
        e2e_rate / raw.pods_per_second, e2e_rate / engine);
    std::string writes;
    int64_t total = 0;
    for (const auto& [what, n] : e2e.writes) {
      total += n;
      char item[128];
      std::snprintf(item, sizeof item, "%s%s %.2f", writes.empty() ? "" : ", ", what.c_str(),
                    static_cast<double>(n) / pods);
      writes += item;
    }
    std::printf("        writes per pod until all bound: %.2f (%s)\n",
                static_cast<double>(total) / pods, writes.c_str());
    if (!e2e.complete) {
      all_complete = false;
      std::printf("        not all bound within %d s: %zu of %d\n", flags.timeout_seconds,
                  e2e.bound, pods);
    }
    if (engine_binds != static_cast<size_t>(pods)) {
      std::printf("        the engine bound %zu of %d in one session\n", engine_binds, pods);
    }
    std::fflush(stdout);
  }
  return all_complete ? 0 : 1;
}
