// scheduling_bench: one Volcano scheduling session (default configuration) from cluster objects
// to binds, on 1,000 nodes with pending pods in gangs of 10 (minMember 10, minResources set),
// at 2,500 / 5,000 / 10,000 / 20,000 pods. Prints pods bound per second and, against the
// smallest size measured in the same run, the cost ratio next to the n and n·log n ratios.
//
//   scheduling_bench [--repeat N]   (default 3; the best run of each size counts)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scheduling/session.h"

namespace {

using trimtab::Json;
using namespace trimtab::core::scheduling;

ClusterObjects Cluster(int nodes, int pods) {
  ClusterObjects c;
  for (int i = 0; i < nodes; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "node-%04d", i);
    c.nodes.push_back({{"metadata", {{"name", name}}},
                       {"status", {{"allocatable", {{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}}}}}});
  }
  c.queues.push_back({{"metadata", {{"name", "default"}}}, {"spec", {{"weight", 1}}}});
  const int gangs = pods / 10;
  for (int g = 0; g < gangs; ++g) {
    const std::string group = "job-" + std::to_string(g);
    c.pod_groups.push_back(
        {{"metadata", {{"name", group}, {"namespace", "bench"}}},
         {"spec", {{"minMember", 10}, {"queue", "default"},
                   {"minResources", {{"cpu", "10"}, {"memory", "10Gi"}}}}}});
    for (int k = 0; k < 10; ++k) {
      Json pod;
      pod["metadata"]["name"] = group + "-tm-" + std::to_string(k);
      pod["metadata"]["namespace"] = "bench";
      pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = group;
      pod["spec"]["schedulerName"] = "volcano";
      Json container;
      container["name"] = "tm";
      container["resources"]["requests"] = {{"cpu", "1"}, {"memory", "1Gi"}};
      pod["spec"]["containers"] = Json::array({container});
      pod["status"]["phase"] = "Pending";
      c.pods.push_back(std::move(pod));
    }
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  const int kNodes = 1000;
  const int sizes[] = {2500, 5000, 10000, 20000};
  SessionOptions options;
  options.record_log = false;
  std::printf("scheduling session, default volcano-scheduler.conf, %d nodes, gangs of 10\n", kNodes);
  std::printf("%8s %8s %10s %12s %10s %10s %10s\n", "pods", "binds", "seconds", "pods/s",
              "cost/base", "n/base", "nlogn/base");
  double base_seconds = 0;
  int base_pods = 0;
  for (int pods : sizes) {
    const ClusterObjects objects = Cluster(kNodes, pods);
    double best = 1e18;
    size_t binds = 0;
    for (int r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      auto result = RunSession(DefaultSchedulerConfig(), objects, options);
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!result.ok()) {
        std::fprintf(stderr, "session failed: %s\n", result.status().ToString().c_str());
        return 1;
      }
      binds = result->binds.size();
      best = std::min(best, s);
    }
    if (base_pods == 0) {
      base_pods = pods;
      base_seconds = best;
    }
    const double n = static_cast<double>(pods) / base_pods;
    const double nlogn = n * std::log(pods) / std::log(base_pods);
    std::printf("%8d %8zu %10.3f %12.0f %10.2f %10.2f %10.2f\n", pods, binds, best,
                binds / best, best / base_seconds, n, nlogn);
  }
  return 0;
}
