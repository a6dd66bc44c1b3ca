#include "core/hpa/spec_json.h"

#include <limits>
#include <nlohmann/json.hpp>

namespace trimtab::core::hpa {
namespace {

// Field-error constructors in the apiserver's wording.
Status Invalid(const std::string& path, const std::string& value, const std::string& detail) {
  return InvalidArgumentError(path + ": Invalid value: " + value + ": " + detail);
}
Status Required(const std::string& path, const std::string& detail) {
  return InvalidArgumentError(path + ": Required value" + (detail.empty() ? "" : ": " + detail));
}
Status Forbidden(const std::string& path, const std::string& detail) {
  return InvalidArgumentError(path + ": Forbidden: " + detail);
}
std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

Status ReadInt32(JsonReader& r, std::string_view field, std::optional<int32_t>* out) {
  std::optional<int64_t> v;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt(field, &v));
  if (!v) return Status::Ok();
  if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    return Invalid(r.FieldPath(field), std::to_string(*v), "must fit in a 32-bit integer");
  }
  *out = static_cast<int32_t>(*v);
  return Status::Ok();
}

Status ReadQuantity(JsonReader& r, std::string_view field, std::optional<Quantity>* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  TRIMTAB_ASSIGN_OR_RETURN(Quantity q, QuantityFromJson(*v, r.FieldPath(field)));
  *out = q;
  return Status::Ok();
}

const Json* ReadArray(JsonReader& r, std::string_view field, Status* status) {
  const Json* v = r.Get(field);
  if (v && !v->is_array()) {
    *status = InvalidArgumentError(r.FieldPath(field) + ": expected array, got " +
                                   std::string(JsonTypeName(*v)));
    return nullptr;
  }
  return v;
}

// pathvalidation.IsValidPathSegmentName.
Status ValidatePathSegment(const std::string& path, const std::string& name) {
  if (name == ".") return Invalid(path, Quoted(name), "may not be '.'");
  if (name == "..") return Invalid(path, Quoted(name), "may not be '..'");
  if (name.find('/') != std::string::npos)
    return Invalid(path, Quoted(name), "may not contain '/'");
  if (name.find('%') != std::string::npos)
    return Invalid(path, Quoted(name), "may not contain '%'");
  return Status::Ok();
}

Status ValidateDns1123Label(const std::string& path, const std::string& v) {
  if (v.size() > 63) return Invalid(path, Quoted(v), "must be no more than 63 characters");
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool ok = !v.empty() && alnum(v.front()) && alnum(v.back());
  for (char c : v) ok = ok && (alnum(c) || c == '-');
  if (!ok) {
    return Invalid(path, Quoted(v),
                   "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                   "or '-', and must start and end with an alphanumeric character (e.g. "
                   "'my-name',  or '123-abc', regex used for validation is "
                   "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return Status::Ok();
}

StatusOr<MetricSelector> DecodeSelector(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  MetricSelector sel;
  if (const Json* labels = r.Get("matchLabels")) {
    const std::string lp = r.FieldPath("matchLabels");
    if (!labels->is_object()) {
      return InvalidArgumentError(lp + ": expected object, got " +
                                  std::string(JsonTypeName(*labels)));
    }
    for (auto it = labels->begin(); it != labels->end(); ++it) {
      if (!it->is_string()) {
        return InvalidArgumentError(JoinPath(lp, it.key()) + ": expected string, got " +
                                    std::string(JsonTypeName(*it)));
      }
      sel.match_labels[it.key()] = it->get<std::string>();
    }
  }
  Status st;
  const Json* exprs = ReadArray(r, "matchExpressions", &st);
  TRIMTAB_RETURN_IF_ERROR(st);
  if (exprs) {
    for (size_t i = 0; i < exprs->size(); ++i) {
      JsonReader e((*exprs)[i], JoinPath(r.FieldPath("matchExpressions"), i));
      TRIMTAB_RETURN_IF_ERROR(e.ExpectObject());
      LabelSelectorRequirement req;
      TRIMTAB_RETURN_IF_ERROR(e.RequiredString("key", &req.key));
      if (!e.Has("operator")) return Required(e.FieldPath("operator"), "");
      TRIMTAB_RETURN_IF_ERROR(
          e.OptionalEnum("operator", {"DoesNotExist", "Exists", "In", "NotIn"}, &req.op));
      Status vs;
      if (const Json* values = ReadArray(e, "values", &vs)) {
        for (size_t j = 0; j < values->size(); ++j) {
          if (!(*values)[j].is_string()) {
            return InvalidArgumentError(JoinPath(e.FieldPath("values"), j) +
                                        ": expected string, got " +
                                        std::string(JsonTypeName((*values)[j])));
          }
          req.values.push_back((*values)[j].get<std::string>());
        }
      }
      TRIMTAB_RETURN_IF_ERROR(vs);
      const bool set_op = req.op == "In" || req.op == "NotIn";
      if (set_op && req.values.empty()) {
        return Required(e.FieldPath("values"),
                        "must be specified when `operator` is 'In' or 'NotIn'");
      }
      if (!set_op && !req.values.empty()) {
        return Forbidden(e.FieldPath("values"),
                         "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
      TRIMTAB_RETURN_IF_ERROR(e.NoUnknownFields());
      sel.match_expressions.push_back(std::move(req));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return sel;
}

Status DecodeIdentifier(const Json& json, const std::string& path, MetricIdentifier* out) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &out->name));
  if (const Json* sel = r.Get("selector")) {
    TRIMTAB_ASSIGN_OR_RETURN(out->selector, DecodeSelector(*sel, r.FieldPath("selector")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (out->name.empty()) return Required(r.FieldPath("name"), "must specify a metric name");
  return ValidatePathSegment(r.FieldPath("name"), out->name);
}

Status DecodeTarget(const Json& json, const std::string& path, MetricTarget* out) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::string type;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("type", &type));
  TRIMTAB_RETURN_IF_ERROR(ReadQuantity(r, "value", &out->value));
  TRIMTAB_RETURN_IF_ERROR(ReadQuantity(r, "averageValue", &out->average_value));
  TRIMTAB_RETURN_IF_ERROR(ReadInt32(r, "averageUtilization", &out->average_utilization));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (type.empty()) return Required(r.FieldPath("type"), "must specify a metric target type");
  if (type == "Utilization") {
    out->type = MetricTargetType::kUtilization;
  } else if (type == "Value") {
    out->type = MetricTargetType::kValue;
  } else if (type == "AverageValue") {
    out->type = MetricTargetType::kAverageValue;
  } else {
    return Invalid(r.FieldPath("type"), Quoted(type),
                   "must be either Utilization, Value, or AverageValue");
  }
  if (out->value && out->value->Sign() != 1) {
    return Invalid(r.FieldPath("value"), Quoted(out->value->String()), "must be positive");
  }
  if (out->average_value && out->average_value->Sign() != 1) {
    return Invalid(r.FieldPath("averageValue"), Quoted(out->average_value->String()),
                   "must be positive");
  }
  if (out->average_utilization && *out->average_utilization < 1) {
    return Invalid(r.FieldPath("averageUtilization"), std::to_string(*out->average_utilization),
                   "must be greater than 0");
  }
  return Status::Ok();
}

Status DecodeObjectReference(const Json& json, const std::string& path,
                             CrossVersionObjectReference* out) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("apiVersion", &out->api_version));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("kind", &out->kind));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &out->name));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (out->kind.empty()) return Required(r.FieldPath("kind"), "");
  TRIMTAB_RETURN_IF_ERROR(ValidatePathSegment(r.FieldPath("kind"), out->kind));
  if (out->name.empty()) return Required(r.FieldPath("name"), "");
  return ValidatePathSegment(r.FieldPath("name"), out->name);
}

// The source member of one metric ("resource", "pods", ...), validated for its type.
Status DecodeSource(MetricSourceType type, const Json& json, const std::string& path,
                    MetricSpec* m) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  const Json* target = r.Get("target");
  if (type == MetricSourceType::kResource || type == MetricSourceType::kContainerResource) {
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &m->resource_name));
    if (type == MetricSourceType::kContainerResource) {
      TRIMTAB_RETURN_IF_ERROR(r.OptionalString("container", &m->container));
    }
  } else {
    const Json* id = r.Get("metric");
    if (type == MetricSourceType::kObject) {
      const Json* obj = r.Get("describedObject");
      if (!obj) return Required(r.FieldPath("describedObject") + ".kind", "");
      TRIMTAB_RETURN_IF_ERROR(
          DecodeObjectReference(*obj, r.FieldPath("describedObject"), &m->described_object));
    }
    if (!id) return Required(r.FieldPath("metric") + ".name", "must specify a metric name");
    TRIMTAB_RETURN_IF_ERROR(DecodeIdentifier(*id, r.FieldPath("metric"), &m->metric));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (type == MetricSourceType::kResource || type == MetricSourceType::kContainerResource) {
    if (m->resource_name.empty()) {
      return Required(r.FieldPath("name"), "must specify a resource name");
    }
    if (type == MetricSourceType::kContainerResource) {
      if (m->container.empty())
        return Required(r.FieldPath("container"), "must specify a container");
      TRIMTAB_RETURN_IF_ERROR(ValidateDns1123Label(r.FieldPath("container"), m->container));
    }
  }
  const std::string tp = r.FieldPath("target");
  if (!target) return Required(tp + ".type", "must specify a metric target type");
  TRIMTAB_RETURN_IF_ERROR(DecodeTarget(*target, tp, &m->target));
  const MetricTarget& t = m->target;
  switch (type) {
    case MetricSourceType::kResource:
    case MetricSourceType::kContainerResource:
      if (!t.average_utilization && !t.average_value) {
        return Required(tp + ".averageUtilization",
                        "must set either a target raw value or a target utilization");
      }
      if (t.average_utilization && t.average_value) {
        return Forbidden(tp + ".averageValue",
                         "may not set both a target raw value and a target utilization");
      }
      break;
    case MetricSourceType::kPods:
      if (!t.average_value) {
        return Required(tp + ".averageValue", "must specify a positive target averageValue");
      }
      break;
    case MetricSourceType::kObject:
      if (!t.value && !t.average_value) {
        return Required(tp + ".averageValue", "must set either a target value or averageValue");
      }
      break;
    case MetricSourceType::kExternal:
      if (!t.value && !t.average_value) {
        return Required(tp + ".averageValue",
                        "must set either a target value for metric or a per-pod target");
      }
      if (t.value && t.average_value) {
        return Forbidden(tp + ".value",
                         "may not set both a target value for metric and a per-pod target");
      }
      break;
  }
  return Status::Ok();
}

StatusOr<MetricSpec> DecodeMetric(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  static const std::vector<std::pair<std::string, MetricSourceType>> kMembers = {
      {"object", MetricSourceType::kObject},
      {"external", MetricSourceType::kExternal},
      {"pods", MetricSourceType::kPods},
      {"resource", MetricSourceType::kResource},
      {"containerResource", MetricSourceType::kContainerResource},
  };
  if (!r.Has("type")) return Required(r.FieldPath("type"), "must specify a metric source type");
  std::string type;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum(
      "type", {"ContainerResource", "External", "Object", "Pods", "Resource"}, &type));
  MetricSpec m;
  std::string expected;
  for (const auto& [member, t] : kMembers) {
    if (MetricSourceTypeName(t) == type) {
      m.type = t;
      expected = member;
    }
  }
  for (const auto& [member, t] : kMembers) {
    const Json* v = r.Get(member);
    if (member == expected) {
      if (!v) {
        return Required(r.FieldPath(member),
                        "must populate information for the given metric source");
      }
      TRIMTAB_RETURN_IF_ERROR(DecodeSource(t, *v, r.FieldPath(member), &m));
    } else if (v) {
      return Forbidden(r.FieldPath(member), "must populate the given metric source only");
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return m;
}

StatusOr<ScalingRules> DecodeRules(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  ScalingRules rules;
  TRIMTAB_RETURN_IF_ERROR(
      ReadInt32(r, "stabilizationWindowSeconds", &rules.stabilization_window_seconds));
  if (rules.stabilization_window_seconds) {
    const int32_t w = *rules.stabilization_window_seconds;
    const std::string wp = r.FieldPath("stabilizationWindowSeconds");
    if (w < 0) return Invalid(wp, std::to_string(w), "must be greater than or equal to zero");
    if (w > 3600) return Invalid(wp, std::to_string(w), "must be less than or equal to 3600");
  }
  if (r.Has("selectPolicy")) {
    std::string sp;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("selectPolicy", {"Disabled", "Max", "Min"}, &sp));
    rules.select_policy = sp == "Max"   ? SelectPolicy::kMax
                          : sp == "Min" ? SelectPolicy::kMin
                                        : SelectPolicy::kDisabled;
  } else {
    r.Ignore("selectPolicy");
  }
  Status st;
  const Json* policies = ReadArray(r, "policies", &st);
  TRIMTAB_RETURN_IF_ERROR(st);
  if (policies) {
    const std::string pp = r.FieldPath("policies");
    if (policies->empty()) return Required(pp, "must specify at least one Policy");
    rules.policies.emplace();
    for (size_t i = 0; i < policies->size(); ++i) {
      JsonReader p((*policies)[i], JoinPath(pp, i));
      TRIMTAB_RETURN_IF_ERROR(p.ExpectObject());
      std::string type;
      TRIMTAB_RETURN_IF_ERROR(p.OptionalString("type", &type));
      if (type != "Pods" && type != "Percent") {
        return InvalidArgumentError(p.FieldPath("type") + ": Unsupported value: " + Quoted(type) +
                                    ": supported values: \"Percent\", \"Pods\"");
      }
      std::optional<int32_t> value, period;
      TRIMTAB_RETURN_IF_ERROR(ReadInt32(p, "value", &value));
      TRIMTAB_RETURN_IF_ERROR(ReadInt32(p, "periodSeconds", &period));
      TRIMTAB_RETURN_IF_ERROR(p.NoUnknownFields());
      const int32_t v = value.value_or(0);
      const int32_t ps = period.value_or(0);
      if (v <= 0)
        return Invalid(p.FieldPath("value"), std::to_string(v), "must be greater than zero");
      if (ps <= 0) {
        return Invalid(p.FieldPath("periodSeconds"), std::to_string(ps),
                       "must be greater than zero");
      }
      if (ps > 1800) {
        return Invalid(p.FieldPath("periodSeconds"), std::to_string(ps),
                       "must be less than or equal to 1800");
      }
      rules.policies->push_back(
          {type == "Pods" ? ScalingPolicyType::kPods : ScalingPolicyType::kPercent, v, ps});
    }
  }
  TRIMTAB_RETURN_IF_ERROR(ReadQuantity(r, "tolerance", &rules.tolerance));
  if (rules.tolerance && rules.tolerance->Sign() < 0) {
    return Invalid(r.FieldPath("tolerance"), Quoted(rules.tolerance->String()),
                   "must be greater or equal to zero");
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return rules;
}

}  // namespace

Json MetricSelectorToJson(const MetricSelector& selector) {
  Json out = Json::object();
  if (!selector.match_labels.empty()) out["matchLabels"] = selector.match_labels;
  if (!selector.match_expressions.empty()) {
    Json exprs = Json::array();
    for (const auto& e : selector.match_expressions) {
      Json j{{"key", e.key}, {"operator", e.op}};
      if (!e.values.empty()) j["values"] = e.values;
      exprs.push_back(j);
    }
    out["matchExpressions"] = exprs;
  }
  return out;
}

StatusOr<HpaSpec> HpaSpecFromJson(const Json& json, const std::string& path,
                                  const HpaSpecOptions& options) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  HpaSpec spec;
  if (const Json* ref = r.Get("scaleTargetRef")) {
    TRIMTAB_RETURN_IF_ERROR(
        DecodeObjectReference(*ref, r.FieldPath("scaleTargetRef"), &spec.scale_target_ref));
  }
  TRIMTAB_RETURN_IF_ERROR(ReadInt32(r, "minReplicas", &spec.min_replicas));
  std::optional<int32_t> max;
  TRIMTAB_RETURN_IF_ERROR(ReadInt32(r, "maxReplicas", &max));
  if (!max) return Required(r.FieldPath("maxReplicas"), "");
  spec.max_replicas = *max;
  Status st;
  const Json* metrics = ReadArray(r, "metrics", &st);
  TRIMTAB_RETURN_IF_ERROR(st);
  if (metrics) {
    for (size_t i = 0; i < metrics->size(); ++i) {
      TRIMTAB_ASSIGN_OR_RETURN(MetricSpec m,
                               DecodeMetric((*metrics)[i], JoinPath(r.FieldPath("metrics"), i)));
      spec.metrics.push_back(std::move(m));
    }
  }
  if (const Json* behavior = r.Get("behavior")) {
    JsonReader b(*behavior, r.FieldPath("behavior"));
    TRIMTAB_RETURN_IF_ERROR(b.ExpectObject());
    Behavior decoded;
    if (const Json* up = b.Get("scaleUp")) {
      TRIMTAB_ASSIGN_OR_RETURN(decoded.scale_up, DecodeRules(*up, b.FieldPath("scaleUp")));
    }
    if (const Json* down = b.Get("scaleDown")) {
      TRIMTAB_ASSIGN_OR_RETURN(decoded.scale_down, DecodeRules(*down, b.FieldPath("scaleDown")));
    }
    TRIMTAB_RETURN_IF_ERROR(b.NoUnknownFields());
    spec.behavior = decoded;
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());

  // Defaulting: no metrics means 80% average CPU utilization.
  if (spec.metrics.empty()) {
    MetricSpec cpu;
    cpu.type = MetricSourceType::kResource;
    cpu.resource_name = "cpu";
    cpu.target.type = MetricTargetType::kUtilization;
    cpu.target.average_utilization = 80;
    spec.metrics.push_back(cpu);
  }
  // Replica bounds (minReplicas may be 0 with HPAScaleToZero).
  const int32_t min_bound = options.scale_to_zero || options.old_min_replicas_zero ? 0 : 1;
  if (spec.min_replicas && *spec.min_replicas < min_bound) {
    return Invalid(r.FieldPath("minReplicas"), std::to_string(*spec.min_replicas),
                   "must be greater than or equal to " + std::to_string(min_bound));
  }
  if (spec.max_replicas < 1) {
    return Invalid(r.FieldPath("maxReplicas"), std::to_string(spec.max_replicas),
                   "must be greater than 0");
  }
  if (spec.min_replicas && spec.max_replicas < *spec.min_replicas) {
    return Invalid(r.FieldPath("maxReplicas"), std::to_string(spec.max_replicas),
                   "must be greater than or equal to `minReplicas`");
  }
  if (spec.min_replicas && *spec.min_replicas == 0 && !spec.HasObjectOrExternalMetric()) {
    return Forbidden(r.FieldPath("metrics"),
                     "must specify at least one Object or External metric to support scaling to "
                     "zero replicas");
  }
  return spec;
}

}  // namespace trimtab::core::hpa
