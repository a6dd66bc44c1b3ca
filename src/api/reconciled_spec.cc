#include "api/reconciled_spec.h"

#include <nlohmann/json.hpp>

namespace trimtab::api {

std::string SerializeSpecWithMeta(const Json& spec, const ReconciliationMeta& meta) {
  Json m = Json::object();
  m["apiVersion"] = meta.api_version;
  m["firstDeployment"] = meta.first_deployment;
  return "{\"spec\":" + spec.dump() + ",\"resource_metadata\":" + m.dump() + "}";
}

StatusOr<SpecWithMeta> ParseSpecWithMeta(std::string_view text) {
  if (text.empty()) return NotFoundError("no recorded spec");
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseJson(text, "recorded spec"));
  if (!doc.is_object()) {
    return InvalidArgumentError("recorded spec: expected a JSON object, got " +
                                std::string(JsonTypeName(doc)));
  }
  SpecWithMeta out;
  auto meta_it = doc.find("resource_metadata");
  if (meta_it == doc.end()) {
    doc.erase("apiVersion");
    out.spec = std::move(doc);
    return out;
  }
  ReconciliationMeta meta;
  JsonReader r(*meta_it, "resource_metadata");
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("apiVersion", &meta.api_version));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("firstDeployment", &meta.first_deployment));
  out.meta = meta;
  auto spec_it = doc.find("spec");
  out.spec = spec_it == doc.end() ? Json::object() : *spec_it;
  return out;
}

StatusOr<FlinkDeploymentSpec> ParseRecordedDeploymentSpec(std::string_view text) {
  TRIMTAB_ASSIGN_OR_RETURN(SpecWithMeta parsed, ParseSpecWithMeta(text));
  return DecodeFlinkDeploymentSpec(parsed.spec, "lastReconciledSpec.spec");
}

StatusOr<FlinkSessionJobSpec> ParseRecordedSessionJobSpec(std::string_view text) {
  TRIMTAB_ASSIGN_OR_RETURN(SpecWithMeta parsed, ParseSpecWithMeta(text));
  return DecodeFlinkSessionJobSpec(parsed.spec, "lastReconciledSpec.spec");
}

std::optional<JobState> RecordedJobState(std::string_view text) {
  StatusOr<SpecWithMeta> parsed = ParseSpecWithMeta(text);
  if (!parsed.ok() || !parsed->spec.is_object()) return std::nullopt;
  auto job = parsed->spec.find("job");
  if (job == parsed->spec.end() || !job->is_object()) return std::nullopt;
  auto state = job->find("state");
  if (state == job->end() || !state->is_string()) return JobState::kRunning;
  StatusOr<JobState> s = ParseJobState(state->get<std::string>());
  if (!s.ok()) return std::nullopt;
  return *s;
}

}  // namespace trimtab::api
