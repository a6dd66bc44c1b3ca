#include "core/hpa/eval.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/hpa/decision_json.h"
#include "core/hpa/observation_json.h"
#include "core/hpa/spec_json.h"

namespace trimtab::core::hpa {
namespace {

Status ReadReplicas(JsonReader& r, std::string_view field, int32_t* out) {
  int64_t v = *out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt(field, &v));
  if (v < 0 || v > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError(r.FieldPath(field) + ": Invalid value: " + std::to_string(v) +
                                ": must be between 0 and 2147483647");
  }
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

Status ReadSeconds(JsonReader& r, std::string_view field, std::chrono::seconds* out) {
  int64_t v = out->count();
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt(field, &v));
  if (v < 0) {
    return InvalidArgumentError(r.FieldPath(field) + ": Invalid value: " + std::to_string(v) +
                                ": must be greater than or equal to zero");
  }
  *out = std::chrono::seconds(v);
  return Status::Ok();
}

Status ReadNonNegativeDouble(JsonReader& r, std::string_view field, double* out) {
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble(field, out));
  if (*out < 0) {
    return InvalidArgumentError(r.FieldPath(field) + ": Invalid value: " + Json(*out).dump() +
                                ": must be greater than or equal to zero");
  }
  return Status::Ok();
}

Status DecodeControllerOptions(const Json& json, const std::string& path,
                               HpaControllerOptions* out) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(ReadNonNegativeDouble(r, "tolerance", &out->tolerance));
  TRIMTAB_RETURN_IF_ERROR(ReadSeconds(r, "cpuInitializationPeriodSeconds",
                                      &out->replica_calculator.cpu_initialization_period));
  TRIMTAB_RETURN_IF_ERROR(ReadSeconds(r, "initialReadinessDelaySeconds",
                                      &out->replica_calculator.initial_readiness_delay));
  TRIMTAB_RETURN_IF_ERROR(ReadSeconds(r, "downscaleStabilizationWindowSeconds",
                                      &out->normalization.downscale_stabilization_window));
  TRIMTAB_RETURN_IF_ERROR(
      ReadNonNegativeDouble(r, "scaleUpLimitFactor", &out->normalization.scale_up_limit_factor));
  TRIMTAB_RETURN_IF_ERROR(
      ReadNonNegativeDouble(r, "scaleUpLimitMinimum", &out->normalization.scale_up_limit_minimum));
  return r.NoUnknownFields();
}

}  // namespace

StatusOr<EvalDocument> EvalDocumentFromJson(const Json& doc) {
  JsonReader r(doc, "");
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  EvalDocument out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("description", &out.description));
  std::string now;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("now", &now));
  auto now_time = ParseRfc3339(now);
  if (!now_time.ok()) return now_time.status().WithContext("now");
  out.input.now = *now_time;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("namespace", &out.input.observed.namespace_name));
  const Json* spec = r.Get("spec");
  if (!spec) return InvalidArgumentError("spec: required field is missing");
  TRIMTAB_ASSIGN_OR_RETURN(out.input.spec, HpaSpecFromJson(*spec, "spec"));
  if (!r.Has("currentReplicas")) {
    return InvalidArgumentError("currentReplicas: required field is missing");
  }
  TRIMTAB_RETURN_IF_ERROR(ReadReplicas(r, "currentReplicas", &out.input.spec_replicas));
  out.input.status_replicas = out.input.spec_replicas;
  TRIMTAB_RETURN_IF_ERROR(ReadReplicas(r, "statusReplicas", &out.input.status_replicas));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("scaledToZero", &out.input.scaled_to_zero));
  if (const Json* pods = r.Get("pods")) {
    TRIMTAB_ASSIGN_OR_RETURN(out.input.observed.pods, PodsFromJson(*pods, "pods"));
  }
  if (const Json* metrics = r.Get("metrics")) {
    TRIMTAB_RETURN_IF_ERROR(
        MetricValuesFromJson(*metrics, "metrics", out.input.now, &out.input.observed));
  }
  if (const Json* state = r.Get("state")) {
    TRIMTAB_ASSIGN_OR_RETURN(out.state, HpaStateFromJson(*state, "state"));
  }
  if (const Json* controller = r.Get("controller")) {
    TRIMTAB_RETURN_IF_ERROR(DecodeControllerOptions(*controller, "controller", &out.options));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return out;
}

HpaDecision RunEval(const EvalDocument& doc) {
  return Reconcile(doc.input, doc.state, doc.options);
}

StatusOr<std::string> EvalHpa(std::string_view text, std::string_view source, bool summary) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, source));
  auto decoded = EvalDocumentFromJson(doc);
  if (!decoded.ok()) return decoded.status().WithContext(source);
  const HpaDecision decision = RunEval(*decoded);
  if (summary) return DecisionSummary(decision);
  return DecisionToJson(decision).dump(2) + "\n";
}

}  // namespace trimtab::core::hpa
