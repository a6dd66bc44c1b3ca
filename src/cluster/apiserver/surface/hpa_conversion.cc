#include "cluster/apiserver/surface/hpa_conversion.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

using Ordered = nlohmann::ordered_json;

constexpr const char* kRoundTripAnnotations[] = {kHpaMetricsAnnotation, kHpaCurrentMetricsAnnotation,
                                                 kHpaConditionsAnnotation, kHpaBehaviorAnnotation};

const Json& Field(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool Has(const Json& object, const char* key) { return !Field(object, key).is_null(); }

// A non-pointer resource.Quantity of Go: the zero value marshals as "0".
Json QuantityOrZero(const Json& object, const char* key) {
  const Json& v = Field(object, key);
  return v.is_null() ? Json("0") : v;
}

Ordered ToOrdered(const Json& v) { return Ordered::parse(v.dump()); }

void CopyIf(Ordered& out, const char* out_key, const Json& in, const char* key) {
  if (Has(in, key)) out[out_key] = ToOrdered(Field(in, key));
}

// metav1.LabelSelector in Go's field order.
Ordered SelectorOrdered(const Json& selector) {
  Ordered out = Ordered::object();
  CopyIf(out, "matchLabels", selector, "matchLabels");
  if (Field(selector, "matchExpressions").is_array()) {
    Ordered exprs = Ordered::array();
    for (const Json& e : Field(selector, "matchExpressions")) {
      Ordered o = Ordered::object();
      o["key"] = ToOrdered(Field(e, "key"));
      o["operator"] = ToOrdered(Field(e, "operator"));
      CopyIf(o, "values", e, "values");
      exprs.push_back(std::move(o));
    }
    out["matchExpressions"] = std::move(exprs);
  }
  return out;
}

void SelectorIf(Ordered& out, const char* out_key, const Json& metric) {
  if (Has(metric, "selector")) out[out_key] = SelectorOrdered(Field(metric, "selector"));
}

Ordered ReferenceV1(const Json& ref) {
  Ordered out = Ordered::object();
  out["kind"] = Field(ref, "kind").is_string() ? Field(ref, "kind").get<std::string>() : "";
  out["name"] = Field(ref, "name").is_string() ? Field(ref, "name").get<std::string>() : "";
  if (Field(ref, "apiVersion").is_string() && !Field(ref, "apiVersion").get<std::string>().empty()) {
    out["apiVersion"] = Field(ref, "apiVersion").get<std::string>();
  }
  return out;
}

std::string StringOr(const Json& v, const std::string& fallback = "") {
  return v.is_string() ? v.get<std::string>() : fallback;
}

// Go's encoding/json escapes <, > and & in strings; they occur only inside strings here.
std::string GoJson(const Ordered& value) {
  std::string text = value.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

// ---- v2 -> v1 ----------------------------------------------------------------------------

Ordered MetricSpecV1(const Json& m) {
  Ordered out = Ordered::object();
  out["type"] = StringOr(Field(m, "type"));
  if (const Json& o = Field(m, "object"); o.is_object()) {
    const Json& target = Field(o, "target");
    Ordered v = Ordered::object();
    v["target"] = ReferenceV1(Field(o, "describedObject"));
    v["metricName"] = StringOr(Field(Field(o, "metric"), "name"));
    v["targetValue"] = ToOrdered(QuantityOrZero(target, "value"));
    SelectorIf(v, "selector", Field(o, "metric"));
    CopyIf(v, "averageValue", target, "averageValue");
    out["object"] = std::move(v);
  }
  if (const Json& p = Field(m, "pods"); p.is_object()) {
    Ordered v = Ordered::object();
    v["metricName"] = StringOr(Field(Field(p, "metric"), "name"));
    v["targetAverageValue"] = ToOrdered(QuantityOrZero(Field(p, "target"), "averageValue"));
    SelectorIf(v, "selector", Field(p, "metric"));
    out["pods"] = std::move(v);
  }
  for (const char* key : {"resource", "containerResource"}) {
    const Json& r = Field(m, key);
    if (!r.is_object()) continue;
    const Json& target = Field(r, "target");
    Ordered v = Ordered::object();
    v["name"] = StringOr(Field(r, "name"));
    CopyIf(v, "targetAverageUtilization", target, "averageUtilization");
    CopyIf(v, "targetAverageValue", target, "averageValue");
    if (std::string(key) == "containerResource") v["container"] = StringOr(Field(r, "container"));
    out[key] = std::move(v);
  }
  if (const Json& e = Field(m, "external"); e.is_object()) {
    const Json& target = Field(e, "target");
    Ordered v = Ordered::object();
    v["metricName"] = StringOr(Field(Field(e, "metric"), "name"));
    SelectorIf(v, "metricSelector", Field(e, "metric"));
    CopyIf(v, "targetValue", target, "value");
    CopyIf(v, "targetAverageValue", target, "averageValue");
    out["external"] = std::move(v);
  }
  return out;
}

Ordered MetricStatusV1(const Json& m) {
  Ordered out = Ordered::object();
  out["type"] = StringOr(Field(m, "type"));
  if (const Json& o = Field(m, "object"); o.is_object()) {
    const Json& current = Field(o, "current");
    Ordered v = Ordered::object();
    v["target"] = ReferenceV1(Field(o, "describedObject"));
    v["metricName"] = StringOr(Field(Field(o, "metric"), "name"));
    v["currentValue"] = ToOrdered(QuantityOrZero(current, "value"));
    SelectorIf(v, "selector", Field(o, "metric"));
    CopyIf(v, "averageValue", current, "averageValue");
    out["object"] = std::move(v);
  }
  if (const Json& p = Field(m, "pods"); p.is_object()) {
    Ordered v = Ordered::object();
    v["metricName"] = StringOr(Field(Field(p, "metric"), "name"));
    v["currentAverageValue"] = ToOrdered(QuantityOrZero(Field(p, "current"), "averageValue"));
    SelectorIf(v, "selector", Field(p, "metric"));
    out["pods"] = std::move(v);
  }
  for (const char* key : {"resource", "containerResource"}) {
    const Json& r = Field(m, key);
    if (!r.is_object()) continue;
    const Json& current = Field(r, "current");
    Ordered v = Ordered::object();
    v["name"] = StringOr(Field(r, "name"));
    CopyIf(v, "currentAverageUtilization", current, "averageUtilization");
    v["currentAverageValue"] = ToOrdered(QuantityOrZero(current, "averageValue"));
    if (std::string(key) == "containerResource") v["container"] = StringOr(Field(r, "container"));
    out[key] = std::move(v);
  }
  if (const Json& e = Field(m, "external"); e.is_object()) {
    const Json& current = Field(e, "current");
    Ordered v = Ordered::object();
    v["metricName"] = StringOr(Field(Field(e, "metric"), "name"));
    SelectorIf(v, "metricSelector", Field(e, "metric"));
    v["currentValue"] = ToOrdered(QuantityOrZero(current, "value"));
    CopyIf(v, "currentAverageValue", current, "averageValue");
    out["external"] = std::move(v);
  }
  return out;
}

Ordered ConditionV1(const Json& c) {
  Ordered out = Ordered::object();
  out["type"] = StringOr(Field(c, "type"));
  out["status"] = StringOr(Field(c, "status"));
  for (const char* key : {"lastTransitionTime", "reason", "message"}) {
    if (!StringOr(Field(c, key)).empty()) out[key] = StringOr(Field(c, key));
  }
  return out;
}

// The internal HorizontalPodAutoscalerBehavior marshalled without json tags.
Ordered BehaviorGo(const Json& behavior) {
  auto rules = [](const Json& r) -> Ordered {
    if (!r.is_object()) return nullptr;
    Ordered out = Ordered::object();
    out["StabilizationWindowSeconds"] = ToOrdered(Field(r, "stabilizationWindowSeconds"));
    out["SelectPolicy"] = ToOrdered(Field(r, "selectPolicy"));
    Ordered policies = nullptr;
    if (Field(r, "policies").is_array()) {
      policies = Ordered::array();
      for (const Json& p : Field(r, "policies")) {
        Ordered po = Ordered::object();
        po["Type"] = StringOr(Field(p, "type"));
        po["Value"] = Field(p, "value").is_number() ? ToOrdered(Field(p, "value")) : Ordered(0);
        po["PeriodSeconds"] =
            Field(p, "periodSeconds").is_number() ? ToOrdered(Field(p, "periodSeconds")) : Ordered(0);
        policies.push_back(std::move(po));
      }
    }
    out["Policies"] = std::move(policies);
    return out;
  };
  Ordered out = Ordered::object();
  out["ScaleUp"] = rules(Field(behavior, "scaleUp"));
  out["ScaleDown"] = rules(Field(behavior, "scaleDown"));
  return out;
}

bool IsCpuUtilization(const Json& m) {
  const Json& r = Field(m, "resource");
  return StringOr(Field(m, "type")) == "Resource" && StringOr(Field(r, "name")) == "cpu" &&
         Has(Field(r, "target"), "averageUtilization");
}

// ---- v1 -> v2 ----------------------------------------------------------------------------

// Case-insensitive member lookup, as encoding/json matches field names.
const Json& FieldFold(const Json& object, const std::string& key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() == key.size() &&
        std::equal(k.begin(), k.end(), key.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return *it;
    }
  }
  return kNull;
}

Json Identifier(const Json& src, const char* selector_key) {
  Json id = {{"name", StringOr(Field(src, "metricName"))}};
  if (Has(src, selector_key)) id["selector"] = Field(src, selector_key);
  return id;
}

Json MetricSpecV2(const Json& m) {
  Json out = {{"type", StringOr(Field(m, "type"))}};
  if (const Json& o = Field(m, "object"); o.is_object()) {
    Json target = {{"type", Has(o, "averageValue") ? "AverageValue" : "Value"},
                   {"value", QuantityOrZero(o, "targetValue")}};
    if (Has(o, "averageValue")) target["averageValue"] = Field(o, "averageValue");
    Json ref = {{"kind", StringOr(Field(Field(o, "target"), "kind"))},
                {"name", StringOr(Field(Field(o, "target"), "name"))}};
    if (!StringOr(Field(Field(o, "target"), "apiVersion")).empty()) {
      ref["apiVersion"] = Field(Field(o, "target"), "apiVersion");
    }
    out["object"] = {{"describedObject", ref}, {"metric", Identifier(o, "selector")}, {"target", target}};
  }
  if (const Json& p = Field(m, "pods"); p.is_object()) {
    out["pods"] = {{"metric", Identifier(p, "selector")},
                   {"target", {{"type", "AverageValue"},
                               {"averageValue", QuantityOrZero(p, "targetAverageValue")}}}};
  }
  for (const char* key : {"resource", "containerResource"}) {
    const Json& r = Field(m, key);
    if (!r.is_object()) continue;
    Json target = {{"type", Has(r, "targetAverageUtilization") ? "Utilization" : "AverageValue"}};
    if (Has(r, "targetAverageValue")) target["averageValue"] = Field(r, "targetAverageValue");
    if (Has(r, "targetAverageUtilization")) {
      target["averageUtilization"] = Field(r, "targetAverageUtilization");
    }
    Json v = {{"name", StringOr(Field(r, "name"))}, {"target", target}};
    if (std::string(key) == "containerResource") v["container"] = StringOr(Field(r, "container"));
    out[key] = std::move(v);
  }
  if (const Json& e = Field(m, "external"); e.is_object()) {
    Json target = {{"type", Has(e, "targetValue") ? "Value" : "AverageValue"}};
    if (Has(e, "targetValue")) target["value"] = Field(e, "targetValue");
    if (Has(e, "targetAverageValue")) target["averageValue"] = Field(e, "targetAverageValue");
    out["external"] = {{"metric", Identifier(e, "metricSelector")}, {"target", target}};
  }
  return out;
}

Json MetricStatusV2(const Json& m) {
  Json out = {{"type", StringOr(Field(m, "type"))}};
  if (const Json& o = Field(m, "object"); o.is_object()) {
    Json current = {{"value", QuantityOrZero(o, "currentValue")}};
    if (Has(o, "averageValue")) current["averageValue"] = Field(o, "averageValue");
    Json ref = {{"kind", StringOr(Field(Field(o, "target"), "kind"))},
                {"name", StringOr(Field(Field(o, "target"), "name"))}};
    if (!StringOr(Field(Field(o, "target"), "apiVersion")).empty()) {
      ref["apiVersion"] = Field(Field(o, "target"), "apiVersion");
    }
    out["object"] = {{"describedObject", ref}, {"metric", Identifier(o, "selector")}, {"current", current}};
  }
  if (const Json& p = Field(m, "pods"); p.is_object()) {
    out["pods"] = {{"metric", Identifier(p, "selector")},
                   {"current", {{"averageValue", QuantityOrZero(p, "currentAverageValue")}}}};
  }
  for (const char* key : {"resource", "containerResource"}) {
    const Json& r = Field(m, key);
    if (!r.is_object()) continue;
    Json current = {{"averageValue", QuantityOrZero(r, "currentAverageValue")}};
    if (Has(r, "currentAverageUtilization")) {
      current["averageUtilization"] = Field(r, "currentAverageUtilization");
    }
    Json v = {{"name", StringOr(Field(r, "name"))}, {"current", current}};
    if (std::string(key) == "containerResource") v["container"] = StringOr(Field(r, "container"));
    out[key] = std::move(v);
  }
  if (const Json& e = Field(m, "external"); e.is_object()) {
    Json current = {{"value", QuantityOrZero(e, "currentValue")}};
    if (Has(e, "currentAverageValue")) current["averageValue"] = Field(e, "currentAverageValue");
    out["external"] = {{"metric", Identifier(e, "metricSelector")}, {"current", current}};
  }
  return out;
}

// The behavior annotation, or null when it does not decode into a non-empty behavior.
Json BehaviorV2(const std::string& text) {
  Json doc = Json::parse(text, nullptr, false);
  if (!doc.is_object()) return nullptr;
  Json out = Json::object();
  for (const auto& [go_key, key] : {std::pair<const char*, const char*>{"ScaleUp", "scaleUp"},
                                    {"ScaleDown", "scaleDown"}}) {
    const Json& r = FieldFold(doc, go_key);
    if (r.is_null()) continue;
    if (!r.is_object()) return nullptr;
    Json rules = Json::object();
    const Json& window = FieldFold(r, "StabilizationWindowSeconds");
    if (window.is_number_integer()) {
      rules["stabilizationWindowSeconds"] = window;
    } else if (!window.is_null()) {
      return nullptr;
    }
    const Json& select = FieldFold(r, "SelectPolicy");
    if (select.is_string()) {
      rules["selectPolicy"] = select;
    } else if (!select.is_null()) {
      return nullptr;
    }
    const Json& policies = FieldFold(r, "Policies");
    if (policies.is_array()) {
      Json list = Json::array();
      for (const Json& p : policies) {
        if (!p.is_object()) return nullptr;
        const Json& type = FieldFold(p, "Type");
        const Json& value = FieldFold(p, "Value");
        const Json& period = FieldFold(p, "PeriodSeconds");
        if ((!type.is_null() && !type.is_string()) || (!value.is_null() && !value.is_number_integer()) ||
            (!period.is_null() && !period.is_number_integer())) {
          return nullptr;
        }
        list.push_back({{"type", StringOr(type)},
                        {"value", value.is_null() ? Json(0) : value},
                        {"periodSeconds", period.is_null() ? Json(0) : period}});
      }
      rules["policies"] = std::move(list);
    } else if (!policies.is_null()) {
      return nullptr;
    }
    out[key] = std::move(rules);
  }
  return out.empty() ? Json(nullptr) : out;
}

StatusOr<Json> ParseList(const std::string& text, const char* annotation) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_null()) return Json::array();  // "null" unmarshals to an empty slice
  if (!doc.is_array()) {
    return InvalidArgumentError(std::string("metadata.annotations[") + annotation +
                                "]: not a JSON list");
  }
  for (const Json& item : doc) {
    if (!item.is_object()) {
      return InvalidArgumentError(std::string("metadata.annotations[") + annotation +
                                  "]: list items must be objects");
    }
  }
  return doc;
}

Json& Annotations(Json& object) {
  Json& meta = object["metadata"];
  if (!meta.is_object()) meta = Json::object();
  Json& annotations = meta["annotations"];
  if (!annotations.is_object()) annotations = Json::object();
  return annotations;
}

void DropRoundTripAnnotations(Json& object) {
  if (!Field(Field(object, "metadata"), "annotations").is_object()) return;
  Json& annotations = object["metadata"]["annotations"];
  for (const char* key : kRoundTripAnnotations) annotations.erase(key);
  if (annotations.empty()) object["metadata"].erase("annotations");
}

}  // namespace

Json HpaV2ToV1(const Json& v2) {
  Json out = Json::object();
  out["apiVersion"] = "autoscaling/v1";
  out["kind"] = "HorizontalPodAutoscaler";
  out["metadata"] = Field(v2, "metadata").is_object() ? Field(v2, "metadata") : Json::object();
  DropRoundTripAnnotations(out);

  const Json& spec = Field(v2, "spec");
  const Json& metrics = Field(spec, "metrics");
  Json spec_v1 = Json::object();
  spec_v1["scaleTargetRef"] = Json::parse(ReferenceV1(Field(spec, "scaleTargetRef")).dump());
  if (Has(spec, "minReplicas")) spec_v1["minReplicas"] = Field(spec, "minReplicas");
  spec_v1["maxReplicas"] = Field(spec, "maxReplicas").is_null() ? Json(0) : Field(spec, "maxReplicas");
  Ordered others = Ordered::array();
  if (metrics.is_array()) {
    for (const Json& m : metrics) {
      if (StringOr(Field(m, "type")) == "Resource" &&
          StringOr(Field(Field(m, "resource"), "name")) == "cpu") {
        const Json& target = Field(Field(m, "resource"), "target");
        if (Has(target, "averageUtilization") && !spec_v1.contains("targetCPUUtilizationPercentage")) {
          spec_v1["targetCPUUtilizationPercentage"] = Field(target, "averageUtilization");
        }
        break;
      }
    }
    for (const Json& m : metrics) {
      if (!IsCpuUtilization(m)) others.push_back(MetricSpecV1(m));
    }
  }
  out["spec"] = std::move(spec_v1);

  const Json& status = Field(v2, "status");
  Json status_v1 = Json::object();
  if (Has(status, "observedGeneration")) status_v1["observedGeneration"] = Field(status, "observedGeneration");
  if (Has(status, "lastScaleTime")) status_v1["lastScaleTime"] = Field(status, "lastScaleTime");
  status_v1["currentReplicas"] = Field(status, "currentReplicas").is_number() ? Field(status, "currentReplicas") : Json(0);
  status_v1["desiredReplicas"] = Field(status, "desiredReplicas").is_number() ? Field(status, "desiredReplicas") : Json(0);
  Ordered current = Ordered::array();
  if (Field(status, "currentMetrics").is_array()) {
    for (const Json& m : Field(status, "currentMetrics")) {
      if (StringOr(Field(m, "type")) == "Resource" &&
          StringOr(Field(Field(m, "resource"), "name")) == "cpu" &&
          Has(Field(Field(m, "resource"), "current"), "averageUtilization")) {
        status_v1["currentCPUUtilizationPercentage"] =
            Field(Field(Field(m, "resource"), "current"), "averageUtilization");
      }
      current.push_back(MetricStatusV1(m));
    }
  }
  out["status"] = std::move(status_v1);

  Ordered conditions = Ordered::array();
  if (Field(status, "conditions").is_array()) {
    for (const Json& c : Field(status, "conditions")) conditions.push_back(ConditionV1(c));
  }
  if (!others.empty()) Annotations(out)[kHpaMetricsAnnotation] = GoJson(others);
  if (!current.empty()) Annotations(out)[kHpaCurrentMetricsAnnotation] = GoJson(current);
  if (!conditions.empty()) Annotations(out)[kHpaConditionsAnnotation] = GoJson(conditions);
  if (Field(spec, "behavior").is_object()) {
    Annotations(out)[kHpaBehaviorAnnotation] = GoJson(BehaviorGo(Field(spec, "behavior")));
  }
  return out;
}

StatusOr<Json> HpaV1ToV2(const Json& v1) {
  Json out = Json::object();
  out["apiVersion"] = "autoscaling/v2";
  out["kind"] = "HorizontalPodAutoscaler";
  out["metadata"] = Field(v1, "metadata").is_object() ? Field(v1, "metadata") : Json::object();
  const Json annotations = Field(out["metadata"], "annotations");
  auto annotation = [&](const char* key) -> const Json& { return Field(annotations, key); };

  const Json& spec = Field(v1, "spec");
  Json spec_v2 = Json::object();
  if (spec.contains("scaleTargetRef")) spec_v2["scaleTargetRef"] = Field(spec, "scaleTargetRef");
  // v1 defaulting (SetDefaults_HorizontalPodAutoscaler) runs when the request is decoded.
  spec_v2["minReplicas"] = Has(spec, "minReplicas") ? Field(spec, "minReplicas") : Json(1);
  if (spec.is_object() && spec.contains("maxReplicas")) spec_v2["maxReplicas"] = Field(spec, "maxReplicas");
  Json metrics = Json::array();
  if (annotation(kHpaMetricsAnnotation).is_string()) {
    TRIMTAB_ASSIGN_OR_RETURN(Json listed, ParseList(annotation(kHpaMetricsAnnotation).get<std::string>(),
                                                    kHpaMetricsAnnotation));
    for (const Json& m : listed) metrics.push_back(MetricSpecV2(m));
  }
  if (Has(spec, "targetCPUUtilizationPercentage")) {
    metrics.push_back({{"type", "Resource"},
                       {"resource",
                        {{"name", "cpu"},
                         {"target",
                          {{"type", "Utilization"},
                           {"averageUtilization", Field(spec, "targetCPUUtilizationPercentage")}}}}}});
  }
  if (metrics.empty()) {
    // autoscaling/v1's implicit default, made explicit by the conversion.
    metrics.push_back(
        {{"type", "Resource"},
         {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}});
  }
  spec_v2["metrics"] = std::move(metrics);
  if (annotation(kHpaBehaviorAnnotation).is_string()) {
    Json behavior = BehaviorV2(annotation(kHpaBehaviorAnnotation).get<std::string>());
    if (!behavior.is_null()) spec_v2["behavior"] = std::move(behavior);
  }
  out["spec"] = std::move(spec_v2);

  const Json& status = Field(v1, "status");
  Json status_v2 = Json::object();
  if (Has(status, "observedGeneration")) status_v2["observedGeneration"] = Field(status, "observedGeneration");
  if (Has(status, "lastScaleTime")) status_v2["lastScaleTime"] = Field(status, "lastScaleTime");
  if (Field(status, "currentReplicas").is_number() && Field(status, "currentReplicas") != 0) {
    status_v2["currentReplicas"] = Field(status, "currentReplicas");
  }
  status_v2["desiredReplicas"] = Field(status, "desiredReplicas").is_number() ? Field(status, "desiredReplicas") : Json(0);
  if (Has(status, "currentCPUUtilizationPercentage")) {
    status_v2["currentMetrics"] = Json::array(
        {{{"type", "Resource"},
          {"resource",
           {{"name", "cpu"},
            {"current", {{"averageUtilization", Field(status, "currentCPUUtilizationPercentage")}}}}}}});
  }
  if (annotation(kHpaCurrentMetricsAnnotation).is_string()) {
    TRIMTAB_ASSIGN_OR_RETURN(Json listed, ParseList(annotation(kHpaCurrentMetricsAnnotation).get<std::string>(),
                                                    kHpaCurrentMetricsAnnotation));
    Json current = Json::array();
    for (const Json& m : listed) current.push_back(MetricStatusV2(m));
    status_v2["currentMetrics"] = std::move(current);
  }
  if (annotation(kHpaConditionsAnnotation).is_string()) {
    TRIMTAB_ASSIGN_OR_RETURN(Json listed, ParseList(annotation(kHpaConditionsAnnotation).get<std::string>(),
                                                    kHpaConditionsAnnotation));
    Json conditions = Json::array();
    for (const Json& c : listed) {
      Json condition = {{"type", StringOr(Field(c, "type"))}, {"status", StringOr(Field(c, "status"))}};
      for (const char* key : {"lastTransitionTime", "reason", "message"}) {
        if (!StringOr(Field(c, key)).empty()) condition[key] = Field(c, key);
      }
      conditions.push_back(std::move(condition));
    }
    status_v2["conditions"] = std::move(conditions);
  }
  out["status"] = std::move(status_v2);
  DropRoundTripAnnotations(out);
  return out;
}

}  // namespace trimtab::cluster
