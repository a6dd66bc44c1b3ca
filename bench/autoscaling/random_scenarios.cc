#include "random_scenarios.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/rng.h"

namespace trimtab::bench {
namespace {

constexpr double kMinute = 60;
constexpr double kHour = 3600;

// A library job and what one subtask of its bottleneck vertex carries, in source records/s
// (src/sim/job_library.cc: 155,000 records per core over the vertex's cost units).
struct LibraryJob {
  const char* name;
  double bottleneck_per_subtask;
};
constexpr LibraryJob kJobs[] = {
    {"q1", 155'000 / 0.98},  // one stateless vertex
    {"q2", 155'000 / 0.88},  // one selective stateless vertex
    {"q5", 155'000 / 5.5},   // the HOP window count
    {"q8", 155'000 / 1.06},  // two sources into a window join; reading dominates
    {"q11", 155'000 / 2.9},  // session windows over hot bidders
};
constexpr int kPartitionChoices[] = {4, 6, 8, 12, 16, 24, 32};

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  double Between(double lo, double hi) { return lo + (hi - lo) * rng_.Uniform(); }
  int IntBetween(int lo, int hi) { return lo + static_cast<int>(rng_.Below(hi - lo + 1)); }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[rng_.Below(N)];
  }

 private:
  sim::Xoshiro256 rng_;
};

// What the sources' partitions can deliver: one reader per partition, each reading about one
// core's worth (155,000 records/s, the library's reading cost).
constexpr double kReaderRecordsPerSecond = 155'000;

// Rates stay under 80 % of what the partitions deliver, so that every scenario can be served
// (a load the sources cannot read measures nothing about scaling) and hot keys are the only
// hard limit left.
struct Rates {
  double cap;
  double operator()(double r) const { return std::round(std::min(r, cap)); }
};

Json Steps(Draw& d, double base, const Rates& Rate) {
  Json steps = Json::array();
  double at = d.Between(1, 3) * kHour;
  const int n = d.IntBetween(1, 3);
  for (int i = 0; i < n; ++i) {
    steps.push_back({{"at", std::round(at)}, {"rate", Rate(base * d.Between(0.3, 4))}});
    at += d.Between(1.5, 4) * kHour;
  }
  return {{"type", "step"}, {"rate", Rate(base)}, {"steps", steps}};
}

Json Workload(Draw& d, double base, const Rates& Rate) {
  switch (d.IntBetween(0, 6)) {
    case 0:
      return Steps(d, base, Rate);
    case 1:
      return {{"type", "noise"},
              {"stddev", std::round(d.Between(0.05, 0.2) * 100) / 100},
              {"interval", 30.0 * d.IntBetween(1, 2)},
              {"of", Steps(d, base, Rate)}};
    case 2:
      return {{"type", "ramp"},
              {"from", Rate(base)},
              {"to", Rate(base * d.Between(0.2, 6))},
              {"start", kHour},
              {"duration", d.IntBetween(2, 8) * kHour}};
    case 3:
      return {{"type", "noise"},
              {"stddev", 0.05},
              {"interval", kMinute},
              {"of",
               {{"type", "daily"},
                {"trough", Rate(base * d.Between(0.1, 0.5))},
                {"peak", Rate(base * d.Between(1, 3))},
                {"period", 12 * kHour}}}};
    case 4:
      return {{"type", "spike"},
              {"base", Rate(base)},
              {"peak", Rate(base * d.Between(2, 6))},
              {"at", d.IntBetween(90, 300) * kMinute},
              {"duration", d.IntBetween(5, 60) * kMinute}};
    case 5:
      return {{"type", "onoff"},
              {"rate", Rate(base * d.Between(1.5, 3))},
              {"offRate", Rate(base * d.Between(0.1, 0.8))},
              {"on", d.IntBetween(20, 120) * kMinute},
              {"off", d.IntBetween(20, 120) * kMinute}};
    default: {
      Json points = Json::array({Json::array({0.0, Rate(base)})});
      double t = 0;
      const int n = d.IntBetween(3, 6);
      for (int i = 0; i < n; ++i) {
        t += d.IntBetween(30, 180) * kMinute;
        points.push_back(Json::array({t, Rate(base * d.Between(0.3, 4))}));
      }
      return {{"type", "piecewise"}, {"points", points}};
    }
  }
}

// A chain job for RandomGraphScenario, and what its bottleneck carries per subtask in source
// records/s.
struct Graph {
  Json spec;
  double bottleneck_per_subtask = 0;
  int partitions = 0;
  double reader_rate = 0;
};

Graph RandomGraph(Draw& d) {
  constexpr int kPartitions[] = {4, 8, 12, 16, 24, 32, 64};
  constexpr double kReaderRates[] = {100'000, 150'000, 200'000};
  constexpr double kOperatorRates[] = {10'000, 20'000, 40'000, 80'000, 200'000};
  constexpr double kSelectivities[] = {1, 1, 0.5, 0.1};
  constexpr double kSkews[] = {0, 0, 0.2, 0.5, 0.8};
  constexpr double kStates[] = {1e9, 1e10, 5e10};
  constexpr int kMaxParallelisms[] = {128, 256, 720};
  Graph g;
  g.partitions = d.Pick(kPartitions);
  g.reader_rate = d.Pick(kReaderRates);
  Json vertices = Json::array({{{"id", "source"},
                                {"partitions", g.partitions},
                                {"parallelism", d.IntBetween(1, 8)},
                                {"capacityPerSubtask", g.reader_rate}}});
  Json edges = Json::array();
  const int operators = d.IntBetween(1, 4);
  double share = 1;  // records reaching the operator per source record
  g.bottleneck_per_subtask = g.reader_rate;
  for (int i = 1; i <= operators; ++i) {
    const double rate = d.Pick(kOperatorRates);
    Json v = {{"id", "op" + std::to_string(i)},
              {"parallelism", d.IntBetween(1, 8)},
              {"capacityPerSubtask", rate},
              {"selectivity", d.Pick(kSelectivities)},
              {"keySkew", d.Pick(kSkews)}};
    if (d.Between(0, 1) < 0.4) v["stateBytes"] = d.Pick(kStates);
    if (d.Between(0, 1) < 0.3) v["maxParallelism"] = d.Pick(kMaxParallelisms);
    g.bottleneck_per_subtask = std::min(g.bottleneck_per_subtask, rate / share);
    share *= v["selectivity"].get<double>();
    static constexpr const char* kShips[] = {"hash", "rebalance", "forward"};
    const char* ship = i == 1 ? kShips[d.IntBetween(0, 1)] : d.Pick(kShips);
    // FORWARD needs equal parallelism on both ends.
    if (std::string(ship) == "forward") v["parallelism"] = vertices.back()["parallelism"];
    edges.push_back({{"from", vertices.back()["id"]}, {"to", v["id"]}, {"ship", ship}});
    vertices.push_back(std::move(v));
  }
  g.spec = {{"name", "chain"}, {"vertices", vertices}, {"edges", edges}};
  return g;
}

}  // namespace

Json RandomGraphScenario(uint64_t seed, int index) {
  Draw d(sim::HashPair(seed ^ 0x9e3779b97f4a7c15ULL, static_cast<uint64_t>(index)));
  Graph g = RandomGraph(d);
  const Rates rates{0.3 * g.partitions * g.reader_rate};
  const double base = std::min(g.bottleneck_per_subtask * d.Between(0.5, 3), rates.cap);
  constexpr double kDecisionIntervals[] = {kMinute, kMinute, 30, 10};
  Json scenario = {
      {"name", "graph-" + std::to_string(seed) + "-" + std::to_string(index)},
      {"job", std::move(g.spec)},
  };
  scenario["workload"] = Workload(d, std::round(base), rates);
  scenario["duration"] = 12 * kHour;
  scenario["step"] = 5.0;
  scenario["decisionInterval"] = d.Pick(kDecisionIntervals);
  scenario["seed"] = d.IntBetween(1, 99);
  scenario["slo"] = {{"lag", 30.0}};
  return scenario;
}

double LargestState(const Json& scenario) {
  double largest = 0;
  const Json& job = scenario.at("job");
  if (!job.contains("vertices")) return 0;
  for (const Json& v : job["vertices"]) largest = std::max(largest, v.value("stateBytes", 0.0));
  return largest;
}

Json RandomScenario(uint64_t seed, int index) {
  Draw d(sim::HashPair(seed, static_cast<uint64_t>(index)));
  const LibraryJob& job = d.Pick(kJobs);
  const int parallelism = d.IntBetween(1, 8);
  const int partitions = d.Pick(kPartitionChoices);
  Json scenario = {
      {"name", "random-" + std::to_string(seed) + "-" + std::to_string(index)},
      {"job", {{"library", job.name}, {"parallelism", parallelism}, {"partitions", partitions}}},
  };
  const Rates rates{0.8 * partitions * kReaderRecordsPerSecond};
  scenario["workload"] = Workload(d, job.bottleneck_per_subtask * d.Between(0.5, 3), rates);
  scenario["duration"] = 12 * kHour;
  scenario["step"] = 5.0;
  scenario["decisionInterval"] = kMinute;
  scenario["seed"] = d.IntBetween(1, 99);
  scenario["slo"] = {{"lag", 30.0}};
  return scenario;
}

}  // namespace trimtab::bench
