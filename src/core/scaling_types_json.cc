#include "core/scaling_types_json.h"

#include "core/source_partitions.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace trimtab::core {
namespace {

// JSON has no infinity: +/-inf travel as the strings "Infinity" / "-Infinity" (a scale-down
// threshold is +inf while a job processes backlog).
Json MetricValueToJson(double v) {
  if (std::isinf(v)) return v > 0 ? Json("Infinity") : Json("-Infinity");
  return Json(v);
}

Status MetricValueFromJson(const Json* v, const std::string& path, std::optional<double>* out) {
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (v->is_number()) {
    *out = v->get<double>();
    return Status::Ok();
  }
  if (v->is_string() && (*v == "Infinity" || *v == "-Infinity")) {
    *out = *v == "Infinity" ? std::numeric_limits<double>::infinity()
                            : -std::numeric_limits<double>::infinity();
    return Status::Ok();
  }
  return InvalidArgumentError(path + ": expected a number, \"Infinity\" or \"-Infinity\", got " +
                              std::string(JsonTypeName(*v)));
}

}  // namespace

Json ToJson(const EvaluatedMetric& m) {
  Json j = Json::object();
  if (m.current) j["current"] = MetricValueToJson(*m.current);
  if (m.average) j["average"] = MetricValueToJson(*m.average);
  return j;
}

Json ToJson(const MetricMap& m) {
  Json j = Json::object();
  m.ForEach([&](std::string_view name, const EvaluatedMetric& value) {
    j[std::string(name)] = ToJson(value);
  });
  return j;
}

Json ToJson(const EvaluatedMetrics& m) {
  Json vertices = Json::object();
  for (const auto& [id, metrics] : m.vertices) vertices[id] = ToJson(metrics);
  return Json{{"vertices", vertices}, {"global", ToJson(m.global)}};
}

Json ToJson(const JobTopology& t) {
  Json vertices = Json::array();
  for (const VertexInfo& v : t.vertices) {
    Json jv = {{"id", v.id}, {"parallelism", v.parallelism}, {"maxParallelism", v.max_parallelism}};
    if (!v.name.empty()) jv["name"] = v.name;
    if (v.num_partitions) jv["partitions"] = *v.num_partitions;
    if (v.finished) jv["finished"] = true;
    if (!v.slot_sharing_group.empty()) jv["slotSharingGroup"] = v.slot_sharing_group;
    vertices.push_back(std::move(jv));
  }
  Json edges = Json::array();
  for (const Edge& e : t.edges) {
    edges.push_back({{"from", e.from}, {"to", e.to}, {"shipStrategy", e.ship_strategy}});
  }
  return Json{{"vertices", vertices}, {"edges", edges}};
}

Json ToJson(const ScalingSummaries& s) {
  Json j = Json::object();
  for (const auto& [id, summary] : s) {
    j[id] = {{"currentParallelism", summary.current_parallelism},
             {"newParallelism", summary.new_parallelism},
             {"metrics", ToJson(summary.metrics)}};
  }
  return j;
}

namespace {

StatusOr<EvaluatedMetric> EvaluatedMetricFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  EvaluatedMetric m;
  TRIMTAB_RETURN_IF_ERROR(MetricValueFromJson(r.Get("current"), r.FieldPath("current"), &m.current));
  TRIMTAB_RETURN_IF_ERROR(MetricValueFromJson(r.Get("average"), r.FieldPath("average"), &m.average));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return m;
}

Status ExpectObject(const Json& j, const std::string& path) {
  return JsonReader(j, path).ExpectObject();
}

}  // namespace

StatusOr<MetricMap> MetricMapFromJson(const Json& j, const std::string& path) {
  TRIMTAB_RETURN_IF_ERROR(ExpectObject(j, path));
  MetricMap out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    TRIMTAB_ASSIGN_OR_RETURN(out[it.key()],
                             EvaluatedMetricFromJson(it.value(), JoinPath(path, it.key())));
  }
  return out;
}

StatusOr<EvaluatedMetrics> EvaluatedMetricsFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  EvaluatedMetrics out;
  if (const Json* v = r.Get("vertices")) {
    TRIMTAB_RETURN_IF_ERROR(ExpectObject(*v, r.FieldPath("vertices")));
    for (auto it = v->begin(); it != v->end(); ++it) {
      TRIMTAB_ASSIGN_OR_RETURN(
          out.vertices[it.key()],
          MetricMapFromJson(it.value(), JoinPath(r.FieldPath("vertices"), it.key())));
    }
  }
  if (const Json* g = r.Get("global")) {
    TRIMTAB_ASSIGN_OR_RETURN(out.global, MetricMapFromJson(*g, r.FieldPath("global")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return out;
}

StatusOr<JobTopology> JobTopologyFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  JobTopology t;
  const Json* vertices = r.Get("vertices");
  if (!vertices || !vertices->is_array()) {
    return InvalidArgumentError(r.FieldPath("vertices") + ": required array is missing");
  }
  for (size_t i = 0; i < vertices->size(); ++i) {
    const std::string vpath = JoinPath(r.FieldPath("vertices"), i);
    JsonReader vr((*vertices)[i], vpath);
    TRIMTAB_RETURN_IF_ERROR(vr.ExpectObject());
    VertexInfo v;
    int64_t parallelism = 1, max_parallelism = 128;
    std::optional<int64_t> partitions;
    TRIMTAB_RETURN_IF_ERROR(vr.RequiredString("id", &v.id));
    TRIMTAB_RETURN_IF_ERROR(vr.OptionalString("name", &v.name));
    TRIMTAB_RETURN_IF_ERROR(vr.RequiredInt("parallelism", &parallelism));
    TRIMTAB_RETURN_IF_ERROR(vr.OptionalInt("maxParallelism", &max_parallelism));
    TRIMTAB_RETURN_IF_ERROR(vr.OptionalInt("partitions", &partitions));
    TRIMTAB_RETURN_IF_ERROR(vr.OptionalBool("finished", &v.finished));
    TRIMTAB_RETURN_IF_ERROR(vr.OptionalString("slotSharingGroup", &v.slot_sharing_group));
    // A source's metric names as GET /jobs/:jid/vertices/:vid/metrics lists them: the partitions
    // are counted from them as the operator's collector counts them, unless `partitions` is given.
    if (const Json* names = vr.Get("sourceMetricNames")) {
      const std::string npath = vr.FieldPath("sourceMetricNames");
      if (!names->is_array()) return InvalidArgumentError(npath + ": expected an array of strings");
      std::vector<std::string> list;
      for (size_t k = 0; k < names->size(); ++k) {
        if (!(*names)[k].is_string()) {
          return InvalidArgumentError(JoinPath(npath, k) + ": expected a string");
        }
        list.push_back((*names)[k].get<std::string>());
      }
      if (!partitions) {
        if (const int counted = CountSourcePartitions(list); counted > 0) partitions = counted;
      }
    }
    TRIMTAB_RETURN_IF_ERROR(vr.NoUnknownFields());
    if (v.id.empty()) return InvalidArgumentError(vpath + ".id: must not be empty");
    if (t.Find(v.id)) return InvalidArgumentError(vpath + ".id: duplicate vertex \"" + v.id + "\"");
    if (parallelism < 1) return InvalidArgumentError(vpath + ".parallelism: must be at least 1");
    if (max_parallelism < 1 || max_parallelism > 32768) {
      return InvalidArgumentError(vpath + ".maxParallelism: must be between 1 and 32768");
    }
    if (partitions && *partitions < 1) {
      return InvalidArgumentError(vpath + ".partitions: must be at least 1");
    }
    v.parallelism = static_cast<int>(parallelism);
    v.max_parallelism = static_cast<int>(max_parallelism);
    if (partitions) v.num_partitions = static_cast<int>(*partitions);
    t.vertices.push_back(std::move(v));
  }
  if (const Json* edges = r.Get("edges")) {
    if (!edges->is_array()) return InvalidArgumentError(r.FieldPath("edges") + ": expected array");
    for (size_t i = 0; i < edges->size(); ++i) {
      const std::string epath = JoinPath(r.FieldPath("edges"), i);
      JsonReader er((*edges)[i], epath);
      TRIMTAB_RETURN_IF_ERROR(er.ExpectObject());
      Edge e;
      TRIMTAB_RETURN_IF_ERROR(er.RequiredString("from", &e.from));
      TRIMTAB_RETURN_IF_ERROR(er.RequiredString("to", &e.to));
      TRIMTAB_RETURN_IF_ERROR(er.OptionalString("shipStrategy", &e.ship_strategy));
      TRIMTAB_RETURN_IF_ERROR(er.NoUnknownFields());
      if (!t.Find(e.from)) return InvalidArgumentError(epath + ".from: unknown vertex \"" + e.from + "\"");
      if (!t.Find(e.to)) return InvalidArgumentError(epath + ".to: unknown vertex \"" + e.to + "\"");
      t.edges.push_back(std::move(e));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return t;
}

StatusOr<ScalingSummaries> ScalingSummariesFromJson(const Json& j, const std::string& path) {
  TRIMTAB_RETURN_IF_ERROR(ExpectObject(j, path));
  ScalingSummaries out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string spath = JoinPath(path, it.key());
    JsonReader r(it.value(), spath);
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    ScalingSummary s;
    int64_t current = 0, next = 0;
    TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("currentParallelism", &current));
    TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("newParallelism", &next));
    if (const Json* m = r.Get("metrics")) {
      TRIMTAB_ASSIGN_OR_RETURN(s.metrics, MetricMapFromJson(*m, r.FieldPath("metrics")));
    }
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    if (current < 1) return InvalidArgumentError(spath + ".currentParallelism: must be at least 1");
    if (next < 1) return InvalidArgumentError(spath + ".newParallelism: must be at least 1");
    s.current_parallelism = static_cast<int>(current);
    s.new_parallelism = static_cast<int>(next);
    out[it.key()] = std::move(s);
  }
  return out;
}

}  // namespace trimtab::core
