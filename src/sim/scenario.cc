#include "sim/scenario.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/job_library.h"
#include "sim/parse_util.h"

namespace trimtab::sim {

namespace {

bool IsSingleProfile(const Json& json) { return json.is_number() || (json.is_object() && json.contains("type")); }

Status ParseWorkload(const Json& json, const std::string& path, const ProfileParseOptions& po,
                     Scenario* s) {
  std::vector<VertexId> sources;
  for (const VertexSpec& v : s->job.vertices) {
    if (v.partitions > 0) sources.push_back(v.id);
  }
  if (IsSingleProfile(json)) {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, ParseRateProfile(json, path, po));
    std::shared_ptr<const RateProfile> shared = std::move(p);
    for (const VertexId& id : sources) s->workload[id] = shared;
    return Status::Ok();
  }
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::shared_ptr<const RateProfile> fallback;
  if (const Json* d = r.Get("default")) {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, ParseRateProfile(*d, r.FieldPath("default"), po));
    fallback = std::move(p);
  }
  for (const VertexId& id : sources) {
    if (const Json* j = r.Get(id)) {
      TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, ParseRateProfile(*j, r.FieldPath(id), po));
      s->workload[id] = std::move(p);
    } else if (fallback) {
      s->workload[id] = fallback;
    } else {
      return InvalidArgumentError(r.FieldPath(id) + ": no profile for source \"" + id +
                                  "\" (add it or a \"default\")");
    }
  }
  const Status unknown = r.NoUnknownFields();
  if (!unknown.ok()) return InvalidArgumentError(unknown.message() + " (not a source vertex of the job)");
  return Status::Ok();
}

Status ParsePolicies(const Json* json, const std::string& path, Scenario* s) {
  if (!json) {
    s->policies = {{"static", std::make_shared<Json>()}, {"oracle", std::make_shared<Json>()}};
    return Status::Ok();
  }
  if (!json->is_array() || json->empty()) return InvalidArgumentError(path + ": expected a non-empty list");
  for (size_t i = 0; i < json->size(); ++i) {
    const Json& item = (*json)[i];
    const std::string p = JoinPath(path, i);
    PolicySpec spec;
    if (item.is_string()) {
      spec.name = item.get<std::string>();
      spec.config = std::make_shared<Json>();
    } else {
      JsonReader r(item, p);
      TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
      TRIMTAB_RETURN_IF_ERROR(r.RequiredString("name", &spec.name));
      const Json* config = r.Get("config");
      spec.config = std::make_shared<Json>(config ? *config : Json());
      TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    }
    for (const PolicySpec& other : s->policies) {
      if (other.name == spec.name) return InvalidArgumentError(p + ": duplicate policy \"" + spec.name + "\"");
    }
    s->policies.push_back(std::move(spec));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Scenario> ParseScenario(const Json& json, const ScenarioParseOptions& options) {
  JsonReader r(json, "");
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  Scenario s;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &s.name));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("description", &s.description));
  int64_t seed = 1;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("seed", &seed));
  s.seed = static_cast<uint64_t>(seed);
  const Json* job = r.Get("job");
  if (!job) return InvalidArgumentError("job: required field is missing");
  if (job->is_object() && job->contains("library")) {
    TRIMTAB_ASSIGN_OR_RETURN(s.job, ParseLibraryJob(*job, "job"));
  } else {
    TRIMTAB_ASSIGN_OR_RETURN(s.job, ParseJobSpec(*job, "job"));
  }
  TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "duration", &s.duration_seconds));
  TRIMTAB_RETURN_IF_ERROR(CheckPositive("duration", s.duration_seconds));
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "step", &s.step_seconds));
  TRIMTAB_RETURN_IF_ERROR(CheckRange("step", s.step_seconds, 0.001, 3600));
  if (std::fabs(s.step_seconds * 1000 - std::round(s.step_seconds * 1000)) > 1e-9) {
    return InvalidArgumentError("step: must be a whole number of milliseconds");
  }
  if (s.duration_seconds / s.step_seconds > 1e9) return InvalidArgumentError("duration: more than 1e9 steps");
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "decisionInterval", &s.decision_interval_seconds));
  TRIMTAB_RETURN_IF_ERROR(CheckPositive("decisionInterval", s.decision_interval_seconds));
  if (const Json* slo = r.Get("slo")) {
    JsonReader sr(*slo, "slo");
    TRIMTAB_RETURN_IF_ERROR(sr.ExpectObject());
    TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(sr, "lag", &s.slo_lag_seconds));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative("slo.lag", s.slo_lag_seconds));
    TRIMTAB_RETURN_IF_ERROR(sr.NoUnknownFields());
  }
  const Json* workload = r.Get("workload");
  if (!workload) return InvalidArgumentError("workload: required field is missing");
  const ProfileParseOptions po{.seed = s.seed, .base_dir = options.base_dir};
  TRIMTAB_RETURN_IF_ERROR(ParseWorkload(*workload, "workload", po, &s));
  TRIMTAB_RETURN_IF_ERROR(ParsePolicies(r.Get("policies"), "policies", &s));
  if (const Json* cps = r.Get("changePoints")) {
    if (!cps->is_array()) return InvalidArgumentError("changePoints: expected a list");
    for (size_t i = 0; i < cps->size(); ++i) {
      TRIMTAB_ASSIGN_OR_RETURN(double t, ParseSecondsValue((*cps)[i], JoinPath("changePoints", i)));
      s.change_points.push_back(t);
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  for (const auto& [id, profile] : s.workload) {
    for (double t : SortedChangePoints(*profile, s.duration_seconds)) s.change_points.push_back(t);
  }
  std::sort(s.change_points.begin(), s.change_points.end());
  s.change_points.erase(std::unique(s.change_points.begin(), s.change_points.end()), s.change_points.end());
  std::erase_if(s.change_points, [&](double t) { return t <= 0 || t >= s.duration_seconds; });
  return s;
}

StatusOr<Scenario> LoadScenarioFile(const std::string& path) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  TRIMTAB_ASSIGN_OR_RETURN(Json json, ParseYaml(text, path));
  const size_t slash = path.find_last_of('/');
  ScenarioParseOptions options{.base_dir = slash == std::string::npos ? "." : path.substr(0, slash)};
  StatusOr<Scenario> s = ParseScenario(json, options);
  if (!s.ok()) return s.status().WithContext(path);
  return s;
}

}  // namespace trimtab::sim
