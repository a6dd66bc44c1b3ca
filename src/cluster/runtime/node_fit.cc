#include "cluster/runtime/node_fit.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "common/label_selector.h"
#include "common/quantity.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr int64_t kDefaultMilliCpu = 100;                          // 0.1 core
constexpr int64_t kDefaultMemoryMilli = 200LL * 1024 * 1024 * 1000;  // 200Mi

std::optional<int64_t> Milli(const Json& v) {
  std::string text = v.is_string() ? v.get<std::string>() : (v.is_number() ? v.dump() : "");
  if (text.empty()) return std::nullopt;
  auto q = Quantity::Parse(text);
  if (!q.ok()) return std::nullopt;
  return q->MilliValue();
}

// The container's effective requests: requests, with limits filling absent entries.
ResourceList ContainerRequests(const Json& container) {
  ResourceList out;
  for (const char* which : {"limits", "requests"}) {  // requests last: they win
    const Json& list = At(container, {"resources", which});
    if (!list.is_object()) continue;
    for (auto& [name, value] : list.items()) {
      if (auto m = Milli(value)) out[name] = *m;
    }
  }
  return out;
}

void AddTo(ResourceList& total, const ResourceList& add) {
  for (const auto& [k, v] : add) total[k] += v;
}

ResourceList Requests(const Json& pod, bool nonzero) {
  ResourceList sum;
  const Json& containers = At(pod, {"spec", "containers"});
  if (containers.is_array()) {
    for (const Json& c : containers) {
      ResourceList r = ContainerRequests(c);
      if (nonzero) {
        r.try_emplace("cpu", kDefaultMilliCpu);
        r.try_emplace("memory", kDefaultMemoryMilli);
      }
      AddTo(sum, r);
    }
  }
  const Json& inits = At(pod, {"spec", "initContainers"});
  if (inits.is_array()) {
    for (const Json& c : inits) {
      ResourceList r = ContainerRequests(c);
      if (nonzero) {
        r.try_emplace("cpu", kDefaultMilliCpu);
        r.try_emplace("memory", kDefaultMemoryMilli);
      }
      for (const auto& [k, v] : r) sum[k] = std::max(sum[k], v);
    }
  }
  const Json& overhead = At(pod, {"spec", "overhead"});
  if (overhead.is_object()) {
    for (auto& [name, value] : overhead.items()) {
      if (auto m = Milli(value)) sum[name] += *m;
    }
  }
  return sum;
}

bool TolerationMatches(const Json& toleration, const Json& taint) {
  std::string t_effect = Str(toleration, {"effect"});
  if (!t_effect.empty() && t_effect != Str(taint, {"effect"})) return false;
  std::string key = Str(toleration, {"key"});
  std::string op = Str(toleration, {"operator"}, "Equal");
  if (key.empty()) return op == "Exists";
  if (key != Str(taint, {"key"})) return false;
  if (op == "Exists") return true;
  return Str(toleration, {"value"}) == Str(taint, {"value"});
}

bool MatchesRequirement(const Json& req, const std::string& value, bool present) {
  std::string op = Str(req, {"operator"});
  std::vector<std::string> values;
  if (At(req, {"values"}).is_array()) {
    for (const Json& v : At(req, {"values"})) values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  bool in = std::find(values.begin(), values.end(), value) != values.end();
  if (op == "In") return present && in;
  if (op == "NotIn") return !present || !in;
  if (op == "Exists") return present;
  if (op == "DoesNotExist") return !present;
  if (op == "Gt" || op == "Lt") {
    if (!present || values.size() != 1) return false;
    try {
      int64_t have = std::stoll(value);
      int64_t want = std::stoll(values[0]);
      return op == "Gt" ? have > want : have < want;
    } catch (...) {
      return false;
    }
  }
  return false;
}

// One NodeSelectorTerm: all matchExpressions (labels) and matchFields (metadata.name) hold.
bool MatchesTerm(const Json& term, const Json& node) {
  const Json& exprs = At(term, {"matchExpressions"});
  const Json& fields = At(term, {"matchFields"});
  if ((!exprs.is_array() || exprs.empty()) && (!fields.is_array() || fields.empty())) {
    return false;  // an empty term matches nothing
  }
  const Json& labels = At(node, {"metadata", "labels"});
  if (exprs.is_array()) {
    for (const Json& e : exprs) {
      std::string key = Str(e, {"key"});
      bool present = labels.is_object() && labels.contains(key);
      std::string value = present ? labels[key].get<std::string>() : "";
      if (!MatchesRequirement(e, value, present)) return false;
    }
  }
  if (fields.is_array()) {
    for (const Json& f : fields) {
      if (Str(f, {"key"}) != "metadata.name") return false;
      if (!MatchesRequirement(f, Str(node, {"metadata", "name"}), true)) return false;
    }
  }
  return true;
}

std::string TaintText(const Json& taint) {
  return "{" + Str(taint, {"key"}) + ": " + Str(taint, {"value"}) + "}";
}

}  // namespace

ResourceList PodRequests(const Json& pod) { return Requests(pod, false); }
ResourceList NonZeroPodRequests(const Json& pod) { return Requests(pod, true); }

ResourceList NodeAllocatable(const Json& node) {
  ResourceList out;
  const Json& alloc = At(node, {"status", "allocatable"});
  if (!alloc.is_object()) return out;
  for (auto& [name, value] : alloc.items()) {
    if (auto m = Milli(value)) out[name] = *m;
  }
  return out;
}

bool ToleratesTaint(const Json& pod, const Json& taint) {
  const Json& tolerations = At(pod, {"spec", "tolerations"});
  if (!tolerations.is_array()) return false;
  for (const Json& t : tolerations) {
    if (TolerationMatches(t, taint)) return true;
  }
  return false;
}

bool MatchesNodeAffinity(const Json& pod, const Json& node) {
  const Json& selector = At(pod, {"spec", "nodeSelector"});
  if (selector.is_object()) {
    const Json& labels = At(node, {"metadata", "labels"});
    for (auto& [k, v] : selector.items()) {
      if (!labels.is_object() || !labels.contains(k) || labels[k] != v) return false;
    }
  }
  const Json& terms = At(pod, {"spec", "affinity", "nodeAffinity",
                               "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (!terms.is_array()) return true;
  for (const Json& term : terms) {
    if (MatchesTerm(term, node)) return true;
  }
  return false;
}

std::vector<std::string> CheckNodeFit(const Json& pod, const NodeInfo& node) {
  // NodeUnschedulable
  if (Bool(*node.node, {"spec", "unschedulable"})) {
    Json taint = {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}};
    if (!ToleratesTaint(pod, taint)) return {"node(s) were unschedulable"};
  }
  // TaintToleration
  const Json& taints = At(*node.node, {"spec", "taints"});
  if (taints.is_array()) {
    for (const Json& taint : taints) {
      std::string effect = Str(taint, {"effect"});
      if (effect != "NoSchedule" && effect != "NoExecute") continue;
      if (!ToleratesTaint(pod, taint)) {
        return {"node(s) had untolerated taint " + TaintText(taint)};
      }
    }
  }
  // NodeAffinity
  if (!MatchesNodeAffinity(pod, *node.node)) return {"node(s) didn't match Pod's node affinity/selector"};
  // NodeResourcesFit
  std::vector<std::string> reasons;
  auto allowed_pods = node.allocatable.find("pods");
  if (allowed_pods != node.allocatable.end() &&
      static_cast<int64_t>(node.pods.size() + 1) * 1000 > allowed_pods->second) {
    reasons.push_back("Too many pods");
  }
  ResourceList want = PodRequests(pod);
  for (const auto& [name, amount] : want) {
    if (amount <= 0 || name == "pods") continue;
    auto alloc = node.allocatable.find(name);
    int64_t free = (alloc == node.allocatable.end() ? 0 : alloc->second);
    auto used = node.requested.find(name);
    if (used != node.requested.end()) free -= used->second;
    if (amount > free) reasons.push_back("Insufficient " + name);
  }
  return reasons;
}

int64_t LeastAllocatedScore(const Json& pod, const NodeInfo& node) {
  ResourceList want = NonZeroPodRequests(pod);
  int64_t total = 0;
  int64_t weights = 0;
  for (const char* name : {"cpu", "memory"}) {
    auto alloc = node.allocatable.find(name);
    int64_t capacity = alloc == node.allocatable.end() ? 0 : alloc->second;
    auto used = node.nonzero_requested.find(name);
    int64_t requested = (used == node.nonzero_requested.end() ? 0 : used->second) + want[name];
    int64_t score = 0;
    if (capacity > 0 && requested <= capacity) {
      // (capacity - requested) * 100 / capacity without overflowing on milli-byte values.
      score = static_cast<int64_t>(static_cast<__int128>(capacity - requested) * 100 / capacity);
    }
    total += score;
    weights += 1;
  }
  return weights == 0 ? 0 : total / weights;
}

std::string FitErrorMessage(size_t node_count,
                            const std::map<std::string, std::vector<std::string>>& reasons_by_node) {
  if (node_count == 0) return "no nodes available to schedule pods";
  std::map<std::string, int> histogram;
  for (const auto& [node, reasons] : reasons_by_node) {
    for (const std::string& r : reasons) histogram[r] += 1;
  }
  std::vector<std::string> parts;
  for (const auto& [reason, count] : histogram) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out = "0/" + std::to_string(node_count) + " nodes are available";
  if (!parts.empty()) {
    out += ":";
    for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? " " : ", ") + parts[i];
  }
  return out + ".";
}

namespace {

std::vector<kube::ObjectPtr> Shared(const std::vector<Json>& objects) {
  std::vector<kube::ObjectPtr> out;
  out.reserve(objects.size());
  for (const Json& o : objects) out.push_back(std::make_shared<const Json>(o));
  return out;
}

}  // namespace

ClusterSnapshot::ClusterSnapshot(const std::vector<Json>& nodes, const std::vector<Json>& pods)
    : ClusterSnapshot(Of(Shared(nodes), Shared(pods))) {}

ClusterSnapshot ClusterSnapshot::Of(const std::vector<kube::ObjectPtr>& nodes,
                                    const std::vector<kube::ObjectPtr>& pods) {
  ClusterSnapshot out;
  out.nodes_.reserve(nodes.size());
  for (const kube::ObjectPtr& n : nodes) {
    NodeInfo info;
    info.name = Str(*n, {"metadata", "name"});
    info.node = n;
    info.allocatable = NodeAllocatable(*n);
    out.nodes_.push_back(std::move(info));
  }
  std::sort(out.nodes_.begin(), out.nodes_.end(),
            [](const NodeInfo& a, const NodeInfo& b) { return a.name < b.name; });
  for (const kube::ObjectPtr& p : pods) {
    const std::string node = Str(*p, {"spec", "nodeName"});
    if (node.empty() || IsPodTerminal(*p)) continue;
    out.Assume(p, node);
  }
  return out;
}

const NodeInfo* ClusterSnapshot::Find(std::string_view node) const {
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), node,
                             [](const NodeInfo& a, std::string_view n) { return a.name < n; });
  return it != nodes_.end() && it->name == node ? &*it : nullptr;
}

void ClusterSnapshot::Assume(const Json& pod, std::string_view node) {
  Assume(std::make_shared<const Json>(pod), node);
}

void ClusterSnapshot::Assume(const kube::ObjectPtr& pod, std::string_view node) {
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), node,
                             [](const NodeInfo& a, std::string_view n) { return a.name < n; });
  if (it == nodes_.end() || it->name != node) return;
  AddTo(it->requested, PodRequests(*pod));
  AddTo(it->nonzero_requested, NonZeroPodRequests(*pod));
  it->pods.push_back(pod);
}

}  // namespace trimtab::cluster::runtime
