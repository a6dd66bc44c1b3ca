#include "cluster/runtime/node_config.h"

#include <set>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/label_selector.h"
#include "common/quantity.h"

namespace trimtab::cluster::runtime {
namespace {

bool IsDnsSubdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-' && c != '.') return false;
    if ((i == 0 || i + 1 == name.size()) && !alnum) return false;
  }
  return true;
}

Status ReadStringMap(JsonReader& r, std::string_view field, std::map<std::string, std::string>* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  if (!v->is_object()) {
    return InvalidArgumentError(r.FieldPath(field) + ": must be a map, not " +
                                std::string(JsonTypeName(*v)));
  }
  for (auto& [k, val] : v->items()) {
    if (val.is_string()) {
      (*out)[k] = val.get<std::string>();
    } else if (val.is_number()) {
      (*out)[k] = val.dump();
    } else {
      return InvalidArgumentError(JoinPath(r.FieldPath(field), k) + ": must be a string");
    }
  }
  return Status::Ok();
}

Status ReadQuantity(JsonReader& r, std::string_view field, std::string* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  if (v->is_string()) {
    *out = v->get<std::string>();
  } else if (v->is_number()) {
    *out = v->dump();
  } else {
    return InvalidArgumentError(r.FieldPath(field) + ": must be a quantity such as \"8\" or \"32Gi\"");
  }
  return Status::Ok();
}

StatusOr<std::vector<NodeConfig>> ParseEntry(const Json& entry, const std::string& path) {
  JsonReader r(entry, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  NodeConfig base;
  int64_t count = 1;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("name", &base.name));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("count", &count));
  if (count < 1 || count > 1000) {
    return InvalidArgumentError(r.FieldPath("count") + ": must be between 1 and 1000");
  }
  TRIMTAB_RETURN_IF_ERROR(ReadQuantity(r, "cpu", &base.cpu));
  TRIMTAB_RETURN_IF_ERROR(ReadQuantity(r, "memory", &base.memory));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("pods", &base.pods));
  TRIMTAB_RETURN_IF_ERROR(ReadStringMap(r, "labels", &base.labels));
  TRIMTAB_RETURN_IF_ERROR(ReadStringMap(r, "resources", &base.extended_resources));
  if (const Json* taints = r.Get("taints")) {
    if (!taints->is_array()) return InvalidArgumentError(r.FieldPath("taints") + ": must be a list");
    for (size_t i = 0; i < taints->size(); ++i) {
      JsonReader t((*taints)[i], JoinPath(r.FieldPath("taints"), i));
      TRIMTAB_RETURN_IF_ERROR(t.ExpectObject());
      NodeTaint taint;
      TRIMTAB_RETURN_IF_ERROR(t.RequiredString("key", &taint.key));
      TRIMTAB_RETURN_IF_ERROR(t.OptionalString("value", &taint.value));
      TRIMTAB_RETURN_IF_ERROR(
          t.OptionalEnum("effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"}, &taint.effect));
      if (taint.effect.empty()) {
        return InvalidArgumentError(t.FieldPath("effect") + ": required (NoSchedule, "
                                                            "PreferNoSchedule or NoExecute)");
      }
      TRIMTAB_RETURN_IF_ERROR(t.NoUnknownFields());
      base.taints.push_back(std::move(taint));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  std::vector<NodeConfig> out;
  for (int64_t i = 1; i <= count; ++i) {
    NodeConfig n = base;
    if (count > 1) n.name = base.name + "-" + std::to_string(i);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

std::vector<NodeConfig> UniformNodes(int count, const std::string& cpu, const std::string& memory,
                                     int64_t pods) {
  std::vector<NodeConfig> out;
  for (int i = 1; i <= count; ++i) {
    NodeConfig n;
    n.name = "node-" + std::to_string(i);
    n.cpu = cpu;
    n.memory = memory;
    n.pods = pods;
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<NodeConfig> DefaultNodes() { return UniformNodes(4, "8", "32Gi", 110); }

StatusOr<std::vector<NodeConfig>> ParseNodesFile(std::string_view text, std::string_view what) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, what));
  JsonReader r(doc, "");
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject().WithContext(what));
  const Json* nodes = r.Get("nodes");
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields().WithContext(what));
  if (!nodes || !nodes->is_array() || nodes->empty()) {
    return InvalidArgumentError(std::string(what) + ": nodes: must be a non-empty list");
  }
  std::vector<NodeConfig> out;
  for (size_t i = 0; i < nodes->size(); ++i) {
    auto entry = ParseEntry((*nodes)[i], JoinPath("nodes", i));
    if (!entry.ok()) return entry.status().WithContext(what);
    for (auto& n : *entry) out.push_back(std::move(n));
  }
  TRIMTAB_RETURN_IF_ERROR(ValidateNodes(out).WithContext(what));
  return out;
}

StatusOr<std::vector<LocalNode>> PlanNodes(const std::vector<NodeConfig>& nodes,
                                           const Ipv4Range& pod_range, int node_prefix,
                                           const Ipv4Range& node_ip_range) {
  if (node_prefix < pod_range.prefix_length() || node_prefix > 28) {
    return InvalidArgumentError("the per-node pod subnet /" + std::to_string(node_prefix) +
                                " does not fit the pod range " + pod_range.String());
  }
  std::vector<LocalNode> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto subnet = pod_range.Subnet(node_prefix, i);
    if (!subnet) {
      return InvalidArgumentError("the pod range " + pod_range.String() + " has room for " +
                                  std::to_string(uint64_t{1} << (node_prefix - pod_range.prefix_length())) +
                                  " nodes (/" + std::to_string(node_prefix) + " each), not " +
                                  std::to_string(nodes.size()));
    }
    uint32_t ip = node_ip_range.network() + static_cast<uint32_t>(i) + 1;
    if (ip >= node_ip_range.broadcast()) {
      return InvalidArgumentError("the node address range " + node_ip_range.String() +
                                  " is too small for " + std::to_string(nodes.size()) + " nodes");
    }
    out.push_back(LocalNode{nodes[i], FormatIpv4(ip), *subnet});
  }
  return out;
}

Status ValidateNodes(const std::vector<NodeConfig>& nodes) {
  if (nodes.empty()) return InvalidArgumentError("nodes: at least one node is required");
  std::set<std::string> names;
  for (const NodeConfig& n : nodes) {
    if (!IsDnsSubdomain(n.name)) {
      return InvalidArgumentError("node name \"" + n.name +
                                  "\" must be a lower case DNS subdomain (a-z, 0-9, '-', '.')");
    }
    if (!names.insert(n.name).second) {
      return InvalidArgumentError("node name \"" + n.name + "\" is used twice");
    }
    auto check = [&](const std::string& what, const std::string& text) -> Status {
      auto q = Quantity::Parse(text);
      if (!q.ok() || q->Sign() <= 0) {
        return InvalidArgumentError("node " + n.name + ": " + what + " \"" + text +
                                    "\" must be a positive quantity");
      }
      return Status::Ok();
    };
    TRIMTAB_RETURN_IF_ERROR(check("cpu", n.cpu));
    TRIMTAB_RETURN_IF_ERROR(check("memory", n.memory));
    for (const auto& [name, value] : n.extended_resources) {
      TRIMTAB_RETURN_IF_ERROR(check(name, value));
    }
    if (n.pods < 1) return InvalidArgumentError("node " + n.name + ": pods must be at least 1");
    for (const auto& [k, v] : n.labels) {
      if (std::string why = ValidateQualifiedName(k); !why.empty()) {
        return InvalidArgumentError("node " + n.name + ": label key \"" + k + "\": " + why);
      }
      if (std::string why = ValidateLabelValue(v); !why.empty()) {
        return InvalidArgumentError("node " + n.name + ": label " + k + "=\"" + v + "\": " + why);
      }
    }
  }
  return Status::Ok();
}

}  // namespace trimtab::cluster::runtime
