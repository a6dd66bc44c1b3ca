#include "cluster/metrics/prometheus_rules.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace trimtab::cluster::metrics {
namespace {

bool IsLabelName(const std::string& s) {
  if (s.empty()) return false;
  auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!head(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return head(c) || (c >= '0' && c <= '9'); });
}

bool IsMetricName(const std::string& s) {
  if (s.empty()) return false;
  auto head = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  };
  if (!head(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return head(c) || (c >= '0' && c <= '9'); });
}

Status StringList(JsonReader& r, std::string_view field, std::vector<std::string>* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  if (!v->is_array()) {
    return InvalidArgumentError(r.FieldPath(field) + ": expected array, got " +
                                std::string(JsonTypeName(*v)));
  }
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) {
      return InvalidArgumentError(JoinPath(r.FieldPath(field), i) + ": expected string, got " +
                                  std::string(JsonTypeName((*v)[i])));
    }
    out->push_back((*v)[i].get<std::string>());
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<PrometheusRule>> ParsePrometheusRules(const Json& doc,
                                                           const std::string& path) {
  JsonReader top(doc, path);
  TRIMTAB_RETURN_IF_ERROR(top.ExpectObject());
  const Json* rules = top.Get("rules");
  TRIMTAB_RETURN_IF_ERROR(top.NoUnknownFields());
  if (!rules || !rules->is_array()) {
    return InvalidArgumentError(top.FieldPath("rules") + ": expected a list of rules");
  }
  std::vector<PrometheusRule> out;
  for (size_t i = 0; i < rules->size(); ++i) {
    JsonReader r((*rules)[i], JoinPath(top.FieldPath("rules"), i));
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    PrometheusRule rule;
    TRIMTAB_RETURN_IF_ERROR(r.RequiredString("name", &rule.name));
    TRIMTAB_RETURN_IF_ERROR(r.RequiredString("series", &rule.series));
    TRIMTAB_RETURN_IF_ERROR(StringList(r, "labels", &rule.labels));
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("namespaceLabel", &rule.namespace_label));
    if (const Json* m = r.Get("matchers")) {
      if (!m->is_object()) {
        return InvalidArgumentError(r.FieldPath("matchers") + ": expected object, got " +
                                    std::string(JsonTypeName(*m)));
      }
      for (auto it = m->begin(); it != m->end(); ++it) {
        const std::string mp = JoinPath(r.FieldPath("matchers"), it.key());
        if (!it->is_string()) {
          return InvalidArgumentError(mp + ": expected string, got " +
                                      std::string(JsonTypeName(*it)));
        }
        if (!IsLabelName(it.key())) {
          return InvalidArgumentError(mp + ": not a Prometheus label name");
        }
        rule.matchers[it.key()] = it->get<std::string>();
      }
    }
    TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("aggregation", {"", "avg", "max", "min", "sum"},
                                           &rule.aggregation));
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    if (rule.name.empty() || rule.name.find('/') != std::string::npos || rule.name == "." ||
        rule.name == ".." || rule.name.find('%') != std::string::npos) {
      return InvalidArgumentError(r.FieldPath("name") + ": \"" + rule.name +
                                  "\" is not a valid metric name (a path segment)");
    }
    if (!IsMetricName(rule.series)) {
      return InvalidArgumentError(r.FieldPath("series") + ": \"" + rule.series +
                                  "\" is not a Prometheus metric name");
    }
    for (size_t j = 0; j < rule.labels.size(); ++j) {
      if (!IsLabelName(rule.labels[j])) {
        return InvalidArgumentError(JoinPath(r.FieldPath("labels"), j) + ": \"" +
                                    rule.labels[j] + "\" is not a Prometheus label name");
      }
    }
    if (!rule.namespace_label.empty() && !IsLabelName(rule.namespace_label)) {
      return InvalidArgumentError(r.FieldPath("namespaceLabel") + ": \"" + rule.namespace_label +
                                  "\" is not a Prometheus label name");
    }
    for (const PrometheusRule& other : out) {
      if (other.name == rule.name) {
        return InvalidArgumentError(r.FieldPath("name") + ": \"" + rule.name +
                                    "\" is defined twice");
      }
    }
    out.push_back(std::move(rule));
  }
  return out;
}

std::string PromQlString(const std::string& value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string PromQlAlternatives(const std::vector<std::string>& values) {
  static const std::string kMeta = "\\.+*?()|[]{}^$";
  std::string re = "^(?:";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) re += "|";
    for (char c : values[i]) {
      if (kMeta.find(c) != std::string::npos) re += '\\';
      re += c;
    }
  }
  return re + ")$";
}

StatusOr<std::string> BuildPromQl(const PrometheusRule& rule, const std::string& ns,
                                  const LabelSelector& selector) {
  std::vector<std::string> matchers;
  if (!rule.namespace_label.empty()) {
    matchers.push_back(rule.namespace_label + "=" + PromQlString(ns));
  }
  for (const auto& [label, value] : rule.matchers) {
    matchers.push_back(label + "=" + PromQlString(value));
  }
  for (const LabelRequirement& req : selector.requirements()) {
    if (std::find(rule.labels.begin(), rule.labels.end(), req.key) == rule.labels.end()) {
      return InvalidArgumentError("label \"" + req.key + "\" is not a label of external metric " +
                                  rule.name);
    }
    const std::string first = req.values.empty() ? "" : req.values.front();
    switch (req.op) {
      case SelectorOp::kEquals:
      case SelectorOp::kDoubleEquals:
        matchers.push_back(req.key + "=" + PromQlString(first));
        break;
      case SelectorOp::kNotEquals:
        matchers.push_back(req.key + "!=" + PromQlString(first));
        break;
      case SelectorOp::kIn:
        matchers.push_back(req.key + "=~" + PromQlString(PromQlAlternatives(req.values)));
        break;
      case SelectorOp::kNotIn:
        matchers.push_back(req.key + "!~" + PromQlString(PromQlAlternatives(req.values)));
        break;
      case SelectorOp::kExists:
        matchers.push_back(req.key + "!=\"\"");
        break;
      case SelectorOp::kDoesNotExist:
        matchers.push_back(req.key + "=\"\"");
        break;
      default:
        return InvalidArgumentError("label selector operator in \"" + req.String() +
                                    "\" has no PromQL equivalent");
    }
  }
  std::string query = rule.series + "{";
  for (size_t i = 0; i < matchers.size(); ++i) query += (i ? "," : "") + matchers[i];
  query += "}";
  if (!rule.aggregation.empty()) {
    std::string by;
    for (size_t i = 0; i < rule.labels.size(); ++i) by += (i ? "," : "") + rule.labels[i];
    query = rule.aggregation + " by (" + by + ") (" + query + ")";
  }
  return query;
}

}  // namespace trimtab::cluster::metrics
