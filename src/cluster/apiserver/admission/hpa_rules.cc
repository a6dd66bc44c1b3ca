#include "cluster/apiserver/admission/hpa_rules.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/api_errors.h"
#include "core/hpa/spec_json.h"

namespace trimtab::cluster {
namespace {

Json& Obj(Json& parent, const char* field) {
  Json& v = parent[field];
  if (!v.is_object()) v = Json::object();
  return v;
}

void SetIfAbsent(Json& object, const char* field, Json value) {
  if (!object.contains(field) || object[field].is_null()) object[field] = std::move(value);
}

Json Policy(const char* type, int value) {
  return {{"type", type}, {"value", value}, {"periodSeconds", 15}};
}

// Removes the member named by a field path ("spec.metrics[0].resource.target.bogus"); false
// when the path does not lead to an object member.
bool RemovePath(Json* root, const std::string& path) {
  Json* cur = root;
  size_t i = 0;
  std::string last;
  Json* parent = nullptr;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string::npos || !cur->is_array()) return false;
      size_t index = std::stoul(path.substr(i + 1, close - i - 1));
      if (index >= cur->size()) return false;
      parent = nullptr;
      cur = &(*cur)[index];
      i = close + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    if (end == std::string::npos) end = path.size();
    last = path.substr(i, end - i);
    if (!cur->is_object() || !cur->contains(last)) return false;
    parent = cur;
    cur = &(*cur)[last];
    i = end;
  }
  if (!parent) return false;
  parent->erase(last);
  return true;
}

// "spec.maxReplicas: Invalid value: 0: must be greater than 0" -> a StatusCause.
Json CauseOf(const std::string& message) {
  size_t colon = message.find(": ");
  std::string field = colon == std::string::npos ? "" : message.substr(0, colon);
  std::string detail = colon == std::string::npos ? message : message.substr(colon + 2);
  std::string reason = "FieldValueInvalid";
  if (detail.starts_with("Required value")) reason = "FieldValueRequired";
  if (detail.starts_with("Forbidden")) reason = "FieldValueForbidden";
  if (detail.starts_with("Unsupported value")) reason = "FieldValueNotSupported";
  return Cause(reason, field, detail);
}

}  // namespace

void DefaultHorizontalPodAutoscaler(Json* hpa) {
  if (!hpa->is_object()) return;
  Json& spec = Obj(*hpa, "spec");
  SetIfAbsent(spec, "minReplicas", 1);
  if (!spec.contains("metrics") || !spec["metrics"].is_array() || spec["metrics"].empty()) {
    spec["metrics"] = Json::array(
        {{{"type", "Resource"},
          {"resource",
           {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
  }
  if (!spec.contains("behavior") || !spec["behavior"].is_object()) return;
  Json& behavior = spec["behavior"];
  Json& up = Obj(behavior, "scaleUp");
  SetIfAbsent(up, "stabilizationWindowSeconds", 0);
  SetIfAbsent(up, "selectPolicy", "Max");
  SetIfAbsent(up, "policies", Json::array({Policy("Pods", 4), Policy("Percent", 100)}));
  Json& down = Obj(behavior, "scaleDown");
  SetIfAbsent(down, "selectPolicy", "Max");
  SetIfAbsent(down, "policies", Json::array({Policy("Percent", 100)}));
}

HpaValidation ValidateHorizontalPodAutoscaler(Json* hpa, const Json* old,
                                              const FeatureGates& gates) {
  HpaValidation out;
  if (!hpa->is_object()) return out;
  core::hpa::HpaSpecOptions options;
  options.scale_to_zero = gates.Enabled(kHpaScaleToZero);
  if (old && old->is_object() && old->contains("spec") && old->at("spec").is_object()) {
    const Json min = old->at("spec").value("minReplicas", Json());
    options.old_min_replicas_zero = min.is_number_integer() && min.get<int64_t>() == 0;
  }
  // The decoder stops at the first problem; unknown fields are taken out and decoding resumes.
  for (int round = 0; round < 64; ++round) {
    const Json spec = hpa->contains("spec") ? (*hpa)["spec"] : Json::object();
    auto decoded = core::hpa::HpaSpecFromJson(spec, "spec", options);
    if (decoded.ok()) return out;
    const std::string message(decoded.status().message());
    constexpr std::string_view kUnknown = ": unknown field";
    if (message.ends_with(kUnknown)) {
      std::string path = message.substr(0, message.size() - kUnknown.size());
      if (RemovePath(hpa, path)) {
        out.unknown_fields.push_back(path);
        continue;
      }
    }
    out.causes.push_back(CauseOf(message));
    return out;
  }
  return out;
}

}  // namespace trimtab::cluster
