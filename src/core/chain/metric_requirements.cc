#include "core/chain/metric_requirements.h"

#include <algorithm>
#include <string>
#include <vector>

namespace trimtab::core {

std::string_view MetricScopeName(MetricScope s) {
  switch (s) {
    case MetricScope::kTaskManager:
      return "taskmanager";
    case MetricScope::kVertex:
      return "vertex";
    case MetricScope::kJob:
      return "job";
  }
  return "unknown";
}

std::string_view MetricSourceKindName(MetricSourceKind k) {
  switch (k) {
    case MetricSourceKind::kFlinkRest:
      return "flink";
    case MetricSourceKind::kPrometheus:
      return "prometheus";
    case MetricSourceKind::kExternalMetrics:
      return "external";
  }
  return "unknown";
}

std::string_view MetricAggregationName(MetricAggregation a) {
  switch (a) {
    case MetricAggregation::kAvg:
      return "avg";
    case MetricAggregation::kMax:
      return "max";
    case MetricAggregation::kMin:
      return "min";
    case MetricAggregation::kSum:
      return "sum";
  }
  return "unknown";
}

Status MetricRequirement::Validate() const {
  if (name.empty()) return InvalidArgumentError("metric requirement: name must not be empty");
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) {
      return InvalidArgumentError("metric requirement \"" + name +
                                  "\": name may contain only A-Z, 0-9 and '_'");
    }
  }
  if (query.empty()) {
    return InvalidArgumentError("metric requirement \"" + name + "\": query must not be empty");
  }
  return Status::Ok();
}

Status MetricRequirementRegistry::Declare(std::string_view consumer,
                                          const MetricRequirement& requirement) {
  TRIMTAB_RETURN_IF_ERROR(requirement.Validate().WithContext(consumer));
  auto it = std::lower_bound(
      metrics_.begin(), metrics_.end(), requirement.name,
      [](const DeclaredMetric& m, const std::string& name) { return m.requirement.name < name; });
  if (it != metrics_.end() && it->requirement.name == requirement.name) {
    if (!(it->requirement == requirement)) {
      const MetricRequirement& have = it->requirement;
      return AlreadyExistsError(
          std::string(consumer) + ": metric \"" + requirement.name +
          "\" is already declared by " + *it->consumers.begin() + " with a different definition (" +
          std::string(MetricScopeName(have.scope)) + ", " +
          std::string(MetricSourceKindName(have.source)) + " \"" + have.query + "\", " +
          std::string(MetricAggregationName(have.aggregation)) + ")");
    }
    it->consumers.insert(std::string(consumer));
    return Status::Ok();
  }
  metrics_.insert(it, DeclaredMetric{.requirement = requirement,
                                     .consumers = {std::string(consumer)}});
  return Status::Ok();
}

Status MetricRequirementRegistry::DeclareAll(std::string_view consumer,
                                             const std::vector<MetricRequirement>& requirements) {
  for (const MetricRequirement& r : requirements) TRIMTAB_RETURN_IF_ERROR(Declare(consumer, r));
  return Status::Ok();
}

std::vector<MetricRequirement> MetricRequirementRegistry::ByScope(MetricScope scope) const {
  std::vector<MetricRequirement> out;
  for (const DeclaredMetric& m : metrics_) {
    if (m.requirement.scope == scope) out.push_back(m.requirement);
  }
  return out;
}

std::vector<MetricRequirement> MetricRequirementRegistry::BySource(MetricSourceKind source) const {
  std::vector<MetricRequirement> out;
  for (const DeclaredMetric& m : metrics_) {
    if (m.requirement.source == source) out.push_back(m.requirement);
  }
  return out;
}

const DeclaredMetric* MetricRequirementRegistry::Find(std::string_view name) const {
  for (const DeclaredMetric& m : metrics_) {
    if (m.requirement.name == name) return &m;
  }
  return nullptr;
}

namespace {

// One of `names(value)` for the enum values [0, count), into *out (unchanged when absent).
template <typename E, typename NameFn>
Status ReadEnum(JsonReader& r, std::string_view field, int count, NameFn names, E* out) {
  std::vector<std::string_view> allowed;
  for (int i = 0; i < count; ++i) allowed.push_back(names(static_cast<E>(i)));
  std::string text(names(*out));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum(field, allowed, &text));
  for (int i = 0; i < count; ++i) {
    if (allowed[static_cast<size_t>(i)] == text) *out = static_cast<E>(i);
  }
  return Status::Ok();
}

}  // namespace

Status ReadMetricRequirement(JsonReader& r, MetricRequirement* m) {
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("name", &m->name));
  if (!r.Has("scope")) {
    return InvalidArgumentError(r.FieldPath("scope") + ": required field is missing");
  }
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "scope", 3, MetricScopeName, &m->scope));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "source", 3, MetricSourceKindName, &m->source));
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("query", &m->query));
  return ReadEnum(r, "aggregation", 4, MetricAggregationName, &m->aggregation);
}

}  // namespace trimtab::core
