#include "cluster/apiserver/handlers/metrics_apis.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/handlers/handler_util.h"
#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {
namespace {

constexpr char kResourceGroup[] = "metrics.k8s.io";
constexpr char kExternalGroup[] = "external.metrics.k8s.io";
constexpr char kVersion[] = "v1beta1";
constexpr char kCustomGroup[] = "custom.metrics.k8s.io";
constexpr char kCustomVersion[] = "v1beta2";

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

ApiError NotFoundError(const std::string& message) {
  return ApiError{404, "NotFound", message, nullptr};
}

ApiError MetricNotFound(const std::string& resource, const std::string& name) {
  return ApiError{404, "NotFound", resource + " \"" + name + "\" not found",
                  Json{{"name", name}, {"group", kResourceGroup}, {"kind", resource.substr(0, resource.find('.'))}}};
}

// "15s" as metav1.Duration prints whole seconds.
std::string WindowString(std::chrono::seconds w) { return std::to_string(w.count()) + "s"; }

Json ItemMeta(const Json& object, bool namespaced, TimePoint now) {
  Json meta = {{"name", MetaString(object, "name")}, {"creationTimestamp", FormatRfc3339(now)}};
  if (namespaced) meta["namespace"] = MetaString(object, "namespace");
  const LabelMap labels = Labels(object);
  if (!labels.empty()) meta["labels"] = labels;
  return meta;
}

Json PodMetricsJson(const Json& pod, const PodUsage& usage, TimePoint now) {
  Json containers = Json::array();
  for (const ContainerUsage& c : usage.containers) {
    containers.push_back({{"name", c.name},
                          {"usage", {{"cpu", c.cpu.String()}, {"memory", c.memory.String()}}}});
  }
  return {{"kind", "PodMetrics"},
          {"apiVersion", std::string(kResourceGroup) + "/" + kVersion},
          {"metadata", ItemMeta(pod, true, now)},
          {"timestamp", FormatRfc3339(usage.timestamp)},
          {"window", WindowString(usage.window)},
          {"containers", std::move(containers)}};
}

Json ListJson(const char* kind, const char* group, Json items) {
  return {{"kind", kind},
          {"apiVersion", std::string(group) + "/" + kVersion},
          {"metadata", Json::object()},
          {"items", std::move(items)}};
}

ResourceType AggregatedType(const char* group, std::string kind, std::string plural,
                            bool namespaced, std::vector<std::string> verbs,
                            const char* version = kVersion) {
  ResourceType t;
  t.group = group;
  t.version = version;
  t.kind = std::move(kind);
  t.list_kind = t.kind.ends_with("List") ? t.kind : t.kind + "List";
  t.plural = std::move(plural);
  t.singular = "";
  t.namespaced = namespaced;
  t.verbs = std::move(verbs);
  t.aggregated = true;
  return t;
}

}  // namespace

void RegisterMetricsApis(ResourceRegistry& registry, const MetricsProvider& provider) {
  ResourceType nodes = AggregatedType(kResourceGroup, "NodeMetrics", "nodes", false, {"get", "list"});
  ResourceType pods = AggregatedType(kResourceGroup, "PodMetrics", "pods", true, {"get", "list"});
  registry.Put(std::move(nodes));
  registry.Put(std::move(pods));
  std::vector<std::string> names = provider.ExternalMetricNames();
  if (names.empty()) names.push_back("externalmetrics");
  for (const std::string& name : names) {
    registry.Put(AggregatedType(kExternalGroup, "ExternalMetricValueList", name, true, {"get"}));
  }
  auto custom = provider.CustomMetricNames();
  if (custom.empty()) custom.push_back({"pods", "custommetrics"});
  for (const auto& [resource, metric] : custom) {
    registry.Put(AggregatedType(kCustomGroup, "MetricValueList", resource + "/" + metric,
                                resource != "namespaces" && resource != "nodes", {"get"},
                                kCustomVersion));
  }
}

std::optional<http::HttpResponse> MetricsApis::Serve(const http::HttpRequest& request) {
  std::vector<std::string> parts = SplitPath(request.path);
  if (parts.size() < 4 || parts[0] != "apis") return std::nullopt;
  const bool resource = parts[1] == kResourceGroup && parts[2] == kVersion;
  const bool external = parts[1] == kExternalGroup && parts[2] == kVersion;
  const bool custom = parts[1] == kCustomGroup && parts[2] == kCustomVersion;
  if (!resource && !external && !custom) return std::nullopt;
  if (request.method != "GET") {
    return ErrorResponse(MethodNotAllowed(request.method + " is not allowed on " + parts[1]));
  }
  parts.erase(parts.begin(), parts.begin() + 3);
  if (custom) return ServeCustom(request, parts);
  return resource ? ServeResourceMetrics(request, parts) : ServeExternal(request, parts);
}

http::HttpResponse MetricsApis::ServeResourceMetrics(const http::HttpRequest& request,
                                                     const std::vector<std::string>& parts) {
  // nodes[/name] | pods[/name] | namespaces/<ns>/pods[/name]
  std::string ns, kind, name;
  if (parts[0] == "namespaces" && parts.size() >= 3 && parts.size() <= 4 && parts[2] == "pods") {
    ns = parts[1];
    kind = "pods";
    if (parts.size() == 4) name = parts[3];
  } else if ((parts[0] == "nodes" || parts[0] == "pods") && parts.size() <= 2) {
    kind = parts[0];
    if (parts.size() == 2) name = parts[1];
  } else {
    return ErrorResponse(NotFoundError("the server could not find the requested resource"));
  }
  auto labels = LabelSelector::Parse(request.Query("labelSelector") ? *request.Query("labelSelector") : "");
  if (!labels.ok()) return ErrorResponse(BadRequest(std::string(labels.status().message())));
  auto fields = FieldSelector::Parse(request.Query("fieldSelector") ? *request.Query("fieldSelector") : "");
  if (!fields.ok()) return ErrorResponse(BadRequest(std::string(fields.status().message())));
  ResourceRegistry* registry = objects_->registry();
  auto pod_type = registry->Find("", "v1", "pods");
  if (!pod_type) return ErrorResponse(InternalServerError("pods are not served"));
  const TimePoint now = objects_->clock()->Now();

  // Every pod of the namespace(s) with its controller, grouped by namespace.
  auto listed = objects_->List(*pod_type, kind == "pods" ? ns : "", ListOptions{});
  if (!listed.ok()) return ErrorResponse(listed.error());
  std::map<std::string, Json> owners;  // "ns/Kind/name" -> object (null when not stored)
  std::map<std::string, std::vector<PodView>> by_ns;
  for (const Json& pod : listed->items) {
    PodView view{&pod, nullptr};
    const Json refs = pod.contains("metadata") ? pod["metadata"].value("ownerReferences", Json()) : Json();
    if (refs.is_array()) {
      for (const Json& ref : refs) {
        if (!ref.value("controller", false)) continue;
        const std::string pod_ns = MetaString(pod, "namespace");
        const std::string key = pod_ns + "/" + ref.value("kind", "") + "/" + ref.value("name", "");
        auto it = owners.find(key);
        if (it == owners.end()) {
          Json owner;
          std::string api_version = ref.value("apiVersion", "");
          size_t slash = api_version.find('/');
          std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
          std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
          if (auto type = registry->FindByKind(group, version, ref.value("kind", ""))) {
            auto got = objects_->Get(*type, pod_ns, ref.value("name", ""));
            if (got.ok()) owner = std::move(*got);
          }
          it = owners.emplace(key, std::move(owner)).first;
        }
        if (!it->second.is_null()) view.owner = &it->second;
      }
    }
    by_ns[MetaString(pod, "namespace")].push_back(view);
  }
  std::map<std::string, std::map<std::string, PodUsage>> usage;  // ns -> pod -> usage
  for (const auto& [pod_ns, views] : by_ns) usage[pod_ns] = provider_->PodUsages(views, now);

  if (kind == "pods") {
    Json items = Json::array();
    for (const Json& pod : listed->items) {
      const std::string pod_ns = MetaString(pod, "namespace");
      const std::string pod_name = MetaString(pod, "name");
      if (!name.empty() && pod_name != name) continue;
      auto u = usage[pod_ns].find(pod_name);
      if (u == usage[pod_ns].end()) continue;
      if (!objects_->Matches(*pod_type, pod, *labels, *fields)) continue;
      items.push_back(PodMetricsJson(pod, u->second, now));
    }
    if (!name.empty()) {
      if (items.empty()) return ErrorResponse(MetricNotFound("podmetrics.metrics.k8s.io", name));
      return JsonResponse(200, items[0]);
    }
    return JsonResponse(200, ListJson("PodMetricsList", kResourceGroup, std::move(items)));
  }

  // Node usage: the sum over the pods bound to the node.
  auto node_type = registry->Find("", "v1", "nodes");
  if (!node_type) return ErrorResponse(InternalServerError("nodes are not served"));
  auto nodes = objects_->List(*node_type, "", ListOptions{.labels = *labels, .fields = *fields});
  if (!nodes.ok()) return ErrorResponse(nodes.error());
  std::map<std::string, std::pair<int64_t, int64_t>> sums;  // node -> milli cpu, milli memory
  for (const Json& pod : listed->items) {
    const std::string node = pod.contains("spec") ? pod["spec"].value("nodeName", "") : "";
    auto u = usage[MetaString(pod, "namespace")].find(MetaString(pod, "name"));
    if (node.empty() || u == usage[MetaString(pod, "namespace")].end()) continue;
    for (const ContainerUsage& c : u->second.containers) {
      sums[node].first += c.cpu.MilliValue();
      sums[node].second += c.memory.MilliValue();
    }
  }
  Json items = Json::array();
  for (const Json& node : nodes->items) {
    const std::string node_name = MetaString(node, "name");
    if (!name.empty() && node_name != name) continue;
    auto s = sums[node_name];
    items.push_back(
        {{"kind", "NodeMetrics"},
         {"apiVersion", std::string(kResourceGroup) + "/" + kVersion},
         {"metadata", ItemMeta(node, false, now)},
         {"timestamp", FormatRfc3339(now)},
         {"window", "15s"},
         {"usage",
          {{"cpu", Quantity::FromMilli(s.first).String()},
           {"memory", Quantity::FromMilli(s.second, Quantity::Format::kBinarySI).String()}}}});
  }
  if (!name.empty()) {
    if (items.empty()) return ErrorResponse(MetricNotFound("nodemetrics.metrics.k8s.io", name));
    return JsonResponse(200, items[0]);
  }
  return JsonResponse(200, ListJson("NodeMetricsList", kResourceGroup, std::move(items)));
}

http::HttpResponse MetricsApis::ServeExternal(const http::HttpRequest& request,
                                              const std::vector<std::string>& parts) {
  if (parts.size() != 3 || parts[0] != "namespaces") {
    return ErrorResponse(NotFoundError("the server could not find the requested resource"));
  }
  const std::string& ns = parts[1];
  const std::string& metric = parts[2];
  auto selector =
      LabelSelector::Parse(request.Query("labelSelector") ? *request.Query("labelSelector") : "");
  if (!selector.ok()) return ErrorResponse(BadRequest(std::string(selector.status().message())));
  const TimePoint now = objects_->clock()->Now();
  auto values = provider_->External(ns, metric, *selector, now);
  if (!values.ok()) {
    if (values.status().code() == StatusCode::kNotFound) {
      return ErrorResponse(
          NotFoundError("the server could not find the metric " + metric + " for namespace " + ns));
    }
    return ErrorResponse(InternalServerError("unable to fetch metrics from external metrics API: " +
                                             std::string(values.status().message())));
  }
  Json items = Json::array();
  for (const ExternalValue& v : *values) {
    items.push_back({{"metricName", metric},
                     {"metricLabels", v.labels},
                     {"timestamp", FormatRfc3339(v.timestamp)},
                     {"value", v.value.String()}});
  }
  return JsonResponse(200, ListJson("ExternalMetricValueList", kExternalGroup, std::move(items)));
}

http::HttpResponse MetricsApis::ServeCustom(const http::HttpRequest& request,
                                            const std::vector<std::string>& parts) {
  // namespaces/<ns>/<resource>/<name|*>/<metric> | namespaces/<ns>/metrics/<metric> |
  // <resource>/<name|*>/<metric>
  std::string ns, resource, name, metric;
  if (parts.size() == 5 && parts[0] == "namespaces") {
    ns = parts[1], resource = parts[2], name = parts[3], metric = parts[4];
  } else if (parts.size() == 4 && parts[0] == "namespaces" && parts[2] == "metrics") {
    ns = parts[1], resource = "namespaces", name = parts[1], metric = parts[3];
  } else if (parts.size() == 3 && parts[0] != "namespaces") {
    resource = parts[0], name = parts[1], metric = parts[2];
  } else {
    return ErrorResponse(NotFoundError("the server could not find the requested resource"));
  }
  const auto query = [&](const char* key) {
    return request.Query(key) ? *request.Query(key) : std::string();
  };
  auto objects_selector = LabelSelector::Parse(query("labelSelector"));
  if (!objects_selector.ok()) {
    return ErrorResponse(BadRequest(std::string(objects_selector.status().message())));
  }
  auto metric_selector = LabelSelector::Parse(query("metricLabelSelector"));
  if (!metric_selector.ok()) {
    return ErrorResponse(BadRequest(std::string(metric_selector.status().message())));
  }
  const std::string not_found = "the server could not find the metric " + metric + " for " + resource;

  // The described kind: the served type of the group-resource, storage version first.
  const size_t dot = resource.find('.');
  const std::string plural = resource.substr(0, dot);
  const std::string group = dot == std::string::npos ? "" : resource.substr(dot + 1);
  std::optional<ResourceType> type;
  for (const ResourceType& t : objects_->registry()->List()) {
    if (t.aggregated || t.group != group || t.plural != plural || !t.served) continue;
    if (!type || (t.storage_version && !type->storage_version)) type = t;
  }
  if (!type) return ErrorResponse(NotFoundError(not_found));

  std::vector<std::string> names;
  if (name == "*") {
    auto listed = objects_->List(*type, ns, ListOptions{.labels = *objects_selector});
    if (!listed.ok()) {
      return ErrorResponse(InternalServerError("unable to list matching resources"));
    }
    for (const Json& object : listed->items) names.push_back(MetaString(object, "name"));
  } else {
    names.push_back(name);
  }
  const TimePoint now = objects_->clock()->Now();
  auto values = provider_->Custom(ns, resource, metric, names, *metric_selector, now);
  if (!values.ok()) {
    if (values.status().code() == StatusCode::kNotFound) return ErrorResponse(NotFoundError(not_found));
    return ErrorResponse(InternalServerError("unable to fetch metrics"));
  }
  std::map<std::string, const CustomValue*> by_name;
  for (const CustomValue& v : *values) by_name[v.name] = &v;
  Json items = Json::array();
  for (const std::string& n : names) {
    auto it = by_name.find(n);
    if (it == by_name.end()) continue;
    Json described = {{"kind", type->kind}, {"name", n}, {"apiVersion", type->group + "/" + type->version}};
    if (type->namespaced) described["namespace"] = ns;
    Json metric_id = {{"name", metric}};
    if (!metric_selector->Empty()) {
      Json match_labels = Json::object();
      Json expressions = Json::array();
      for (const LabelRequirement& r : metric_selector->requirements()) {
        if (r.op == SelectorOp::kEquals || r.op == SelectorOp::kDoubleEquals) {
          match_labels[r.key] = r.values.empty() ? "" : r.values.front();
          continue;
        }
        const char* op = r.op == SelectorOp::kIn          ? "In"
                         : r.op == SelectorOp::kNotIn     ? "NotIn"
                         : r.op == SelectorOp::kExists    ? "Exists"
                         : r.op == SelectorOp::kNotEquals ? "NotIn"
                                                          : "DoesNotExist";
        Json e = {{"key", r.key}, {"operator", op}};
        if (!r.values.empty()) e["values"] = r.values;
        expressions.push_back(std::move(e));
      }
      Json selector = Json::object();
      if (!match_labels.empty()) selector["matchLabels"] = std::move(match_labels);
      if (!expressions.empty()) selector["matchExpressions"] = std::move(expressions);
      metric_id["selector"] = std::move(selector);
    }
    items.push_back({{"describedObject", std::move(described)},
                     {"metric", std::move(metric_id)},
                     {"timestamp", FormatRfc3339(it->second->timestamp)},
                     {"value", it->second->value.String()}});
  }
  if (name != "*" && items.empty()) return ErrorResponse(NotFoundError(not_found + " " + name));
  return JsonResponse(200, {{"kind", "MetricValueList"},
                            {"apiVersion", std::string(kCustomGroup) + "/" + kCustomVersion},
                            {"metadata", Json::object()},
                            {"items", std::move(items)}});
}

}  // namespace trimtab::cluster
