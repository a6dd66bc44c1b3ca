#include "core/flink/autoscaler.h"

#include <algorithm>
#include <cmath>

#include "common/number_format.h"
#include "core/flink/behavior_shaping.h"
#include "core/flink/custom_metrics.h"
#include "core/flink/evaluator.h"
#include "core/flink/java_number_format.h"
#include "core/flink/memory_tuning.h"
#include "core/flink/vertex_scaler.h"

namespace trimtab::core::flink {
namespace {

std::string Num(double v) { return FormatLogNumber(v); }

}  // namespace

std::string ScalingReportLines(const ScalingSummaries& s) {
  // Appended piece by piece: the chain reports every vetoed cycle, every minute on noisy load.
  // Numbers as upstream's String.format("%.2f") prints them (half up on the shortest digits).
  std::string out;
  for (const auto& [id, summary] : s) {
    const MetricMap& m = summary.metrics;
    out += "\n{ Vertex ID ";
    out += id;
    out += " | Parallelism ";
    out += std::to_string(summary.current_parallelism);
    out += " -> ";
    out += std::to_string(summary.new_parallelism);
    out += " | Processing capacity ";
    out += FormatJavaFixed(Average(m, kMetricTrueProcessingRate), 2);
    out += " -> ";
    out += FormatJavaFixed(Current(m, kMetricExpectedProcessingRate), 2);
    out += " | Target data rate ";
    out += FormatJavaFixed(Average(m, kMetricTargetDataRate), 2);
    out += "}";
  }
  return out;
}

namespace {

// The sources' summed lag in sample `s` (nullopt when a source has none).
std::optional<double> SourcesLag(const JobTopology& t, const CollectedSample& s) {
  double lag = 0;
  for (const VertexInfo& v : t.vertices) {
    if (!t.IsSource(v.id)) continue;
    auto it = s.vertices.find(v.id);
    if (it == s.vertices.end()) return std::nullopt;
    const double source_lag = it->second.Get(CollectedMetric::kLag);
    if (std::isnan(source_lag)) return std::nullopt;
    lag += source_lag;
  }
  return lag;
}

// What a restart left waiting, in time at the arrival rate before it: the sources' lag in the
// first sample since the job runs again, less their lag in the last sample before the restart,
// over their arrival rate (read rate plus lag growth) between the last two samples before it.
// nullopt when any of it is unknown; called before the restart wipes the window.
std::optional<Millis> RestartBacklog(const AutoscalerInput& in, const Window& before) {
  if (before.empty() || !in.job_running_since) return std::nullopt;
  const RawSample* first = nullptr;
  for (const RawSample& s : in.samples) {
    if (s.time >= *in.job_running_since && (!first || s.time < first->time)) first = &s;
  }
  if (!first) return std::nullopt;
  // The arrival rate just before the restart: a rescale often follows a change of rate, which
  // the whole window would average with the rate before it.
  const Window recent(before.end() - std::min<std::ptrdiff_t>(2, std::ssize(before)), before.end());
  double after = 0, rate = 0;
  for (const VertexInfo& v : in.topology.vertices) {
    if (!in.topology.IsSource(v.id)) continue;
    auto it = first->vertices.find(v.id);
    if (it == first->vertices.end() || !it->second.pending_records) return std::nullopt;
    after += *it->second.pending_records;
    rate += GetRate(recent, kMetricNumRecordsIn, v.id) + GetRate(recent, kMetricLag, v.id);
  }
  const std::optional<double> lag_before = SourcesLag(in.topology, before.back());
  if (!lag_before) return std::nullopt;
  const double seconds = (after - *lag_before) / rate;
  if (!(rate > 0) || !std::isfinite(seconds)) return std::nullopt;
  return Millis(std::llround(std::max(0.0, seconds) * 1000));
}

// Fills restart_duration of the newest tracking record once the job runs with its targets.
void UpdateRestartTracking(const AutoscalerInput& in, const AutoscalerOptions& o,
                           AutoscalerState* state, DecisionLog* log) {
  if (state->scaling_tracking.empty() || !in.job_running_since) return;
  ScalingRecord& last = state->scaling_tracking.back();
  // A job that reports running since before the scaling (clock skew, or a rescale the job took
  // without a restart) gets a negative duration recorded, as upstream records it; it counts for
  // nothing in EffectiveRestartTime, and the record takes no later duration.
  if (last.restart_duration) return;
  for (const auto& [vertex, target] : last.target_parallelism) {
    const VertexInfo* v = in.topology.Find(vertex);
    if (v && v->parallelism != target) return;
  }
  last.restart_duration =
      std::chrono::duration_cast<Millis>(*in.job_running_since - last.time);
  log->Note("collect", "restart after scaling at " + FormatRfc3339(last.time) + " took " +
                           FormatFlinkDuration(*last.restart_duration));
  if (o.restart_time_tracking_backlog) {
    last.restart_backlog = RestartBacklog(in, state->metric_window);
    if (last.restart_backlog) {
      log->Note("collect", "it left " + FormatFlinkDuration(*last.restart_backlog) +
                               " of input waiting beyond the lag before it");
    }
  }
}

// "current 0.5, window average 0.45" ("absent" for unknown values).
std::string CurrentAndAverage(const MetricMap& m, const std::string& name) {
  const double current = Current(m, name);
  const double average = Average(m, name);
  return "current " + (std::isnan(current) ? std::string("absent") : Num(current)) +
         ", window average " + (std::isnan(average) ? std::string("absent") : Num(average));
}

// Collect-stage notes on custom metrics: what is declared, and per input sample every declared
// metric that failed to fetch or has no value (absent, never 0).
void NoteCustomCollection(const AutoscalerInput& in, DecisionLog* log) {
  if (in.custom_metrics.empty()) return;
  std::string names;
  for (const DeclaredMetric& d : in.custom_metrics) {
    names += (names.empty() ? "" : ", ") + d.requirement.name + " (" +
             std::string(MetricScopeName(d.requirement.scope)) + ")";
  }
  log->Note("collect", "custom metrics declared: " + names);
  for (const RawSample& s : in.samples) {
    for (const DeclaredMetric& d : in.custom_metrics) {
      const std::string& name = d.requirement.name;
      bool has = s.job.custom.count(name) > 0;
      if (d.requirement.scope == MetricScope::kVertex) {
        has = std::any_of(s.vertices.begin(), s.vertices.end(),
                          [&](const auto& v) { return v.second.custom.count(name) > 0; });
      }
      const std::string where = "custom metric " + name + " in the sample at " +
                                FormatRfc3339(s.time) + ": ";
      auto err = s.custom_errors.find(name);
      if (err != s.custom_errors.end()) {
        log->Note("collect", where + err->second + (has ? "" : "; absent from this sample"));
      } else if (!has) {
        log->Note("collect", where + "no value; absent from this sample");
      }
    }
  }
}

// Returns the blocking reason from quota.cpu / quota.memory, or "". As upstream
// (ScalingExecutor.scalingWouldExceedResourceQuota): per slot-sharing group the largest current
// and new parallelism of the group's *scaled* vertices (0 when none is scaled), summed over the
// groups; TaskManagers = slots / slots per TaskManager (integer division). Vertices without a
// group share the default one.
std::string QuotaBlock(const ScalingSummaries& s, const JobTopology& topology,
                       const AutoscalerOptions& o, const TaskManagerResources& r) {
  if (!o.quota_cpu && !o.quota_memory_bytes) return "";
  const int slots = std::max(1, r.slots_per_task_manager);
  std::map<std::string, std::pair<int, int>> groups;  // group -> (current max, new max)
  for (const VertexInfo& v : topology.vertices) {
    auto& [cur, next] = groups[v.slot_sharing_group];
    auto it = s.find(v.id);
    if (it == s.end()) continue;
    cur = std::max(cur, it->second.current_parallelism);
    next = std::max(next, it->second.new_parallelism);
  }
  int cur_max = 0, new_max = 0;  // summed over the groups
  for (const auto& [group, maxima] : groups) {
    cur_max += maxima.first;
    new_max += maxima.second;
  }
  const int64_t cur_tms = cur_max / slots;
  const int64_t new_tms = new_max / slots;
  if (new_tms <= cur_tms) return "";
  if (o.quota_cpu && r.cpu && static_cast<double>(new_tms) * *r.cpu > *o.quota_cpu) {
    return "cpu quota: " + std::to_string(new_tms) + " TaskManagers x " + Num(*r.cpu) +
           " cores > quota.cpu " + Num(*o.quota_cpu);
  }
  if (o.quota_memory_bytes && r.memory_bytes &&
      new_tms * *r.memory_bytes > *o.quota_memory_bytes) {
    return "memory quota: " + std::to_string(new_tms) + " TaskManagers x " +
           std::to_string(*r.memory_bytes) + " bytes > quota.memory " +
           std::to_string(*o.quota_memory_bytes) + " bytes";
  }
  return "";
}

// scale-down.learned-hold: why the vertex's past scale-downs say the next one will not last, or
// nullopt. A scale-down in the history is undone when the vertex's next entry is a scale-up
// within `min_duration`, and lasted when nothing undid it for that long; younger ones are not
// counted yet.
std::optional<std::string> ShortLivedScaleDowns(const std::vector<ScalingHistoryEntry>& history,
                                                Millis min_duration, TimePoint now) {
  int undone = 0, lasted = 0;
  Millis longest_undone{0};
  for (size_t i = 0; i < history.size(); ++i) {
    const ScalingSummary& s = history[i].summary;
    if (s.new_parallelism >= s.current_parallelism) continue;
    const TimePoint end = i + 1 < history.size() ? history[i + 1].time : now;
    const Millis lived = std::chrono::duration_cast<Millis>(end - history[i].time);
    const bool next_up = i + 1 < history.size() && history[i + 1].summary.new_parallelism >
                                                       history[i + 1].summary.current_parallelism;
    if (lived >= min_duration) {
      ++lasted;
    } else if (next_up) {
      ++undone;
      longest_undone = std::max(longest_undone, lived);
    }
  }
  if (undone < 2 || undone <= lasted) return std::nullopt;
  return std::to_string(undone) + " of its last " + std::to_string(undone + lasted) +
         " scale-downs were undone by a scale-up within " + FormatFlinkDuration(longest_undone) +
         " (shorter than scale-down.learned-hold.min-duration " +
         FormatFlinkDuration(min_duration) + "): a lower level does not last here";
}

// Trims a time-ordered vector to `max_count` newest entries younger than `max_age`.
template <typename T>
void TrimHistory(std::vector<T>* v, size_t max_count, TimePoint oldest_allowed, bool keep_last) {
  auto young = std::find_if(v->begin(), v->end(),
                            [&](const T& e) { return e.time >= oldest_allowed; });
  size_t drop = static_cast<size_t>(young - v->begin());
  if (v->size() - drop > max_count) drop = v->size() - max_count;
  if (keep_last && drop >= v->size() && !v->empty()) drop = v->size() - 1;
  v->erase(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(drop));
}

}  // namespace

namespace {
// EffectiveRestartTime's `source` when the value is the last checkpoint's duration: the decision
// log names it.
constexpr const char kRestartTimeFromCheckpoint[] = "the last checkpoint's duration";
}  // namespace

Millis EffectiveRestartTime(const AutoscalerState& state, const AutoscalerOptions& o,
                            std::string* source) {
  if (o.restart_time_tracking_enabled) {
    std::optional<Millis> longest;
    for (const ScalingRecord& r : state.scaling_tracking) {
      std::optional<Millis> took = r.restart_duration;
      if (took && o.restart_time_tracking_backlog && r.restart_backlog) {
        took = std::max(*took, *r.restart_backlog);
      }
      // Upstream floors a record to whole seconds and ignores one below 0 s: every negative
      // duration.
      if (took && *took < Millis(0)) continue;
      if (took && (!longest || *took > *longest)) longest = took;
    }
    if (longest) {
      if (source) *source = "the longest tracked restart";
      return std::min(*longest, o.restart_time_tracking_limit);
    }
  }
  if (o.restart_time_from_checkpoint) {
    // The newest sample that knows the latest checkpoint's duration.
    for (auto it = state.metric_window.rbegin(); it != state.metric_window.rend(); ++it) {
      const double seconds = it->global.Get(CollectedMetric::kLastCheckpointDuration);
      if (!(seconds >= 0)) continue;  // absent (NaN) or negative
      const Millis checkpoint{std::llround(seconds * 1000)};
      if (checkpoint <= o.restart_time) break;
      if (source) *source = kRestartTimeFromCheckpoint;
      return std::min(checkpoint, std::max(o.restart_time, o.restart_time_tracking_limit));
    }
  }
  if (source) *source = "restart.time";
  return o.restart_time;
}

AutoscalerState CommitScaling(AutoscalerState state, const ScalingSummaries& applied,
                              const JobTopology& topology, TimePoint now,
                              const AutoscalerOptions& o) {
  if (applied.empty()) return state;
  const TimePoint oldest = now - o.history_max_age;
  const size_t max_count = static_cast<size_t>(std::max(0, o.history_max_count));
  ScalingRecord record{now, {}, std::nullopt};
  for (const auto& [vertex, summary] : applied) {
    auto& h = state.scaling_history[vertex];
    h.push_back({now, summary});
    record.target_parallelism[vertex] = summary.new_parallelism;
    if (o.behavior.enabled) {
      RecordBehaviorScaleEvent(o.behavior, &state.behavior[vertex], now,
                               summary.current_parallelism, summary.new_parallelism);
    }
  }
  for (auto it = state.scaling_history.begin(); it != state.scaling_history.end();) {
    TrimHistory(&it->second, max_count, oldest, false);
    if (it->second.empty() || !topology.Find(it->first)) {
      it = state.scaling_history.erase(it);
    } else {
      ++it;
    }
  }
  state.scaling_tracking.push_back(std::move(record));
  TrimHistory(&state.scaling_tracking, std::max<size_t>(1, max_count), oldest, true);
  state.parallelism_overrides.clear();
  for (const VertexInfo& v : topology.vertices) {
    auto it = applied.find(v.id);
    state.parallelism_overrides[v.id] =
        it != applied.end() ? it->second.new_parallelism : v.parallelism;
  }
  state.delayed_scale_down.clear();
  return state;
}

StatusOr<std::shared_ptr<const AutoscalerOptions>> OptionsOf(const AutoscalerInput& in) {
  if (in.parsed_options) return in.parsed_options;
  auto parsed = ParseAutoscalerOptions(in.configuration);
  if (!parsed.ok()) return parsed.status().WithContext("configuration");
  return std::make_shared<const AutoscalerOptions>(*std::move(parsed));
}

StatusOr<AutoscalerResult> RunAutoscalerCycle(const AutoscalerInput& in, AutoscalerState state) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<const AutoscalerOptions> parsed, OptionsOf(in));
  const AutoscalerOptions& o = *parsed;
  AutoscalerResult res;
  DecisionLog& log = res.log;
  log.time = in.now;
  for (const std::string& key : o.ignored_keys) log.Note("collect", "ignored option " + key);
  for (const std::string& warning : o.warnings) log.Note("collect", "warning: " + warning);

  if (!o.enabled) {
    log.outcome = CycleOutcome::kDisabled;
    log.Note("collect", "job.autoscaler.enabled is false: autoscaler state cleared");
    res.state = AutoscalerState{};
    return res;
  }
  for (const VertexInfo& v : in.topology.vertices) {
    log.vertices[v.id].current_parallelism = log.vertices[v.id].final_parallelism = v.parallelism;
  }
  if (in.job_status != "RUNNING") {
    log.outcome = CycleOutcome::kJobNotRunning;
    log.Note("collect", "job status is " + in.job_status + ", not RUNNING: nothing collected");
    res.state = std::move(state);
    return res;
  }

  // 1. Collect.
  TRIMTAB_RETURN_IF_ERROR(ValidateCustomMetrics(in.custom_metrics));
  TRIMTAB_RETURN_IF_ERROR(ValidateCustomSamples(in.custom_metrics, in.samples));
  // Expired tracking records go before the restart time is read from them, every cycle, as
  // upstream trims them on every collection (the newest record always stays).
  TrimHistory(&state.scaling_tracking, static_cast<size_t>(std::max(1, o.history_max_count)),
              in.now - o.history_max_age, true);
  UpdateRestartTracking(in, o, &state, &log);
  TRIMTAB_ASSIGN_OR_RETURN(WindowStatus ws,
                           UpdateMetricWindow(in.samples, in.topology, o, in.job_running_since,
                                              in.now, &state));
  if (ws.restarted) log.Note("collect", "job restarted after the oldest sample: window wiped");
  log.Note("collect", "stored " + std::to_string(ws.added) + " new sample(s), ignored " +
                          std::to_string(ws.ignored) + ", trimmed " +
                          std::to_string(ws.trimmed) + "; window holds " +
                          std::to_string(state.metric_window.size()));
  NoteCustomCollection(in, &log);
  if (ws.stabilizing) {
    log.outcome = CycleOutcome::kStabilizing;
    log.Note("collect", "stabilizing until " + FormatRfc3339(ws.stable_time) +
                            " (stabilization.interval " +
                            FormatFlinkDuration(o.stabilization_interval) + ")");
    res.state = std::move(state);
    return res;
  }
  if (state.metric_window.size() < 2) {
    log.outcome = CycleOutcome::kNotEnoughSamples;
    log.Note("collect", "not enough samples to evaluate: need 2, have " +
                            std::to_string(state.metric_window.size()));
    res.state = std::move(state);
    return res;
  }

  // 2. Evaluate.
  std::string restart_source;
  const Millis restart_time = EffectiveRestartTime(state, o, &restart_source);
  bool backlog = false;
  std::vector<std::string> evaluate_notes;
  bool step_pending = false;
  TRIMTAB_ASSIGN_OR_RETURN(res.evaluated,
                           EvaluateMetrics(in.topology, state.metric_window, o, restart_time,
                                           &backlog, &evaluate_notes, &step_pending));
  res.processing_backlog = backlog;
  SetCurrent(&res.evaluated.global, kMetricRestartTime,
             std::chrono::duration<double>(restart_time).count());
  log.Note("evaluate", "restart time " + FormatFlinkDuration(restart_time) +
                           (restart_source == kRestartTimeFromCheckpoint
                                ? " (" + restart_source + ")"
                                : "") +
                           (backlog ? "; processing backlog: utilization band is [0, 1]" : ""));
  for (std::string& note : evaluate_notes) log.Note("evaluate", std::move(note));
  for (const VertexInfo& v : in.topology.vertices) {
    const MetricMap& m = res.evaluated.vertices.at(v.id);
    // "<id>: TPR t, target rate r, catch-up rate c, load l, band [up, down]", appended in place:
    // one note per vertex every cycle.
    const std::pair<const char*, double> parts[] = {
        {": TPR ", Average(m, kMetricTrueProcessingRate)},
        {", target rate ", Average(m, kMetricTargetDataRate)},
        {", catch-up rate ", Current(m, kMetricCatchUpDataRate)},
        {", load ", Average(m, kMetricLoad)},
        {", band [", Current(m, kMetricScaleUpRateThreshold)},
        {", ", Current(m, kMetricScaleDownRateThreshold)},
    };
    std::string note = v.id;
    for (const auto& [label, value] : parts) {
      note += label;
      note += Num(value);
    }
    note += "]";
    log.Note("evaluate", std::move(note));
  }
  EvaluateCustomMetrics(in.custom_metrics, in.topology, state.metric_window, &res.evaluated);
  for (const DeclaredMetric& d : in.custom_metrics) {
    const std::string& name = d.requirement.name;
    if (d.requirement.scope != MetricScope::kVertex) {
      log.Note("evaluate", "custom " + name + ": " + CurrentAndAverage(res.evaluated.global, name));
      continue;
    }
    std::string per_vertex;
    for (const VertexInfo& v : in.topology.vertices) {
      per_vertex += (per_vertex.empty() ? "" : "; ") + v.id + " " +
                    CurrentAndAverage(res.evaluated.vertices[v.id], name);
    }
    log.Note("evaluate", "custom " + name + ": " + per_vertex);
  }
  // Early scale-up (trimtab): a job that falls behind right after a (re)start need not wait for
  // the whole window; scale-downs still do.
  std::optional<std::string> early;
  if (!ws.fully_collected) {
    early = EarlyScaleUpReason(in.topology, state.metric_window, ws.stable_time, o);
    const std::string not_full =
        "metric window not full until " + FormatRfc3339(ws.window_full_time);
    if (!early) {
      log.outcome = CycleOutcome::kWindowNotFull;
      log.Note("evaluate", not_full + ": no scaling decision yet");
      res.state = std::move(state);
      return res;
    }
    log.Note("evaluate", not_full + ", but " + *early + ": scale-ups only (early-scale-up)");
  }

  if (step_pending) {
    // A rescale sized from a window average that a step has made stale would be followed by a
    // second one a window later; one more interval tells a step from a noisy minute.
    log.outcome = CycleOutcome::kNoChange;
    log.Note("decide", "a source's input may have stepped: no scaling decision until the next "
                       "interval confirms it (step-detection)");
    res.state = std::move(state);
    return res;
  }

  // 3. Decide.
  const double gc = Current(res.evaluated.global, kMetricGcPressure);
  const double heap = Average(res.evaluated.global, kMetricHeapMaxUsageRatio);
  std::string pressure;
  if (gc > o.gc_pressure_threshold) {
    pressure = "GC pressure " + Num(gc) + " > " + Num(o.gc_pressure_threshold);
    // Keyed on the kind of pressure, not the number, which moves every cycle (upstream too).
    log.events.push_back({"Normal", "MemoryPressure",
                          "GC Pressure " + Num(gc) +
                              " is above the allowed limit for scaling operations. Please adjust "
                              "the available memory manually.",
                          "gcPressure"});
  } else if (heap > o.heap_usage_threshold) {
    pressure = "heap usage " + Num(heap) + " > " + Num(o.heap_usage_threshold);
    log.events.push_back({"Normal", "MemoryPressure",
                          "Heap Usage " + Num(heap) +
                              " is above the allowed limit for scaling operations. Please adjust "
                              "the available memory manually.",
                          "heapUsage"});
  }
  if (!pressure.empty()) {
    log.outcome = CycleOutcome::kBlocked;
    log.Note("decide", "blocked: " + pressure);
    for (const VertexInfo& v : in.topology.vertices) {
      log.vertices[v.id] = {v.parallelism, std::nullopt, v.parallelism, false,
                            {"blocked: " + pressure}};
    }
    res.state = std::move(state);
    return res;
  }

  ScalingSummaries proposals;
  bool any_outside = false;
  // An early decision leaves the delayed scale-downs as they were: it works on a copy.
  std::map<VertexId, VertexDelayedScaleDown> scratch;
  if (early) scratch = state.delayed_scale_down;
  std::map<VertexId, VertexDelayedScaleDown>* delayed =
      early ? &scratch : &state.delayed_scale_down;
  for (const VertexInfo& v : in.topology.vertices) {
    VertexDecision& d = log.vertices[v.id];
    d.current_parallelism = d.final_parallelism = v.parallelism;
    if (v.finished) {
      d.reasons.push_back("finished vertex: not scaled");
      continue;
    }
    if (o.vertex_exclude_ids.count(v.id)) {
      d.reasons.push_back("excluded by job.autoscaler.vertex.exclude.ids");
      continue;
    }
    bool hash = false;
    for (const Edge& e : in.topology.edges) hash = hash || (e.to == v.id && e.ship_strategy == "HASH");
    MetricMap& metrics = res.evaluated.vertices.at(v.id);
    auto hit = state.scaling_history.find(v.id);
    VertexScalingInput vin{v.id, hash, hit == state.scaling_history.end() ? nullptr : &hit->second,
                           restart_time, in.now};
    ParallelismChange c = ComputeScaleTargetParallelism(o, vin, &metrics, delayed, &log.events);
    d.reasons.push_back(c.reason);
    if (!c.change) continue;
    if (early && c.new_parallelism < v.parallelism) {
      d.reasons.push_back("not applied: a scale-down waits for the full metric window");
      continue;
    }
    if (o.scale_down_learned_hold > Millis(0) && c.new_parallelism < v.parallelism &&
        hit != state.scaling_history.end()) {
      if (std::optional<std::string> why =
              ShortLivedScaleDowns(hit->second, o.scale_down_learned_hold, in.now)) {
        d.reasons.push_back("not applied: " + *why + " (scale-down.learned-hold)");
        continue;
      }
    }
    d.proposed_parallelism = c.new_parallelism;
    d.outside_utilization_bound = c.outside_utilization_bound;
    any_outside = any_outside || c.outside_utilization_bound;
    proposals[v.id] = {v.parallelism, c.new_parallelism, metrics};
  }
  // Shaping's behavior rules, with the scale-down window stretched to a few restart times
  // (scale-down.restart-time-factor).
  const BehaviorOptions* behavior = &o.behavior;
  std::optional<BehaviorOptions> stretched;
  Millis stretched_floor{0};
  if (o.behavior.enabled && o.scale_down_restart_time_factor > 0) {
    // A scale-down is wanted for a few restart times before it is worth a restart.
    const Millis floor{std::llround(o.scale_down_restart_time_factor *
                                    static_cast<double>(restart_time.count()))};
    if (floor > o.behavior.scale_down.stabilization_window.value_or(Millis(0))) {
      stretched = o.behavior;
      stretched->scale_down.stabilization_window = floor;
      behavior = &*stretched;
      stretched_floor = floor;
    }
  }
  // scale-down.lasting-evidence: a cycle that changes nothing still tells the behavior history
  // that every vertex wanted its current parallelism.
  const auto record_current = [&](const char* why) {
    if (!o.behavior.enabled || !o.scale_down_lasting_evidence || early) return;
    for (const VertexInfo& v : in.topology.vertices) {
      if (v.finished || o.vertex_exclude_ids.count(v.id)) continue;
      (void)ShapeWithBehavior(*behavior, &state.behavior[v.id], v.parallelism, v.parallelism,
                              in.now);
    }
    log.Note("shape", std::string("every vertex's current parallelism recorded as its "
                                  "recommendation (") +
                          why + "; scale-down.lasting-evidence)");
  };
  if (proposals.empty()) {
    log.outcome = CycleOutcome::kNoChange;
    log.Note("decide", "All job vertices are currently running at their target parallelism.");
    record_current("no change wanted");
    res.state = std::move(state);
    return res;
  }
  if (!any_outside) {
    log.outcome = CycleOutcome::kNoChange;
    log.Note("decide", "All vertex processing rates are within target.");
    for (const auto& [id, p] : proposals) {
      log.vertices[id].reasons.push_back("not applied: every changed vertex is within its "
                                         "utilization band");
    }
    record_current("within the utilization band");
    res.state = std::move(state);
    return res;
  }
  for (const VertexInfo& v : in.topology.vertices) {
    auto it = proposals.find(v.id);
    const int rec = it != proposals.end() ? it->second.new_parallelism : v.parallelism;
    res.recommended_parallelism[v.id] = rec;
    SetCurrent(&res.evaluated.vertices.at(v.id), kMetricRecommendedParallelism, rec);
    if (it != proposals.end()) {
      SetCurrent(&it->second.metrics, kMetricRecommendedParallelism, rec);
    }
  }
  log.Note("decide", "recommended changes for " + std::to_string(proposals.size()) +
                         " vertex(es)");

  // 4. Shape: behavior rules, then blocking.
  if (stretched) {
    log.Note("shape", "scale-down stabilization window " + FormatFlinkDuration(stretched_floor) +
                          " (" + Num(o.scale_down_restart_time_factor) + " x restart time " +
                          FormatFlinkDuration(restart_time) + ")");
  }
  ScalingSummaries shaped;
  for (auto& [id, summary] : proposals) {
    VertexDecision& d = log.vertices[id];
    int allowed = summary.new_parallelism;
    if (o.behavior.enabled) {
      BehaviorShapeResult b = ShapeWithBehavior(*behavior, &state.behavior[id],
                                                summary.current_parallelism,
                                                summary.new_parallelism, in.now);
      allowed = b.parallelism;
      for (std::string& r : b.reasons) d.reasons.push_back(std::move(r));
    }
    if (allowed == summary.current_parallelism) continue;
    d.final_parallelism = allowed;
    summary.new_parallelism = allowed;
    shaped[id] = summary;
  }
  if (o.behavior.enabled) {
    // Vertices without a change still record their recommendation for stabilization.
    for (const VertexInfo& v : in.topology.vertices) {
      if (!proposals.count(v.id) && !v.finished && !o.vertex_exclude_ids.count(v.id)) {
        (void)ShapeWithBehavior(*behavior, &state.behavior[v.id], v.parallelism, v.parallelism,
                                in.now);
      }
    }
  }
  if (shaped.empty()) {
    log.outcome = CycleOutcome::kNoChange;
    log.Note("shape", "behavior rules hold every vertex at its current parallelism");
    res.state = std::move(state);
    return res;
  }

  std::string blocked_by;
  if (!o.scaling_enabled) {
    blocked_by = std::string(kAutoscalerPrefix) + "scaling.enabled:false";
  } else if (const ExcludedPeriod* p = FindExcludedPeriod(
                 o.excluded_periods,
                 std::chrono::duration_cast<Millis>(in.now.time_since_epoch()).count())) {
    blocked_by = std::string(kAutoscalerPrefix) + "excluded.periods:" + o.excluded_periods_text;
    log.Note("shape", "now is inside excluded period \"" + p->text + "\"");
  }
  if (!blocked_by.empty()) {
    log.outcome = CycleOutcome::kBlocked;
    log.Note("shape", "blocked: scaling execution disabled by config " + blocked_by);
    log.events.push_back({"Normal", "ScalingReport",
                          "Scaling execution disabled by config " + blocked_by +
                              ", recommended parallelism change:" + ScalingReportLines(shaped)});
    for (const auto& [id, s] : shaped) {
      log.vertices[id].final_parallelism = s.current_parallelism;
      log.vertices[id].reasons.push_back("blocked: " + blocked_by);
    }
    res.state = std::move(state);
    return res;
  }
  // Memory tuning: recommended (event) on every scaling that got this far, applied with
  // memory.tuning.enabled; the resource checks then size TaskManagers with the tuned memory.
  const MemoryTuningResult tuning = TuneTaskManagerMemory(
      {.configuration = &in.configuration,
       .options = &o,
       .evaluated = &res.evaluated,
       .topology = &in.topology,
       .summaries = &shaped,
       .task_manager_memory = in.resources.memory_bytes,
       .slots_per_task_manager = in.resources.slots_per_task_manager});
  if (o.memory_tuning_enabled || tuning.event) log.Note("shape", tuning.note);
  if (tuning.event) log.events.push_back(*tuning.event);
  TaskManagerResources tm = in.resources;
  if (auto it = tuning.applied.overrides.find("taskmanager.memory.process.size");
      it != tuning.applied.overrides.end()) {
    if (StatusOr<int64_t> bytes = ParseFlinkMemorySize(it->first, it->second); bytes.ok()) {
      tm.memory_bytes = *bytes;
    }
  }
  if (in.cluster_resources) {
    // Upstream blocks silently (no event) when the TaskManagers would not fit.
    const double used = Current(res.evaluated.global, kMetricNumTaskSlotsUsed);
    const std::optional<std::string> full = ClusterResourceBlock(
        *in.cluster_resources, in.topology, shaped,
        std::isnan(used) ? std::nullopt : std::optional<int>(static_cast<int>(used)),
        tm.slots_per_task_manager, tm.cpu, tm.memory_bytes);
    if (full) {
      log.outcome = CycleOutcome::kBlocked;
      log.Note("shape", "blocked: " + *full);
      for (const auto& [id, s] : shaped) {
        log.vertices[id].final_parallelism = s.current_parallelism;
        log.vertices[id].reasons.push_back("blocked: " + *full);
      }
      res.state = std::move(state);
      return res;
    }
  }
  if (std::string quota = QuotaBlock(shaped, in.topology, o, tm); !quota.empty()) {
    log.outcome = CycleOutcome::kBlocked;
    log.Note("shape", "blocked: " + quota);
    log.events.push_back({"Warning", "ResourceQuotaReached",
                          "Resource usage is above the allowed limit for scaling operations. "
                          "Please adjust the resource quota manually."});
    for (const auto& [id, s] : shaped) {
      log.vertices[id].final_parallelism = s.current_parallelism;
      log.vertices[id].reasons.push_back("blocked: " + quota);
    }
    res.state = std::move(state);
    return res;
  }

  log.outcome = CycleOutcome::kScale;
  log.events.push_back({"Normal", "ScalingReport",
                        "Scaling execution enabled, begin scaling vertices:" +
                            ScalingReportLines(shaped)});
  log.Note("shape", std::to_string(shaped.size()) + " vertex change(s) ready for the plugin chain");
  res.summaries = shaped;
  res.config_overrides = tuning.applied;
  res.state = in.commit ? CommitScaling(std::move(state), shaped, in.topology, in.now, o)
                        : std::move(state);
  // Every executed scaling stores its memory tuning, an empty one too (upstream
  // storeConfigChanges).
  if (in.commit) res.state.config_overrides = res.config_overrides;
  return res;
}

}  // namespace trimtab::core::flink
