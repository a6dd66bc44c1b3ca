#include "sim/capture/scenario_capture.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/metrics/metric_sources.h"
#include "common/duration.h"
#include "common/number_format.h"
#include "sim/key_groups.h"
#include "sim/rng.h"

namespace trimtab::cli {

namespace {

using adapters::FlinkCollection;
using core::VertexId;
using core::flink::RawVertexMetrics;

// Below this busy time a vertex's capacity is extrapolated from very little work.
constexpr double kRoughBusyMsPerSecond = 50;
// The seed the captured scenario runs with: key skew is fitted under it.
constexpr uint64_t kScenarioSeed = 1;
// A keyed vertex whose busiest subtask is this much busier than key-group rounding explains gets
// a fitted key skew.
constexpr double kSkewFit = 1.05;
constexpr double kMaxSkew = 3;

std::string Num(double v) { return FormatGeneral(v, 6); }

// A YAML double-quoted scalar (JSON string escaping is valid YAML).
std::string Quote(std::string_view text) { return Json(std::string(text)).dump(); }

std::optional<double> Mean(const std::vector<std::optional<double>>& values) {
  double sum = 0;
  int n = 0;
  for (const std::optional<double>& v : values) {
    if (v && std::isfinite(*v)) {
      sum += *v;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// What the samples say about one vertex.
struct VertexFigures {
  std::optional<double> busy_avg, busy_max;  // ms/s
  std::optional<double> in_rate, out_rate;   // records/s, all subtasks
  std::optional<double> pending_first, pending_last;
  // Cumulative record counts at the first and the last sample that has them.
  std::optional<double> in_first, in_last, out_first, out_last;
  // Records out per record in: over the samples when the counters moved, else since the start.
  std::optional<double> Selectivity() const {
    if (in_first && in_last && out_first && out_last && *in_last > *in_first) {
      return (*out_last - *out_first) / (*in_last - *in_first);
    }
    if (in_last && out_last && *in_last > 0) return *out_last / *in_last;
    return std::nullopt;
  }
};

VertexFigures Figures(const std::vector<FlinkCollection>& samples, const VertexId& id) {
  std::vector<std::optional<double>> busy_avg, busy_max, in_rate, out_rate;
  VertexFigures f;
  for (const FlinkCollection& c : samples) {
    auto it = c.sample.vertices.find(id);
    if (it == c.sample.vertices.end()) continue;
    const RawVertexMetrics& m = it->second;
    busy_avg.push_back(m.busy_time_avg);
    busy_max.push_back(m.busy_time_max);
    in_rate.push_back(m.num_records_in_per_second);
    out_rate.push_back(m.num_records_out_per_second);
    if (m.pending_records) {
      if (!f.pending_first) f.pending_first = m.pending_records;
      f.pending_last = m.pending_records;
    }
    if (m.num_records_in && m.num_records_out) {
      if (!f.in_first) {
        f.in_first = m.num_records_in;
        f.out_first = m.num_records_out;
      }
      f.in_last = m.num_records_in;
      f.out_last = m.num_records_out;
    }
  }
  f.busy_avg = Mean(busy_avg);
  f.busy_max = Mean(busy_max);
  f.in_rate = Mean(in_rate);
  f.out_rate = Mean(out_rate);
  return f;
}

bool HasHashInput(const core::JobTopology& t, const VertexId& id) {
  return std::any_of(t.edges.begin(), t.edges.end(),
                     [&](const core::Edge& e) { return e.to == id && e.ship_strategy == "HASH"; });
}

std::string ShipOf(const std::string& strategy) {
  if (strategy == "HASH") return "hash";
  if (strategy == "FORWARD") return "forward";
  return "rebalance";
}

// The only RUNNING job at the URL, or an error that lists what is there.
StatusOr<std::string> OnlyRunningJob(adapters::FlinkMetricsCollector& collector,
                                     const ScenarioCaptureOptions& o) {
  TRIMTAB_ASSIGN_OR_RETURN(Json overview, collector.GetJson(o.rest_url, "/jobs/overview", o.timeout));
  std::vector<std::string> running, all;
  for (const Json& j : overview.value("jobs", Json::array())) {
    const std::string id = j.value("jid", "");
    const std::string line = id + " (" + j.value("name", "") + ", " + j.value("state", "") + ")";
    all.push_back(line);
    if (j.value("state", "") == "RUNNING") running.push_back(id);
  }
  if (running.size() == 1) return running.front();
  std::string listed;
  for (const std::string& l : all) listed += (listed.empty() ? "" : ", ") + l;
  if (running.empty()) {
    return FailedPreconditionError("no RUNNING job at " + o.rest_url +
                                   (all.empty() ? "" : "; jobs there: " + listed));
  }
  return InvalidArgumentError(std::to_string(running.size()) + " RUNNING jobs at " + o.rest_url +
                              ": " + listed + "; name one with --job");
}

// Optional facts about checkpoints: the interval, and the latest completed checkpoint's size
// (in all and per vertex) and duration. Endpoints that fail leave them unknown.
struct CheckpointFacts {
  std::optional<double> interval_ms;
  std::optional<double> state_bytes;
  std::optional<double> duration_ms;
  std::map<VertexId, double> vertex_state_bytes;
};

CheckpointFacts ReadCheckpoints(adapters::FlinkMetricsCollector& collector,
                                const ScenarioCaptureOptions& o, const std::string& job_id) {
  CheckpointFacts f;
  const std::string base = "/jobs/" + job_id + "/checkpoints";
  if (StatusOr<Json> config = collector.GetJson(o.rest_url, base + "/config", o.timeout);
      config.ok() && config->contains("interval") && (*config)["interval"].is_number()) {
    f.interval_ms = (*config)["interval"].get<double>();
  }
  StatusOr<Json> stats = collector.GetJson(o.rest_url, base, o.timeout);
  if (!stats.ok()) return f;
  const Json latest = stats->value("latest", Json::object()).value("completed", Json());
  if (!latest.is_object()) return f;
  if (latest.contains("state_size") && latest["state_size"].is_number()) {
    f.state_bytes = latest["state_size"].get<double>();
  }
  if (latest.contains("end_to_end_duration") && latest["end_to_end_duration"].is_number()) {
    f.duration_ms = latest["end_to_end_duration"].get<double>();
  }
  if (!latest.contains("id") || !latest["id"].is_number_integer()) return f;
  StatusOr<Json> details = collector.GetJson(
      o.rest_url, base + "/details/" + std::to_string(latest["id"].get<int64_t>()), o.timeout);
  if (!details.ok()) return f;
  const Json* tasks = details->contains("tasks") ? &(*details)["tasks"] : nullptr;
  if (!tasks || !tasks->is_object()) return f;
  for (auto it = tasks->begin(); it != tasks->end(); ++it) {
    const Json& task = it.value();
    if (task.is_object() && task.contains("state_size") && task["state_size"].is_number()) {
      f.vertex_state_bytes[it.key()] = task["state_size"].get<double>();
    }
  }
  return f;
}

// Slots per TaskManager, when the TaskManagers list them.
std::optional<int> SlotsPerTaskManager(adapters::FlinkMetricsCollector& collector,
                                       const ScenarioCaptureOptions& o) {
  StatusOr<Json> tms = collector.GetJson(o.rest_url, "/taskmanagers", o.timeout);
  if (!tms.ok()) return std::nullopt;
  for (const Json& tm : tms->value("taskmanagers", Json::array())) {
    if (tm.contains("slotsNumber") && tm["slotsNumber"].is_number_integer()) {
      return tm["slotsNumber"].get<int>();
    }
  }
  return std::nullopt;
}

// One `key: value   # comment` line of a vertex, indented for the vertices list.
void Field(std::string& out, std::string_view key, const std::string& value,
           const std::string& comment = "") {
  std::string line = "      " + std::string(key) + ": " + value;
  if (!comment.empty()) {
    line.resize(std::max<size_t>(line.size() + 2, 40), ' ');
    line += "# " + comment;
  }
  out += line + "\n";
}

// The busiest subtask's share of a keyed vertex's load against the mean, in the simulator's key
// model (sim/key_groups.h) with Zipf exponent `skew`, seeded as the job model seeds vertex
// `vertex_index` of a scenario with kScenarioSeed.
double SimulatedImbalance(int max_parallelism, int parallelism, int vertex_index, double skew) {
  const std::vector<double> shares = sim::SubtaskKeyShares(
      sim::KeyGroupWeights(max_parallelism, skew,
                           sim::HashPair(kScenarioSeed, static_cast<uint64_t>(vertex_index))),
      parallelism);
  return *std::max_element(shares.begin(), shares.end()) * parallelism;
}

// Seconds since the epoch, as Prometheus takes times.
std::string UnixSeconds(TimePoint t) { return FormatFixed(ToUnixMillis(t) / 1000.0, 3); }

// The history as "seconds,rate" rows (seconds from its first point), or an error naming the query.
StatusOr<std::string> FetchRateHistory(const RateHistory& h, TimePoint now) {
  const std::string what = "--rate-query " + h.query;
  if (!h.http) return InternalError(what + ": no HTTP client");
  if (h.step <= Millis(0) || h.span < h.step) {
    return InvalidArgumentError("--history-step: must be positive and within --history");
  }
  // Prometheus answers at most 11,000 points a series.
  if (h.span / h.step > 11000) {
    return InvalidArgumentError("--history-step: " + std::to_string(h.span / h.step) +
                                " points over --history; Prometheus answers at most 11000, so "
                                "take a step of at least " +
                                FormatGeneral(std::ceil(h.span.count() / 11000.0 / 1000), 6) + " s");
  }
  std::string base = h.prometheus_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  TRIMTAB_ASSIGN_OR_RETURN(
      const Json data,
      adapters::PrometheusApiGet(*h.http,
                                 base + "/api/v1/query_range?query=" + http::UrlEncode(h.query) +
                                     "&start=" + UnixSeconds(now - h.span) +
                                     "&end=" + UnixSeconds(now) +
                                     "&step=" + FormatGeneral(h.step.count() / 1000.0, 6),
                                 Millis(30000), what));
  const Json result = data.value("result", Json::array());
  if (!result.is_array() || result.empty()) return NotFoundError(what + ": no series over the span");
  if (result.size() > 1) {
    return InvalidArgumentError(what + ": " + std::to_string(result.size()) +
                                " series; the job's arrival rate must be one (sum(...) them)");
  }
  const Json values = result[0].value("values", Json::array());
  std::string csv = "seconds,rate\n";
  std::optional<double> first;
  size_t rows = 0;
  for (const Json& point : values) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_string()) {
      return FailedPreconditionError(what + ": a point that is not [time, \"value\"]");
    }
    const double t = point[0].get<double>();
    const std::optional<double> rate = adapters::PrometheusSampleValue(point);
    if (!rate || !std::isfinite(*rate)) continue;  // gaps stay gaps
    if (!first) first = t;
    csv += FormatGeneral(t - *first, 10) + "," + FormatGeneral(std::max(0.0, *rate), 8) + "\n";
    ++rows;
  }
  if (rows < 2) return NotFoundError(what + ": fewer than two numbers over the span");
  return csv;
}

}  // namespace

std::optional<double> FitKeySkew(int max_parallelism, int parallelism, int vertex_index,
                                 double observed_imbalance) {
  if (parallelism < 2 || max_parallelism < parallelism || !(observed_imbalance > 0)) {
    return std::nullopt;
  }
  const auto imbalance = [&](double s) {
    return SimulatedImbalance(max_parallelism, parallelism, vertex_index, s);
  };
  if (observed_imbalance < imbalance(0) * kSkewFit) return std::nullopt;
  if (imbalance(kMaxSkew) <= observed_imbalance) return kMaxSkew;
  double lo = 0, hi = kMaxSkew;
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    (imbalance(mid) < observed_imbalance ? lo : hi) = mid;
  }
  return std::round(hi * 1000) / 1000;
}

std::string VertexSlug(std::string_view name) {
  std::string slug;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      slug += static_cast<char>(std::tolower(u));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
    if (slug.size() >= 40) break;
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "vertex" : slug;
}

namespace {

// The samples of one job, a few apart; an error when it is not RUNNING or rescales meanwhile.
struct Sampled {
  std::vector<FlinkCollection> samples;
  std::vector<TimePoint> times;
  // Between the first and the last sample, by the JobManager's clock where it says ("now" in
  // the job details: rates are per second of its time, which a simulated cluster may run faster
  // than ours), else by ours.
  double span_seconds() const {
    const auto& first = samples.front().job.server_now;
    const auto& last = samples.back().job.server_now;
    if (first && last) return std::chrono::duration<double>(*last - *first).count();
    return std::chrono::duration<double>(times.back() - times.front()).count();
  }
};

StatusOr<Sampled> SampleJob(adapters::FlinkMetricsCollector& collector,
                            const ScenarioCaptureOptions& o, const std::string& job_id) {
  const adapters::FlinkJobRef ref{o.rest_url, job_id};
  Sampled out;
  for (int i = 0; i < o.samples; ++i) {
    if (i > 0) {
      if (o.wait) {
        o.wait(o.interval);
      } else {
        o.clock->SleepFor(o.interval);
      }
    }
    const TimePoint now = o.clock->Now();
    TRIMTAB_ASSIGN_OR_RETURN(FlinkCollection c, collector.Collect(ref, now, o.timeout));
    TRIMTAB_RETURN_IF_ERROR(c.MissingMetricsStatus());
    if (c.job.state != "RUNNING") {
      return FailedPreconditionError("job " + job_id + " is " + c.job.state +
                                     ", not RUNNING: its metrics describe no steady processing");
    }
    if (!out.samples.empty()) {
      for (const core::VertexInfo& v : c.job.topology.vertices) {
        const core::VertexInfo* before = out.samples.front().job.topology.Find(v.id);
        if (!before || before->parallelism != v.parallelism) {
          return FailedPreconditionError("job " + job_id + " changed its parallelism while it was "
                                         "sampled (vertex " + v.id + "); capture it again");
        }
      }
    }
    out.samples.push_back(std::move(c));
    out.times.push_back(now);
  }
  return out;
}

// Scenario ids for the vertices: slugs of their names, made unique.
std::map<VertexId, std::string> VertexIds(const core::JobTopology& topology) {
  std::map<VertexId, std::string> slug;
  std::set<std::string> used;
  for (const core::VertexInfo& v : topology.vertices) {
    const std::string base = VertexSlug(v.name.empty() ? v.id : v.name);
    std::string s = base;
    for (int n = 2; used.count(s); ++n) s = base + "-" + std::to_string(n);
    used.insert(s);
    slug[v.id] = s;
  }
  return slug;
}

// What the scenario's vertices are written from.
struct Measured {
  const core::JobTopology* topology = nullptr;
  std::map<VertexId, std::string> ids;
  std::map<VertexId, VertexFigures> figures;
  std::map<VertexId, double> arrival;  // sources: records/s offered
  double total_arrival = 0;
  CheckpointFacts checkpoints;
};

Measured Measure(const Sampled& s, CheckpointFacts checkpoints) {
  Measured m;
  m.topology = &s.samples.back().job.topology;
  m.ids = VertexIds(*m.topology);
  m.checkpoints = std::move(checkpoints);
  const double span = s.span_seconds();
  for (const core::VertexInfo& v : m.topology->vertices) {
    const VertexFigures& f = m.figures[v.id] = Figures(s.samples, v.id);
    if (!m.topology->IsSource(v.id)) continue;
    // What a source reads plus the growth of its backlog.
    double rate = f.in_rate.value_or(f.out_rate.value_or(0));
    if (span > 0 && f.pending_first && f.pending_last) {
      rate += (*f.pending_last - *f.pending_first) / span;
    }
    m.arrival[v.id] = std::max(0.0, rate);
    m.total_arrival += m.arrival[v.id];
  }
  return m;
}

// One entry of the scenario's `job.vertices`.
void WriteVertex(std::string& y, const Measured& m, size_t index) {
  const core::JobTopology& topology = *m.topology;
  const core::VertexInfo& v = topology.vertices[index];
  const VertexFigures& f = m.figures.at(v.id);
  const bool source = topology.IsSource(v.id);
  y += "    - id: " + m.ids.at(v.id) + "\n";
  Field(y, "name", Quote(v.name), "Flink vertex " + v.id);
  Field(y, "parallelism", std::to_string(v.parallelism));
  Field(y, "maxParallelism", std::to_string(v.max_parallelism));
  if (source) {
    if (v.num_partitions) {
      Field(y, "partitions", std::to_string(*v.num_partitions),
            "partitions named by the source's offset gauges");
    } else {
      Field(y, "partitions", std::to_string(v.parallelism), "not reported: one per subtask assumed");
    }
  }
  const double in = f.in_rate.value_or(0);
  const double busy = f.busy_avg.value_or(0);
  if (in > 0 && busy > 0) {
    std::string note = Num(in) + " records/s in at " + Num(busy) + " ms/s busy";
    if (busy < kRoughBusyMsPerSecond) note += " (rough: little work)";
    Field(y, "capacityPerSubtask", Num(in / v.parallelism / (busy / 1000)), note);
  } else {
    Field(y, "capacityPerSubtask", "10000",
          "not measured (no records in or no busy time): a placeholder");
  }
  if (const std::optional<double> selectivity = f.Selectivity();
      selectivity && !topology.Outputs(v.id).empty()) {
    Field(y, "selectivity", Num(*selectivity), "records out per record in");
  }
  if (source) {
    if (m.arrival.size() > 1 && m.total_arrival > 0) {
      Field(y, "rateFactor", Num(m.arrival.at(v.id) / m.total_arrival),
            "its share of the arrival rate");
    }
    if (f.pending_last && *f.pending_last > 0) {
      Field(y, "initialBacklog", Num(*f.pending_last), "pendingRecords at the last sample");
    }
  }
  if (f.busy_max && busy > 0 && HasHashInput(topology, v.id)) {
    const double imbalance = *f.busy_max / busy;
    if (const std::optional<double> skew =
            FitKeySkew(v.max_parallelism, v.parallelism, static_cast<int>(index), imbalance)) {
      Field(y, "keySkew", Num(*skew),
            "fitted: busiest subtask " + FormatGeneral(imbalance, 3) + "x the mean at " +
                std::to_string(v.parallelism) + "; hot keys beyond are a guess");
    }
  }
  if (auto it = m.checkpoints.vertex_state_bytes.find(v.id);
      it != m.checkpoints.vertex_state_bytes.end() && it->second > 0) {
    Field(y, "stateBytes", Num(it->second), "in the latest completed checkpoint");
  }
}

// `job.edges`, and the checkpoint, restart and TaskManager settings.
void WriteEdgesAndSettings(std::string& y, const Measured& m, std::optional<int> slots) {
  y += "  edges:\n";
  for (const core::Edge& e : m.topology->edges) {
    const bool exact = e.ship_strategy == "HASH" || e.ship_strategy == "FORWARD";
    y += "    - {from: " + m.ids.at(e.from) + ", to: " + m.ids.at(e.to) +
         ", ship: " + ShipOf(e.ship_strategy) + "}" +
         (exact ? "" : "   # Flink: " + e.ship_strategy) + "\n";
  }
  const CheckpointFacts& c = m.checkpoints;
  std::string checkpoint;
  if (c.interval_ms) checkpoint += "interval: " + Num(*c.interval_ms / 1000) + " s";
  if (c.state_bytes && c.duration_ms && *c.state_bytes > 0 && *c.duration_ms > 0) {
    const double bandwidth = *c.state_bytes / (*c.duration_ms / 1000);
    checkpoint += std::string(checkpoint.empty() ? "" : ", ") +
                  "bandwidthBytesPerSecond: " + Num(bandwidth);
    y += "  # The latest checkpoint wrote " + Num(*c.state_bytes) + " bytes in " +
         Num(*c.duration_ms / 1000) + " s; a restore is assumed as fast.\n";
    y += "  restart: {restoreBandwidthBytesPerSecond: " + Num(bandwidth) + "}\n";
  }
  if (!checkpoint.empty()) y += "  checkpoint: {" + checkpoint + "}\n";
  if (slots) y += "  taskManager: {slots: " + std::to_string(*slots) + "}\n";
}

// `workload` and `duration`: the rate now, or the history (into *rate_csv when it has a file).
void WriteWorkload(std::string& y, const ScenarioCaptureOptions& o, double arrival_now,
                   const std::optional<std::string>& history, std::string* rate_csv) {
  if (!history) {
    y += "# The arrival rate now (records read plus backlog growth); replace with a profile, e.g. a\n"
         "# CSV of the topic's produce rate: {type: csv, file: rate.csv}, or capture with\n"
         "# --prometheus and --rate-query.\n";
    y += "workload: {type: constant, rate: " + Num(arrival_now) + "}\nduration: 1 d\n";
    return;
  }
  y += "# The input rate over the last " + FormatFlinkDuration(o.history->span) + " from " +
       o.history->prometheus_url + ":\n#   " + o.history->query +
       "\n# (the arrival rate now, for comparison: " + Num(arrival_now) + " records/s).\n";
  if (!o.rate_csv_file.empty()) {
    y += "workload: {type: csv, file: " + Quote(o.rate_csv_file) + ", interpolate: linear}\n";
    *rate_csv = *history;
  } else {
    y += "workload:\n  type: csv\n  interpolate: linear\n  data: |\n";
    for (size_t at = 0; at < history->size();) {
      const size_t nl = history->find('\n', at);
      y += "    " + history->substr(at, nl - at) + "\n";
      at = nl == std::string::npos ? history->size() : nl + 1;
    }
  }
  y += "duration: " + FormatFlinkDuration(o.history->span) + "\n";
}

}  // namespace

StatusOr<CapturedScenario> CaptureScenario(adapters::FlinkMetricsCollector& collector,
                                           const ScenarioCaptureOptions& o) {
  if (!o.clock) return InvalidArgumentError("scenario capture: no clock");
  if (o.samples < 1) return InvalidArgumentError("--samples: must be at least 1");
  std::string job_id = o.job_id;
  if (job_id.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(job_id, OnlyRunningJob(collector, o));
  }
  TRIMTAB_ASSIGN_OR_RETURN(const Sampled sampled, SampleJob(collector, o, job_id));
  std::optional<std::string> history;
  if (o.history) {
    TRIMTAB_ASSIGN_OR_RETURN(history, FetchRateHistory(*o.history, sampled.times.back()));
  }
  const Measured m = Measure(sampled, ReadCheckpoints(collector, o, job_id));
  const adapters::FlinkJobDetails& job = sampled.samples.back().job;
  const size_t n = sampled.samples.size();

  std::string y;
  y += "# Captured by `trimtab scenario from-flink` from " + o.rest_url + "\n# job " + job_id +
       " (" + Quote(job.name) + ") at " + FormatRfc3339(sampled.times.back()) + ", " +
       std::to_string(n) + " sample(s)" +
       (n > 1 ? " over " + FormatGeneral(sampled.span_seconds(), 3) + " s" : "") +
       ".\n# Each figure is an estimate from Flink's own metrics (docs/simulate.md, \"Capturing a\n"
       "# running job\"): check those marked rough, and what Flink cannot report: how hot keys\n"
       "# behave at other parallelisms" +
       (history ? ".\n" : ", and the input's history (the workload below is the rate now).\n");
  y += "name: " + Quote(VertexSlug(job.name.empty() ? job_id : job.name)) + "\n";
  y += "description: " + Quote("Captured from Flink job " + job_id + " (" + job.name + ")") + "\n";
  y += "job:\n  name: " + Quote(job.name.empty() ? job_id : job.name) + "\n  vertices:\n";
  for (size_t index = 0; index < m.topology->vertices.size(); ++index) WriteVertex(y, m, index);
  WriteEdgesAndSettings(y, m, SlotsPerTaskManager(collector, o));
  CapturedScenario captured;
  WriteWorkload(y, o, m.total_arrival, history, &captured.rate_csv);
  y += "step: 5 s\ndecisionInterval: 1 min\nseed: 1\nslo: {lag: 30 s}\n";
  y += "policies: [trimtab, flink-compat, hpa-cpu, static, oracle]\n";
  captured.yaml = std::move(y);
  captured.job_id = job_id;
  captured.job_name = job.name;
  return captured;
}

}  // namespace trimtab::cli
