#include "core/flink/autoscaler_json.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/flink/evaluator.h"
#include "core/scaling_types_json.h"

namespace trimtab::core::flink {
namespace {

Status Expect(bool ok, const std::string& path, std::string_view what) {
  if (ok) return Status::Ok();
  return InvalidArgumentError(path + ": expected " + std::string(what));
}

StatusOr<double> NumberFromJson(const Json& j, const std::string& path) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string() && (j == "Infinity" || j == "-Infinity")) {
    return j == "Infinity" ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
  }
  return InvalidArgumentError(path + ": expected a number, got " + std::string(JsonTypeName(j)));
}

StatusOr<int> PositiveIntFromJson(const Json& j, const std::string& path) {
  if (!j.is_number_integer() || j.get<int64_t>() < 1 || j.get<int64_t>() > 1 << 30) {
    return InvalidArgumentError(path + ": expected a positive integer");
  }
  return static_cast<int>(j.get<int64_t>());
}

Json NumberMapToJson(const std::map<std::string, double>& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = NumberToJson(v);
  return j;
}

Json SampleValuesToJson(const SampleValues& values) {
  Json j = Json::object();
  values.ForEach([&](std::string_view name, double v) { j[std::string(name)] = NumberToJson(v); });
  return j;
}

StatusOr<std::map<std::string, double>> NumberMapFromJson(const Json& j, const std::string& path) {
  TRIMTAB_RETURN_IF_ERROR(Expect(j.is_object(), path, "an object"));
  std::map<std::string, double> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    TRIMTAB_ASSIGN_OR_RETURN(out[it.key()], NumberFromJson(it.value(), JoinPath(path, it.key())));
  }
  return out;
}

StatusOr<SampleValues> SampleValuesFromJson(const Json& j, const std::string& path) {
  using Numbers = std::map<std::string, double>;
  TRIMTAB_ASSIGN_OR_RETURN(const Numbers numbers, NumberMapFromJson(j, path));
  SampleValues out;
  for (const auto& [name, v] : numbers) out.Set(name, v);
  return out;
}

template <typename T, typename F>
StatusOr<std::vector<T>> ArrayFromJson(const Json* j, const std::string& path, F item) {
  std::vector<T> out;
  if (j == nullptr) return out;
  TRIMTAB_RETURN_IF_ERROR(Expect(j->is_array(), path, "an array"));
  for (size_t i = 0; i < j->size(); ++i) {
    TRIMTAB_ASSIGN_OR_RETURN(T v, item((*j)[i], JoinPath(path, i)));
    out.push_back(std::move(v));
  }
  return out;
}

Status OptionalTime(JsonReader& r, std::string_view field, TimePoint* out) {
  if (const Json* v = r.Get(field)) {
    TRIMTAB_ASSIGN_OR_RETURN(*out, TimeFromJson(*v, r.FieldPath(field)));
  }
  return Status::Ok();
}

Status RequiredTime(JsonReader& r, std::string_view field, TimePoint* out) {
  if (!r.Has(field)) return InvalidArgumentError(r.FieldPath(field) + ": required field is missing");
  return OptionalTime(r, field, out);
}

Json SummaryToJson(const ScalingSummary& s) {
  return {{"currentParallelism", s.current_parallelism},
          {"newParallelism", s.new_parallelism},
          {"metrics", core::ToJson(s.metrics)}};
}

StatusOr<CollectedSample> CollectedSampleFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  CollectedSample s;
  TRIMTAB_RETURN_IF_ERROR(RequiredTime(r, "time", &s.time));
  if (const Json* v = r.Get("vertices")) {
    TRIMTAB_RETURN_IF_ERROR(Expect(v->is_object(), r.FieldPath("vertices"), "an object"));
    for (auto it = v->begin(); it != v->end(); ++it) {
      TRIMTAB_ASSIGN_OR_RETURN(s.vertices[it.key()],
                               SampleValuesFromJson(it.value(),
                                                    JoinPath(r.FieldPath("vertices"), it.key())));
    }
  }
  if (const Json* g = r.Get("global")) {
    TRIMTAB_ASSIGN_OR_RETURN(s.global, SampleValuesFromJson(*g, r.FieldPath("global")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return s;
}

StatusOr<ScalingHistoryEntry> HistoryEntryFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  ScalingHistoryEntry e;
  int64_t cur = 0, next = 0;
  TRIMTAB_RETURN_IF_ERROR(RequiredTime(r, "time", &e.time));
  TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("currentParallelism", &cur));
  TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("newParallelism", &next));
  if (const Json* m = r.Get("metrics")) {
    TRIMTAB_ASSIGN_OR_RETURN(e.summary.metrics, MetricMapFromJson(*m, r.FieldPath("metrics")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (cur < 1) return InvalidArgumentError(r.FieldPath("currentParallelism") + ": must be >= 1");
  if (next < 1) return InvalidArgumentError(r.FieldPath("newParallelism") + ": must be >= 1");
  e.summary.current_parallelism = static_cast<int>(cur);
  e.summary.new_parallelism = static_cast<int>(next);
  return e;
}

StatusOr<std::map<VertexId, int>> ParallelismMapFromJson(const Json& j, const std::string& path) {
  TRIMTAB_RETURN_IF_ERROR(Expect(j.is_object(), path, "an object"));
  std::map<VertexId, int> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    TRIMTAB_ASSIGN_OR_RETURN(out[it.key()],
                             PositiveIntFromJson(it.value(), JoinPath(path, it.key())));
  }
  return out;
}

Json ParallelismMapToJson(const std::map<VertexId, int>& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

StatusOr<RawVertexMetrics> RawVertexFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  RawVertexMetrics m;
  if (const Json* busy = r.Get("busyTimeMsPerSecond")) {
    const std::string bpath = r.FieldPath("busyTimeMsPerSecond");
    if (busy->is_number()) {
      m.busy_time_max = m.busy_time_min = m.busy_time_avg = busy->get<double>();
    } else {
      JsonReader br(*busy, bpath);
      TRIMTAB_RETURN_IF_ERROR(br.ExpectObject());
      TRIMTAB_RETURN_IF_ERROR(br.OptionalDouble("max", &m.busy_time_max));
      TRIMTAB_RETURN_IF_ERROR(br.OptionalDouble("min", &m.busy_time_min));
      TRIMTAB_RETURN_IF_ERROR(br.OptionalDouble("avg", &m.busy_time_avg));
      TRIMTAB_RETURN_IF_ERROR(br.NoUnknownFields());
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("accumulatedBusyTime", &m.accumulated_busy_time));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("numRecordsIn", &m.num_records_in));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("numRecordsOut", &m.num_records_out));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("numRecordsInPerSecond", &m.num_records_in_per_second));
  TRIMTAB_RETURN_IF_ERROR(
      r.OptionalDouble("numRecordsOutPerSecond", &m.num_records_out_per_second));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("pendingRecords", &m.pending_records));
  TRIMTAB_RETURN_IF_ERROR(
      r.OptionalDouble("backPressuredTimeMsPerSecond", &m.back_pressured_time_ms_per_second));
  if (const Json* c = r.Get("custom")) {
    TRIMTAB_ASSIGN_OR_RETURN(m.custom, NumberMapFromJson(*c, r.FieldPath("custom")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return m;
}

StatusOr<RawSample> RawSampleFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  RawSample s;
  TRIMTAB_RETURN_IF_ERROR(RequiredTime(r, "time", &s.time));
  if (const Json* v = r.Get("vertices")) {
    TRIMTAB_RETURN_IF_ERROR(Expect(v->is_object(), r.FieldPath("vertices"), "an object"));
    for (auto it = v->begin(); it != v->end(); ++it) {
      TRIMTAB_ASSIGN_OR_RETURN(
          s.vertices[it.key()],
          RawVertexFromJson(it.value(), JoinPath(r.FieldPath("vertices"), it.key())));
    }
  }
  if (const Json* job = r.Get("job")) {
    JsonReader jr(*job, r.FieldPath("job"));
    TRIMTAB_RETURN_IF_ERROR(jr.ExpectObject());
    RawJobMetrics& m = s.job;
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("gcTimeMsPerSecond", &m.gc_time_ms_per_second));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("heapUsed", &m.heap_used));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("heapMax", &m.heap_max));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("managedMemoryUsed", &m.managed_memory_used));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("metaspaceUsed", &m.metaspace_used));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("taskSlotsTotal", &m.task_slots_total));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalDouble("taskSlotsAvailable", &m.task_slots_available));
    TRIMTAB_RETURN_IF_ERROR(
        jr.OptionalDouble("lastCheckpointDurationMs", &m.last_checkpoint_duration_ms));
    if (const Json* c = jr.Get("custom")) {
      TRIMTAB_ASSIGN_OR_RETURN(m.custom, NumberMapFromJson(*c, jr.FieldPath("custom")));
    }
    TRIMTAB_RETURN_IF_ERROR(jr.NoUnknownFields());
  }
  if (const Json* e = r.Get("customErrors")) {
    const std::string epath = r.FieldPath("customErrors");
    TRIMTAB_RETURN_IF_ERROR(Expect(e->is_object(), epath, "an object of strings"));
    for (auto it = e->begin(); it != e->end(); ++it) {
      TRIMTAB_RETURN_IF_ERROR(
          Expect(it.value().is_string(), JoinPath(epath, it.key()), "a string"));
      s.custom_errors[it.key()] = it.value().get<std::string>();
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return s;
}

Json RawSampleToJson(const RawSample& s) {
  Json vertices = Json::object();
  auto put = [](Json* o, const char* k, const std::optional<double>& v) {
    if (v) (*o)[k] = *v;
  };
  for (const auto& [id, m] : s.vertices) {
    Json v = Json::object();
    if (m.busy_time_max && m.busy_time_max == m.busy_time_min &&
        m.busy_time_max == m.busy_time_avg) {
      v["busyTimeMsPerSecond"] = *m.busy_time_max;
    } else {
      Json b = Json::object();
      put(&b, "max", m.busy_time_max);
      put(&b, "min", m.busy_time_min);
      put(&b, "avg", m.busy_time_avg);
      if (!b.empty()) v["busyTimeMsPerSecond"] = b;
    }
    put(&v, "accumulatedBusyTime", m.accumulated_busy_time);
    put(&v, "numRecordsIn", m.num_records_in);
    put(&v, "numRecordsOut", m.num_records_out);
    put(&v, "numRecordsInPerSecond", m.num_records_in_per_second);
    put(&v, "numRecordsOutPerSecond", m.num_records_out_per_second);
    put(&v, "pendingRecords", m.pending_records);
    put(&v, "backPressuredTimeMsPerSecond", m.back_pressured_time_ms_per_second);
    if (!m.custom.empty()) v["custom"] = NumberMapToJson(m.custom);
    vertices[id] = v;
  }
  Json job = Json::object();
  put(&job, "gcTimeMsPerSecond", s.job.gc_time_ms_per_second);
  put(&job, "heapUsed", s.job.heap_used);
  put(&job, "heapMax", s.job.heap_max);
  put(&job, "managedMemoryUsed", s.job.managed_memory_used);
  put(&job, "metaspaceUsed", s.job.metaspace_used);
  put(&job, "taskSlotsTotal", s.job.task_slots_total);
  put(&job, "taskSlotsAvailable", s.job.task_slots_available);
  put(&job, "lastCheckpointDurationMs", s.job.last_checkpoint_duration_ms);
  if (!s.job.custom.empty()) job["custom"] = NumberMapToJson(s.job.custom);
  Json out = {{"time", FormatTime(s.time)}, {"vertices", vertices}};
  if (!job.empty()) out["job"] = job;
  if (!s.custom_errors.empty()) {
    Json errors = Json::object();
    for (const auto& [name, message] : s.custom_errors) errors[name] = message;
    out["customErrors"] = errors;
  }
  return out;
}

StatusOr<DeclaredMetric> DeclaredMetricFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  DeclaredMetric d;
  TRIMTAB_RETURN_IF_ERROR(ReadMetricRequirement(r, &d.requirement));
  if (const Json* c = r.Get("consumers")) {
    const std::string cpath = r.FieldPath("consumers");
    TRIMTAB_RETURN_IF_ERROR(Expect(c->is_array(), cpath, "an array of strings"));
    for (size_t i = 0; i < c->size(); ++i) {
      TRIMTAB_RETURN_IF_ERROR(Expect((*c)[i].is_string(), JoinPath(cpath, i), "a string"));
      d.consumers.insert((*c)[i].get<std::string>());
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return d;
}

Json DeclaredMetricToJson(const DeclaredMetric& d) {
  const MetricRequirement& m = d.requirement;
  Json out = {{"name", m.name},
              {"scope", std::string(MetricScopeName(m.scope))},
              {"source", std::string(MetricSourceKindName(m.source))},
              {"query", m.query},
              {"aggregation", std::string(MetricAggregationName(m.aggregation))}};
  if (!d.consumers.empty()) out["consumers"] = Json(d.consumers);
  return out;
}

Json LogToJson(const DecisionLog& log) {
  Json stages = Json::object();
  for (const char* stage : {"collect", "evaluate", "decide", "shape"}) {
    auto it = log.stages.find(stage);
    stages[stage] = it == log.stages.end() ? Json::array() : Json(it->second);
  }
  Json vertices = Json::object();
  for (const auto& [id, d] : log.vertices) {
    Json v = {{"currentParallelism", d.current_parallelism},
              {"finalParallelism", d.final_parallelism},
              {"outsideUtilizationBound", d.outside_utilization_bound},
              {"reasons", d.reasons}};
    if (d.proposed_parallelism) v["proposedParallelism"] = *d.proposed_parallelism;
    vertices[id] = v;
  }
  Json events = Json::array();
  for (const AutoscalerEvent& e : log.events) {
    events.push_back({{"type", e.type}, {"reason", e.reason}, {"message", e.message}});
  }
  return {{"time", FormatTime(log.time)},
          {"outcome", std::string(CycleOutcomeName(log.outcome))},
          {"stages", stages},
          {"vertices", vertices},
          {"events", events}};
}

}  // namespace

std::string_view CycleOutcomeName(CycleOutcome o) {
  switch (o) {
    case CycleOutcome::kDisabled: return "Disabled";
    case CycleOutcome::kJobNotRunning: return "JobNotRunning";
    case CycleOutcome::kStabilizing: return "Stabilizing";
    case CycleOutcome::kNotEnoughSamples: return "NotEnoughSamples";
    case CycleOutcome::kWindowNotFull: return "WindowNotFull";
    case CycleOutcome::kNoChange: return "NoChange";
    case CycleOutcome::kBlocked: return "Blocked";
    case CycleOutcome::kScale: return "Scale";
  }
  return "?";
}

Json ToJson(const DecisionLog& log) { return LogToJson(log); }

Json NumberToJson(double v) {
  if (std::isinf(v)) return v > 0 ? Json("Infinity") : Json("-Infinity");
  if (std::isnan(v)) return Json(nullptr);
  return Json(v);
}

std::string FormatTime(TimePoint t) {
  const int64_t ms = ToUnixMillis(t);
  const int64_t frac = ((ms % 1000) + 1000) % 1000;
  std::string s = FormatRfc3339(FromUnixMillis(ms - frac));
  if (frac == 0) return s;
  char buf[8];
  std::snprintf(buf, sizeof(buf), ".%03d", static_cast<int>(frac));
  s.insert(s.size() - 1, buf);  // before the trailing 'Z'
  return s;
}

StatusOr<TimePoint> TimeFromJson(const Json& j, const std::string& path) {
  if (j.is_number_integer()) return FromUnixMillis(j.get<int64_t>());
  if (j.is_string()) {
    auto t = ParseRfc3339(j.get<std::string>());
    if (!t.ok()) return InvalidArgumentError(path + ": " + t.status().message());
    return *t;
  }
  return InvalidArgumentError(path + ": expected an RFC 3339 time or Unix milliseconds, got " +
                              std::string(JsonTypeName(j)));
}

namespace {

// {"overrides": {"key": "value"}, "removals": ["key"]} (upstream's configOverrides).
Json ConfigChangesToJson(const ConfigChanges& c) {
  Json overrides = Json::object();
  for (const auto& [k, v] : c.overrides) overrides[k] = v;
  Json removals = Json::array();
  for (const std::string& k : c.removals) removals.push_back(k);
  return {{"overrides", overrides}, {"removals", removals}};
}

StatusOr<ConfigChanges> ConfigChangesFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  ConfigChanges c;
  if (const Json* o = r.Get("overrides")) {
    TRIMTAB_RETURN_IF_ERROR(Expect(o->is_object(), r.FieldPath("overrides"), "an object"));
    for (auto it = o->begin(); it != o->end(); ++it) {
      TRIMTAB_RETURN_IF_ERROR(Expect(it.value().is_string(),
                                     JoinPath(r.FieldPath("overrides"), it.key()), "a string"));
      c.overrides[it.key()] = it.value().get<std::string>();
    }
  }
  if (const Json* rm = r.Get("removals")) {
    TRIMTAB_RETURN_IF_ERROR(Expect(rm->is_array(), r.FieldPath("removals"), "an array"));
    for (size_t i = 0; i < rm->size(); ++i) {
      TRIMTAB_RETURN_IF_ERROR(
          Expect((*rm)[i].is_string(), JoinPath(r.FieldPath("removals"), i), "a string"));
      c.removals.insert((*rm)[i].get<std::string>());
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return c;
}

}  // namespace

Json ToJson(const AutoscalerState& s) {
  Json window = Json::array();
  for (const CollectedSample& c : s.metric_window) {
    Json vertices = Json::object();
    for (const auto& [id, m] : c.vertices) vertices[id] = SampleValuesToJson(m);
    window.push_back({{"time", FormatTime(c.time)},
                      {"vertices", vertices},
                      {"global", SampleValuesToJson(c.global)}});
  }
  Json history = Json::object();
  for (const auto& [id, entries] : s.scaling_history) {
    Json arr = Json::array();
    for (const ScalingHistoryEntry& e : entries) {
      Json item = SummaryToJson(e.summary);
      item["time"] = FormatTime(e.time);
      arr.push_back(std::move(item));
    }
    history[id] = arr;
  }
  Json tracking = Json::array();
  for (const ScalingRecord& r : s.scaling_tracking) {
    Json item = {{"time", FormatTime(r.time)},
                 {"targetParallelism", ParallelismMapToJson(r.target_parallelism)}};
    if (r.restart_duration) item["restartDurationMs"] = r.restart_duration->count();
    if (r.restart_backlog) item["restartBacklogMs"] = r.restart_backlog->count();
    tracking.push_back(std::move(item));
  }
  Json delayed = Json::object();
  for (const auto& [id, d] : s.delayed_scale_down) {
    Json recs = Json::array();
    for (const auto& r : d.recommendations) {
      recs.push_back({{"time", FormatTime(r.time)},
                      {"parallelism", r.parallelism},
                      {"outsideUtilizationBound", r.outside_utilization_bound}});
    }
    delayed[id] = {{"firstTriggerTime", FormatTime(d.first_trigger_time)},
                   {"recommendations", recs}};
  }
  Json behavior = Json::object();
  for (const auto& [id, b] : s.behavior) behavior[id] = hpa::HpaStateToJson(b);
  Json out = {{"metricWindow", window},
          {"scalingHistory", history},
          {"scalingTracking", tracking},
          {"delayedScaleDown", delayed},
          {"behavior", behavior},
          {"parallelismOverrides", ParallelismMapToJson(s.parallelism_overrides)}};
  if (!s.config_overrides.empty()) out["configOverrides"] = ConfigChangesToJson(s.config_overrides);
  return out;
}

StatusOr<AutoscalerState> AutoscalerStateFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  AutoscalerState s;
  TRIMTAB_ASSIGN_OR_RETURN(s.metric_window,
                           ArrayFromJson<CollectedSample>(r.Get("metricWindow"),
                                                          r.FieldPath("metricWindow"),
                                                          CollectedSampleFromJson));
  for (size_t i = 1; i < s.metric_window.size(); ++i) {
    if (s.metric_window[i].time <= s.metric_window[i - 1].time) {
      return InvalidArgumentError(JoinPath(r.FieldPath("metricWindow"), i) +
                                  ".time: samples must be in strictly increasing time order");
    }
  }
  if (const Json* h = r.Get("scalingHistory")) {
    const std::string hpath = r.FieldPath("scalingHistory");
    TRIMTAB_RETURN_IF_ERROR(Expect(h->is_object(), hpath, "an object"));
    for (auto it = h->begin(); it != h->end(); ++it) {
      TRIMTAB_ASSIGN_OR_RETURN(s.scaling_history[it.key()],
                               ArrayFromJson<ScalingHistoryEntry>(&it.value(),
                                                                  JoinPath(hpath, it.key()),
                                                                  HistoryEntryFromJson));
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(
      s.scaling_tracking,
      ArrayFromJson<ScalingRecord>(
          r.Get("scalingTracking"), r.FieldPath("scalingTracking"),
          [](const Json& item, const std::string& p) -> StatusOr<ScalingRecord> {
            JsonReader ir(item, p);
            TRIMTAB_RETURN_IF_ERROR(ir.ExpectObject());
            ScalingRecord rec;
            TRIMTAB_RETURN_IF_ERROR(RequiredTime(ir, "time", &rec.time));
            if (const Json* t = ir.Get("targetParallelism")) {
              TRIMTAB_ASSIGN_OR_RETURN(rec.target_parallelism,
                                       ParallelismMapFromJson(*t, ir.FieldPath("targetParallelism")));
            }
            std::optional<int64_t> ms;
            TRIMTAB_RETURN_IF_ERROR(ir.OptionalInt("restartDurationMs", &ms));
            if (ms) rec.restart_duration = Millis(*ms);
            std::optional<int64_t> backlog_ms;
            TRIMTAB_RETURN_IF_ERROR(ir.OptionalInt("restartBacklogMs", &backlog_ms));
            if (backlog_ms) rec.restart_backlog = Millis(*backlog_ms);
            TRIMTAB_RETURN_IF_ERROR(ir.NoUnknownFields());
            return rec;
          }));
  if (const Json* d = r.Get("delayedScaleDown")) {
    const std::string dpath = r.FieldPath("delayedScaleDown");
    TRIMTAB_RETURN_IF_ERROR(Expect(d->is_object(), dpath, "an object"));
    for (auto it = d->begin(); it != d->end(); ++it) {
      const std::string vpath = JoinPath(dpath, it.key());
      JsonReader vr(it.value(), vpath);
      TRIMTAB_RETURN_IF_ERROR(vr.ExpectObject());
      VertexDelayedScaleDown v;
      TRIMTAB_RETURN_IF_ERROR(RequiredTime(vr, "firstTriggerTime", &v.first_trigger_time));
      TRIMTAB_ASSIGN_OR_RETURN(
          v.recommendations,
          ArrayFromJson<DelayedScaleDownRecommendation>(
              vr.Get("recommendations"), vr.FieldPath("recommendations"),
              [](const Json& item, const std::string& p) -> StatusOr<DelayedScaleDownRecommendation> {
                JsonReader ir(item, p);
                TRIMTAB_RETURN_IF_ERROR(ir.ExpectObject());
                DelayedScaleDownRecommendation rec;
                int64_t par = 0;
                TRIMTAB_RETURN_IF_ERROR(RequiredTime(ir, "time", &rec.time));
                TRIMTAB_RETURN_IF_ERROR(ir.RequiredInt("parallelism", &par));
                TRIMTAB_RETURN_IF_ERROR(
                    ir.OptionalBool("outsideUtilizationBound", &rec.outside_utilization_bound));
                TRIMTAB_RETURN_IF_ERROR(ir.NoUnknownFields());
                if (par < 1) return InvalidArgumentError(ir.FieldPath("parallelism") + ": must be >= 1");
                rec.parallelism = static_cast<int>(par);
                return rec;
              }));
      TRIMTAB_RETURN_IF_ERROR(vr.NoUnknownFields());
      if (v.recommendations.empty()) {
        return InvalidArgumentError(vr.FieldPath("recommendations") + ": must not be empty");
      }
      s.delayed_scale_down[it.key()] = std::move(v);
    }
  }
  if (const Json* b = r.Get("behavior")) {
    const std::string bpath = r.FieldPath("behavior");
    TRIMTAB_RETURN_IF_ERROR(Expect(b->is_object(), bpath, "an object"));
    for (auto it = b->begin(); it != b->end(); ++it) {
      TRIMTAB_ASSIGN_OR_RETURN(s.behavior[it.key()],
                               hpa::HpaStateFromJson(it.value(), JoinPath(bpath, it.key())));
    }
  }
  if (const Json* o = r.Get("parallelismOverrides")) {
    TRIMTAB_ASSIGN_OR_RETURN(s.parallelism_overrides,
                             ParallelismMapFromJson(*o, r.FieldPath("parallelismOverrides")));
  }
  if (const Json* c = r.Get("configOverrides")) {
    TRIMTAB_ASSIGN_OR_RETURN(s.config_overrides,
                             ConfigChangesFromJson(*c, r.FieldPath("configOverrides")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return s;
}

namespace {

// {"nodes": [{"name", "cpuAllocatable", "cpuUsed", "memoryAllocatableBytes",
// "memoryUsedBytes"}]}: the cluster resource view.
StatusOr<ClusterResourceView> ClusterResourcesFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  const Json* nodes = r.Get("nodes");
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (!nodes || !nodes->is_array()) {
    return InvalidArgumentError(r.FieldPath("nodes") + ": required array is missing");
  }
  ClusterResourceView view;
  for (size_t i = 0; i < nodes->size(); ++i) {
    JsonReader nr((*nodes)[i], JoinPath(r.FieldPath("nodes"), i));
    TRIMTAB_RETURN_IF_ERROR(nr.ExpectObject());
    NodeResources n;
    TRIMTAB_RETURN_IF_ERROR(nr.OptionalString("name", &n.name));
    TRIMTAB_RETURN_IF_ERROR(nr.RequiredDouble("cpuAllocatable", &n.cpu_allocatable));
    TRIMTAB_RETURN_IF_ERROR(nr.OptionalDouble("cpuUsed", &n.cpu_used));
    TRIMTAB_RETURN_IF_ERROR(nr.RequiredDouble("memoryAllocatableBytes", &n.memory_allocatable));
    TRIMTAB_RETURN_IF_ERROR(nr.OptionalDouble("memoryUsedBytes", &n.memory_used));
    TRIMTAB_RETURN_IF_ERROR(nr.NoUnknownFields());
    view.nodes.push_back(std::move(n));
  }
  return view;
}

}  // namespace

StatusOr<AutoscalerInput> AutoscalerInputFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  AutoscalerInput in;
  const Json* topology = r.Get("topology");
  if (!topology) return InvalidArgumentError(r.FieldPath("topology") + ": required field is missing");
  TRIMTAB_ASSIGN_OR_RETURN(in.topology, JobTopologyFromJson(*topology, r.FieldPath("topology")));
  if (const Json* conf = r.Get("configuration")) {
    const std::string cpath = r.FieldPath("configuration");
    TRIMTAB_RETURN_IF_ERROR(Expect(conf->is_object(), cpath, "an object of strings"));
    for (auto it = conf->begin(); it != conf->end(); ++it) {
      const Json& v = it.value();
      if (v.is_string()) {
        in.configuration[it.key()] = v.get<std::string>();
      } else if (v.is_number() || v.is_boolean()) {
        in.configuration[it.key()] = v.dump();
      } else {
        return InvalidArgumentError(JoinPath(cpath, it.key()) +
                                    ": expected a string, number or boolean");
      }
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(in.samples, ArrayFromJson<RawSample>(r.Get("samples"),
                                                                r.FieldPath("samples"),
                                                                RawSampleFromJson));
  TRIMTAB_RETURN_IF_ERROR(RequiredTime(r, "now", &in.now));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("jobStatus", &in.job_status));
  if (r.Has("jobRunningSince")) {
    TimePoint t;
    TRIMTAB_RETURN_IF_ERROR(OptionalTime(r, "jobRunningSince", &t));
    in.job_running_since = t;
  }
  if (const Json* res = r.Get("resources")) {
    JsonReader rr(*res, r.FieldPath("resources"));
    TRIMTAB_RETURN_IF_ERROR(rr.ExpectObject());
    TRIMTAB_RETURN_IF_ERROR(rr.OptionalDouble("taskManagerCpu", &in.resources.cpu));
    std::optional<int64_t> mem, slots;
    TRIMTAB_RETURN_IF_ERROR(rr.OptionalInt("taskManagerMemoryBytes", &in.resources.memory_bytes));
    TRIMTAB_RETURN_IF_ERROR(rr.OptionalInt("slotsPerTaskManager", &slots));
    TRIMTAB_RETURN_IF_ERROR(rr.NoUnknownFields());
    if (slots) {
      if (*slots < 1) return InvalidArgumentError(rr.FieldPath("slotsPerTaskManager") + ": must be >= 1");
      in.resources.slots_per_task_manager = static_cast<int>(*slots);
    }
  }
  if (const Json* cluster = r.Get("clusterResources")) {
    TRIMTAB_ASSIGN_OR_RETURN(in.cluster_resources,
                             ClusterResourcesFromJson(*cluster, r.FieldPath("clusterResources")));
  }
  TRIMTAB_ASSIGN_OR_RETURN(in.custom_metrics,
                           ArrayFromJson<DeclaredMetric>(r.Get("customMetrics"),
                                                         r.FieldPath("customMetrics"),
                                                         DeclaredMetricFromJson));
  if (const Json* evaluated = r.Get("evaluatedMetrics")) {
    TRIMTAB_ASSIGN_OR_RETURN(in.evaluated,
                             EvaluatedMetricsFromJson(*evaluated, r.FieldPath("evaluatedMetrics")));
  }
  if (const Json* limits = r.Get("parallelismLimits")) {
    const std::string lpath = r.FieldPath("parallelismLimits");
    TRIMTAB_RETURN_IF_ERROR(Expect(limits->is_object(), lpath, "an object of {min, max}"));
    for (auto it = limits->begin(); it != limits->end(); ++it) {
      JsonReader lr(it.value(), JoinPath(lpath, it.key()));
      TRIMTAB_RETURN_IF_ERROR(lr.ExpectObject());
      std::optional<int64_t> min, max;
      TRIMTAB_RETURN_IF_ERROR(lr.OptionalInt("min", &min));
      TRIMTAB_RETURN_IF_ERROR(lr.OptionalInt("max", &max));
      TRIMTAB_RETURN_IF_ERROR(lr.NoUnknownFields());
      if (!in.topology.Find(it.key())) {
        return InvalidArgumentError(JoinPath(lpath, it.key()) + ": unknown vertex \"" +
                                    it.key() + "\"");
      }
      if (min && (*min < 1 || *min > std::numeric_limits<int>::max())) {
        return InvalidArgumentError(lr.FieldPath("min") + ": must be a positive integer");
      }
      if (max && (*max < 1 || *max > std::numeric_limits<int>::max())) {
        return InvalidArgumentError(lr.FieldPath("max") + ": must be a positive integer");
      }
      if (min && max && *max < *min) {
        return InvalidArgumentError(lr.FieldPath("max") + ": must be at least min " +
                                    std::to_string(*min));
      }
      VertexParallelismLimits& l = in.parallelism_limits[it.key()];
      if (min) l.min = static_cast<int>(*min);
      if (max) l.max = static_cast<int>(*max);
    }
  }
  r.Ignore("state");                     // read by the caller
  r.Ignore("userParallelismOverrides");  // read by eval flink
  r.Ignore("chain");                     // built by the caller (eval flink's command)
  r.Ignore("pluginStates");              // read by eval flink with the chain
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (in.evaluated && !in.samples.empty()) {
    return InvalidArgumentError(r.FieldPath("samples") +
                                ": evaluatedMetrics are given, so nothing is collected; leave "
                                "samples out");
  }
  for (size_t i = 0; i < in.samples.size(); ++i) {
    for (const auto& [id, m] : in.samples[i].vertices) {
      if (!in.topology.Find(id)) {
        return InvalidArgumentError(JoinPath(r.FieldPath("samples"), i) + ".vertices." + id +
                                    ": unknown vertex \"" + id + "\"");
      }
    }
  }
  return in;
}

Json ToJson(const AutoscalerInput& in) {
  Json conf = Json::object();
  for (const auto& [k, v] : in.configuration) conf[k] = v;
  Json samples = Json::array();
  for (const RawSample& s : in.samples) samples.push_back(RawSampleToJson(s));
  Json out = {{"topology", core::ToJson(in.topology)},
              {"configuration", conf},
              {"samples", samples},
              {"now", FormatTime(in.now)},
              {"jobStatus", in.job_status}};
  if (in.job_running_since) out["jobRunningSince"] = FormatTime(*in.job_running_since);
  Json res = {{"slotsPerTaskManager", in.resources.slots_per_task_manager}};
  if (in.resources.cpu) res["taskManagerCpu"] = *in.resources.cpu;
  if (in.resources.memory_bytes) res["taskManagerMemoryBytes"] = *in.resources.memory_bytes;
  out["resources"] = res;
  if (in.cluster_resources) {
    Json nodes = Json::array();
    for (const NodeResources& n : in.cluster_resources->nodes) {
      nodes.push_back({{"name", n.name},
                       {"cpuAllocatable", n.cpu_allocatable},
                       {"cpuUsed", n.cpu_used},
                       {"memoryAllocatableBytes", n.memory_allocatable},
                       {"memoryUsedBytes", n.memory_used}});
    }
    out["clusterResources"] = {{"nodes", nodes}};
  }
  if (!in.custom_metrics.empty()) {
    Json custom = Json::array();
    for (const DeclaredMetric& d : in.custom_metrics) custom.push_back(DeclaredMetricToJson(d));
    out["customMetrics"] = custom;
  }
  if (in.evaluated) {
    out["evaluatedMetrics"] = core::ToJson(*in.evaluated);
  }
  if (!in.parallelism_limits.empty()) {
    Json limits = Json::object();
    for (const auto& [id, l] : in.parallelism_limits) {
      Json v = Json::object();
      if (l.min) v["min"] = *l.min;
      if (l.max) v["max"] = *l.max;
      limits[id] = v;
    }
    out["parallelismLimits"] = limits;
  }
  return out;
}

Json ToJson(const AutoscalerResult& r) {
  Json vertices = Json::object();
  for (const auto& [id, d] : r.log.vertices) {
    Json v = {{"currentParallelism", d.current_parallelism},
              {"finalParallelism", d.final_parallelism}};
    if (d.proposed_parallelism) v["proposedParallelism"] = *d.proposed_parallelism;
    auto rec = r.recommended_parallelism.find(id);
    if (rec != r.recommended_parallelism.end()) v["recommendedParallelism"] = rec->second;
    auto m = r.evaluated.vertices.find(id);
    v["metrics"] = m == r.evaluated.vertices.end() ? Json::object() : core::ToJson(m->second);
    vertices[id] = v;
  }
  return {{"outcome", std::string(CycleOutcomeName(r.log.outcome))},
          {"vertices", vertices},
          {"globalMetrics", core::ToJson(r.evaluated.global)},
          {"scalingSummaries", core::ToJson(r.summaries)},
          {"configOverrides", ConfigChangesToJson(r.config_overrides)},
          {"decisionLog", LogToJson(r.log)},
          {"state", ToJson(r.state)}};
}

}  // namespace trimtab::core::flink
