#include "cluster/apiserver/surface/discovery.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

// Group order of a real apiserver's /apis; other groups (CRDs) follow alphabetically.
const std::vector<std::string_view> kGroupOrder = {
    "apiregistration.k8s.io", "apps",
    "events.k8s.io",          "authentication.k8s.io",
    "authorization.k8s.io",   "autoscaling",
    "batch",                  "certificates.k8s.io",
    "networking.k8s.io",      "policy",
    "rbac.authorization.k8s.io", "storage.k8s.io",
    "admissionregistration.k8s.io", "apiextensions.k8s.io",
    "scheduling.k8s.io",      "coordination.k8s.io",
    "node.k8s.io",            "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io"};

size_t GroupRank(const std::string& group) {
  auto it = std::find(kGroupOrder.begin(), kGroupOrder.end(), group);
  return it == kGroupOrder.end() ? kGroupOrder.size() : static_cast<size_t>(it - kGroupOrder.begin());
}

bool GroupLess(const std::string& a, const std::string& b) {
  size_t ra = GroupRank(a), rb = GroupRank(b);
  if (ra != rb) return ra < rb;
  return a < b;
}

// Parsed "v<major>[(alpha|beta)<minor>]"; level 2 = GA, 1 = beta, 0 = alpha.
struct KubeVersion {
  bool kube_like = false;
  int level = 0;
  long major = 0;
  long minor = 0;
};

KubeVersion ParseKubeVersion(std::string_view v) {
  KubeVersion out;
  if (v.size() < 2 || v[0] != 'v' || !std::isdigit(static_cast<unsigned char>(v[1]))) return out;
  size_t i = 1;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    out.major = out.major * 10 + (v[i] - '0');
    ++i;
  }
  if (out.major == 0 || v[1] == '0') return out;
  if (i == v.size()) {
    out.kube_like = true;
    out.level = 2;
    return out;
  }
  std::string_view rest = v.substr(i);
  if (rest.starts_with("alpha")) {
    out.level = 0;
    rest.remove_prefix(5);
  } else if (rest.starts_with("beta")) {
    out.level = 1;
    rest.remove_prefix(4);
  } else {
    return out;
  }
  if (rest.empty() || rest[0] == '0') return out;
  for (char c : rest) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return out;
    out.minor = out.minor * 10 + (c - '0');
  }
  out.kube_like = true;
  return out;
}

std::string StripQuery(std::string_view path) {
  size_t q = path.find('?');
  std::string p(path.substr(0, q));
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

enum class Form { kLegacy, kAggregatedV2, kAggregatedV2Beta1 };

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// Picks the first media range of `accept` this server can answer.
Form NegotiateForm(std::string_view accept) {
  size_t start = 0;
  while (start <= accept.size()) {
    size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    std::string_view range = accept.substr(start, end - start);
    start = end + 1;
    std::map<std::string, std::string> params;
    size_t semi = range.find(';');
    std::string media = Trim(range.substr(0, semi));
    while (semi != std::string_view::npos) {
      size_t next = range.find(';', semi + 1);
      std::string_view kv = range.substr(semi + 1, next == std::string_view::npos
                                                       ? std::string_view::npos
                                                       : next - semi - 1);
      size_t eq = kv.find('=');
      if (eq != std::string_view::npos) {
        params[Trim(kv.substr(0, eq))] = Trim(kv.substr(eq + 1));
      }
      semi = next;
    }
    if (media == "application/json" && params.count("as")) {
      if (params["as"] == "APIGroupDiscoveryList" && params["g"] == "apidiscovery.k8s.io") {
        if (params["v"] == "v2") return Form::kAggregatedV2;
        if (params["v"] == "v2beta1") return Form::kAggregatedV2Beta1;
      }
      continue;  // another "as=" this endpoint cannot produce
    }
    if (media == "application/json" || media == "*/*" || media == "application/*") {
      return Form::kLegacy;
    }
    if (end == accept.size()) break;
  }
  return Form::kLegacy;
}

struct Subresource {
  std::string name;
  std::string group;    // response kind's group/version, empty = the parent's
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
};

std::vector<Subresource> SubresourcesOf(const ResourceType& t) {
  std::vector<Subresource> out;
  if (t.group.empty() && t.plural == "namespaces") {
    out.push_back({"finalize", "", "", t.kind, {"update"}});
  }
  if (t.group.empty() && t.plural == "pods") {
    out.push_back({"binding", "", "", "Binding", {"create"}});
    out.push_back({"eviction", "policy", "v1", "Eviction", {"create"}});
    out.push_back({"log", "", "", t.kind, {"get"}});
  }
  if (t.group.empty() && t.plural == "serviceaccounts") {  // auth_layer.h serves it
    out.push_back({"token", "authentication.k8s.io", "v1", "TokenRequest", {"create"}});
  }
  if (t.scale_subresource) {
    out.push_back({"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}});
  }
  if (t.status_subresource) {
    out.push_back({"status", "", "", t.kind, {"get", "patch", "update"}});
  }
  return out;
}

// group -> version -> resources (served only), versions sorted by preference.
struct GroupEntry {
  std::string name;
  std::vector<std::string> versions;  // preferred first
  std::map<std::string, std::vector<ResourceType>> resources;  // version -> types
};

std::vector<GroupEntry> CollectGroups(const ResourceRegistry& registry, bool core) {
  std::map<std::string, GroupEntry> by_group;
  for (ResourceType& t : registry.List()) {
    if (!t.served || t.group.empty() != core) continue;
    GroupEntry& g = by_group[t.group];
    g.name = t.group;
    g.resources[t.version].push_back(std::move(t));
  }
  std::vector<GroupEntry> out;
  for (auto& [name, g] : by_group) {
    for (auto& [version, types] : g.resources) {
      g.versions.push_back(version);
      std::sort(types.begin(), types.end(),
                [](const ResourceType& a, const ResourceType& b) { return a.plural < b.plural; });
    }
    std::sort(g.versions.begin(), g.versions.end(), KubeVersionLess);
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(),
            [](const GroupEntry& a, const GroupEntry& b) { return GroupLess(a.name, b.name); });
  return out;
}

std::string GroupVersion(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

Json LegacyResourceList(const std::string& group, const std::string& version,
                        const std::vector<ResourceType>& types) {
  Json resources = Json::array();
  for (const ResourceType& t : types) {
    Json r = {{"name", t.plural},        {"singularName", t.singular},
              {"namespaced", t.namespaced}, {"kind", t.kind},
              {"verbs", t.verbs}};
    if (!t.short_names.empty()) r["shortNames"] = t.short_names;
    if (!t.categories.empty()) r["categories"] = t.categories;
    resources.push_back(std::move(r));
    for (const Subresource& s : SubresourcesOf(t)) {
      Json sr = {{"name", t.plural + "/" + s.name},
                 {"singularName", ""},
                 {"namespaced", t.namespaced},
                 {"kind", s.kind},
                 {"verbs", s.verbs}};
      if (!s.group.empty()) {
        sr["group"] = s.group;
        sr["version"] = s.version;
      }
      resources.push_back(std::move(sr));
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", GroupVersion(group, version)},
          {"resources", std::move(resources)}};
}

Json GroupVersionRef(const std::string& group, const std::string& version) {
  return {{"groupVersion", GroupVersion(group, version)}, {"version", version}};
}

Json LegacyGroup(const GroupEntry& g) {
  Json versions = Json::array();
  for (const std::string& v : g.versions) versions.push_back(GroupVersionRef(g.name, v));
  return {{"name", g.name},
          {"versions", std::move(versions)},
          {"preferredVersion", GroupVersionRef(g.name, g.versions.front())}};
}

Json AggregatedGroup(const GroupEntry& g) {
  Json versions = Json::array();
  for (const std::string& v : g.versions) {
    Json resources = Json::array();
    for (const ResourceType& t : g.resources.at(v)) {
      Json r = {{"resource", t.plural},
                {"responseKind", {{"group", ""}, {"version", ""}, {"kind", t.kind}}},
                {"scope", t.namespaced ? "Namespaced" : "Cluster"},
                {"singularResource", t.singular},
                {"verbs", t.verbs}};
      if (!t.short_names.empty()) r["shortNames"] = t.short_names;
      if (!t.categories.empty()) r["categories"] = t.categories;
      Json subs = Json::array();
      for (const Subresource& s : SubresourcesOf(t)) {
        subs.push_back({{"subresource", s.name},
                        {"responseKind", {{"group", s.group}, {"version", s.version},
                                          {"kind", s.kind}}},
                        {"verbs", s.verbs}});
      }
      if (!subs.empty()) r["subresources"] = std::move(subs);
      resources.push_back(std::move(r));
    }
    versions.push_back({{"version", v}, {"resources", std::move(resources)},
                        {"freshness", "Current"}});
  }
  Json meta = {{"name", g.name}, {"creationTimestamp", nullptr}};
  return {{"metadata", std::move(meta)}, {"versions", std::move(versions)}};
}

std::pair<std::string, std::string> Aggregated(const std::vector<GroupEntry>& groups, Form form) {
  bool v2 = form == Form::kAggregatedV2;
  Json items = Json::array();
  for (const GroupEntry& g : groups) items.push_back(AggregatedGroup(g));
  Json doc = {{"kind", "APIGroupDiscoveryList"},
              {"apiVersion", v2 ? "apidiscovery.k8s.io/v2" : "apidiscovery.k8s.io/v2beta1"},
              {"metadata", Json::object()},
              {"items", std::move(items)}};
  return {std::string(v2 ? kAggregatedDiscoveryV2ContentType
                         : kAggregatedDiscoveryV2Beta1ContentType),
          doc.dump()};
}

std::pair<std::string, std::string> JsonBody(const Json& doc) {
  return {"application/json", doc.dump()};
}

}  // namespace

bool KubeVersionLess(std::string_view a, std::string_view b) {
  KubeVersion va = ParseKubeVersion(a), vb = ParseKubeVersion(b);
  if (va.kube_like != vb.kube_like) return va.kube_like;
  if (!va.kube_like) return a < b;
  if (va.level != vb.level) return va.level > vb.level;
  if (va.major != vb.major) return va.major > vb.major;
  return va.minor > vb.minor;
}

std::optional<std::pair<std::string, std::string>> ServeDiscovery(
    const ResourceRegistry& registry, std::string_view raw_path, std::string_view accept) {
  const std::string path = StripQuery(raw_path);
  if (path == "/api") {
    std::vector<GroupEntry> core = CollectGroups(registry, /*core=*/true);
    Form form = NegotiateForm(accept);
    if (form != Form::kLegacy) return Aggregated(core, form);
    Json versions = Json::array();
    if (!core.empty()) versions = core.front().versions;
    return JsonBody({{"kind", "APIVersions"},
                     {"versions", std::move(versions)},
                     {"serverAddressByClientCIDRs",
                      Json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", ""}}})}});
  }
  if (path == "/apis") {
    std::vector<GroupEntry> groups = CollectGroups(registry, /*core=*/false);
    Form form = NegotiateForm(accept);
    if (form != Form::kLegacy) return Aggregated(groups, form);
    Json list = Json::array();
    for (const GroupEntry& g : groups) list.push_back(LegacyGroup(g));
    return JsonBody({{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(list)}});
  }
  if (path.starts_with("/api/")) {
    std::string version = path.substr(5);
    if (version.find('/') != std::string::npos) return std::nullopt;
    for (const GroupEntry& g : CollectGroups(registry, /*core=*/true)) {
      auto it = g.resources.find(version);
      if (it != g.resources.end()) return JsonBody(LegacyResourceList("", version, it->second));
    }
    return std::nullopt;
  }
  if (path.starts_with("/apis/")) {
    std::string rest = path.substr(6);
    size_t slash = rest.find('/');
    std::string group = rest.substr(0, slash);
    std::string version = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (version.find('/') != std::string::npos) return std::nullopt;
    for (const GroupEntry& g : CollectGroups(registry, /*core=*/false)) {
      if (g.name != group) continue;
      if (version.empty()) {
        Json doc = LegacyGroup(g);
        doc["kind"] = "APIGroup";
        doc["apiVersion"] = "v1";
        return JsonBody(doc);
      }
      auto it = g.resources.find(version);
      if (it != g.resources.end()) return JsonBody(LegacyResourceList(group, version, it->second));
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace trimtab::cluster
