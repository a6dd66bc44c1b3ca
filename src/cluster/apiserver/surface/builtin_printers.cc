#include "cluster/apiserver/surface/builtin_printers.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/auth/rbac_types.h"
#include "cluster/apiserver/surface/hpa_conversion.h"
#include "cluster/apiserver/surface/table.h"
#include "cluster/apiserver/surface/workload_types.h"

namespace trimtab::cluster {
namespace {

const Json& Null() {
  static const Json* null = new Json();
  return *null;
}

// obj[a][b]... with missing members as null.
const Json& At(const Json& obj, std::initializer_list<const char*> keys) {
  const Json* cur = &obj;
  for (const char* k : keys) {
    if (!cur->is_object()) return Null();
    auto it = cur->find(k);
    if (it == cur->end()) return Null();
    cur = &*it;
  }
  return *cur;
}

std::string S(const Json& v, const std::string& fallback = "") {
  return v.is_string() && !v.get<std::string>().empty() ? v.get<std::string>() : fallback;
}

int64_t I(const Json& v, int64_t fallback = 0) {
  return v.is_number() ? v.get<int64_t>() : fallback;
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

size_t Size(const Json& v) { return v.is_object() || v.is_array() ? v.size() : 0; }

std::string Age(const Json& obj, TimePoint now) {
  return HumanAge(At(obj, {"metadata", "creationTimestamp"}), now);
}

// metav1.FormatLabelSelector.
std::string FormatLabelSelector(const Json& selector) {
  std::vector<std::string> parts;
  for (auto& [k, v] : At(selector, {"matchLabels"}).items()) parts.push_back(k + "=" + S(v));
  const Json& exprs = At(selector, {"matchExpressions"});
  if (exprs.is_array()) {
    for (const Json& e : exprs) {
      std::string key = S(At(e, {"key"})), op = S(At(e, {"operator"}));
      std::vector<std::string> values;
      if (At(e, {"values"}).is_array()) {
        for (const Json& v : At(e, {"values"})) values.push_back(S(v));
      }
      if (op == "In") parts.push_back(key + " in (" + Join(values, ",") + ")");
      if (op == "NotIn") parts.push_back(key + " notin (" + Join(values, ",") + ")");
      if (op == "Exists") parts.push_back(key);
      if (op == "DoesNotExist") parts.push_back("!" + key);
    }
  }
  return parts.empty() ? "<none>" : Join(parts, ",");
}

std::string MapSelector(const Json& m) {
  std::vector<std::string> parts;
  if (m.is_object()) {
    for (auto& [k, v] : m.items()) parts.push_back(k + "=" + S(v));
  }
  return parts.empty() ? "<none>" : Join(parts, ",");
}

// ---- pods ------------------------------------------------------------------------------------

std::string PodStatus(const Json& pod) {
  const Json& status = At(pod, {"status"});
  std::string reason = S(At(status, {"phase"}));
  if (!S(At(status, {"reason"})).empty()) reason = S(At(status, {"reason"}));

  bool initializing = false;
  const Json& inits = At(status, {"initContainerStatuses"});
  const size_t init_count = Size(At(pod, {"spec", "initContainers"}));
  if (inits.is_array()) {
    for (size_t i = 0; i < inits.size(); ++i) {
      const Json& st = inits[i];
      const Json& term = At(st, {"state", "terminated"});
      const Json& wait = At(st, {"state", "waiting"});
      if (term.is_object() && I(At(term, {"exitCode"})) == 0) continue;
      if (term.is_object()) {
        reason = S(At(term, {"reason"})).empty()
                     ? "Init:ExitCode:" + std::to_string(I(At(term, {"exitCode"})))
                     : "Init:" + S(At(term, {"reason"}));
      } else if (wait.is_object() && !S(At(wait, {"reason"})).empty() &&
                 S(At(wait, {"reason"})) != "PodInitializing") {
        reason = "Init:" + S(At(wait, {"reason"}));
      } else {
        reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_count);
      }
      initializing = true;
      break;
    }
  }
  if (!initializing) {
    bool has_running = false;
    const Json& statuses = At(status, {"containerStatuses"});
    if (statuses.is_array()) {
      for (size_t i = statuses.size(); i-- > 0;) {
        const Json& st = statuses[i];
        const Json& wait = At(st, {"state", "waiting"});
        const Json& term = At(st, {"state", "terminated"});
        if (!S(At(wait, {"reason"})).empty()) {
          reason = S(At(wait, {"reason"}));
        } else if (!S(At(term, {"reason"})).empty()) {
          reason = S(At(term, {"reason"}));
        } else if (term.is_object()) {
          reason = I(At(term, {"signal"})) != 0
                       ? "Signal:" + std::to_string(I(At(term, {"signal"})))
                       : "ExitCode:" + std::to_string(I(At(term, {"exitCode"})));
        } else if (At(st, {"ready"}).is_boolean() && At(st, {"ready"}).get<bool>() &&
                   At(st, {"state", "running"}).is_object()) {
          has_running = true;
        }
      }
    }
    if (reason == "Completed" && has_running) {
      bool ready = false;
      const Json& conds = At(status, {"conditions"});
      if (conds.is_array()) {
        for (const Json& c : conds) {
          if (S(At(c, {"type"})) == "Ready" && S(At(c, {"status"})) == "True") ready = true;
        }
      }
      reason = ready ? "Running" : "NotReady";
    }
  }
  if (At(pod, {"metadata", "deletionTimestamp"}).is_string()) {
    reason = S(At(status, {"reason"})) == "NodeLost" ? "Unknown" : "Terminating";
  }
  return reason;
}

std::string PodReady(const Json& pod) {
  int64_t ready = 0;
  const Json& statuses = At(pod, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const Json& st : statuses) {
      if (At(st, {"ready"}).is_boolean() && At(st, {"ready"}).get<bool>()) ++ready;
    }
  }
  return std::to_string(ready) + "/" + std::to_string(Size(At(pod, {"spec", "containers"})));
}

std::string PodRestarts(const Json& pod, TimePoint now) {
  int64_t restarts = 0;
  std::string last;
  const Json& statuses = At(pod, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const Json& st : statuses) {
      restarts += I(At(st, {"restartCount"}));
      const std::string finished = S(At(st, {"lastState", "terminated", "finishedAt"}));
      if (finished > last) last = finished;
    }
  }
  std::string out = std::to_string(restarts);
  if (restarts > 0 && !last.empty()) out += " (" + HumanAge(Json(last), now) + " ago)";
  return out;
}

std::string PodReadinessGates(const Json& pod) {
  const Json& gates = At(pod, {"spec", "readinessGates"});
  if (Size(gates) == 0) return "<none>";
  size_t true_count = 0;
  for (const Json& g : gates) {
    const Json& conds = At(pod, {"status", "conditions"});
    if (!conds.is_array()) continue;
    for (const Json& c : conds) {
      if (S(At(c, {"type"})) == S(At(g, {"conditionType"})) && S(At(c, {"status"})) == "True") {
        ++true_count;
      }
    }
  }
  return std::to_string(true_count) + "/" + std::to_string(gates.size());
}

// ---- services --------------------------------------------------------------------------------

std::string ServiceExternalIp(const Json& svc) {
  const std::string type = S(At(svc, {"spec", "type"}), "ClusterIP");
  std::vector<std::string> ips;
  const Json& external = At(svc, {"spec", "externalIPs"});
  if (external.is_array()) {
    for (const Json& ip : external) ips.push_back(S(ip));
  }
  if (type == "ExternalName") return S(At(svc, {"spec", "externalName"}), "<none>");
  if (type == "LoadBalancer") {
    const Json& ingress = At(svc, {"status", "loadBalancer", "ingress"});
    std::vector<std::string> lb;
    if (ingress.is_array()) {
      for (const Json& i : ingress) lb.push_back(S(At(i, {"ip"}), S(At(i, {"hostname"}))));
    }
    lb.insert(lb.end(), ips.begin(), ips.end());
    return lb.empty() ? "<pending>" : Join(lb, ",");
  }
  return ips.empty() ? "<none>" : Join(ips, ",");
}

std::string ServicePorts(const Json& svc) {
  std::vector<std::string> parts;
  const Json& ports = At(svc, {"spec", "ports"});
  if (ports.is_array()) {
    for (const Json& p : ports) {
      std::string s = std::to_string(I(At(p, {"port"})));
      if (I(At(p, {"nodePort"})) != 0) s += ":" + std::to_string(I(At(p, {"nodePort"})));
      parts.push_back(s + "/" + S(At(p, {"protocol"}), "TCP"));
    }
  }
  return parts.empty() ? "<none>" : Join(parts, ",");
}

// ---- nodes, events, hpa ----------------------------------------------------------------------

std::string NodeStatus(const Json& node) {
  std::string status = "Unknown";
  const Json& conds = At(node, {"status", "conditions"});
  if (conds.is_array()) {
    for (const Json& c : conds) {
      if (S(At(c, {"type"})) == "Ready") status = S(At(c, {"status"})) == "True" ? "Ready" : "NotReady";
    }
  }
  if (At(node, {"spec", "unschedulable"}).is_boolean() &&
      At(node, {"spec", "unschedulable"}).get<bool>()) {
    status += ",SchedulingDisabled";
  }
  return status;
}

std::string NodeRoles(const Json& node) {
  std::vector<std::string> roles;
  const std::string prefix = "node-role.kubernetes.io/";
  for (auto& [k, v] : At(node, {"metadata", "labels"}).items()) {
    if (k.starts_with(prefix) && k.size() > prefix.size()) roles.push_back(k.substr(prefix.size()));
    if (k == "kubernetes.io/role" && !S(v).empty()) roles.push_back(S(v));
  }
  std::sort(roles.begin(), roles.end());
  return roles.empty() ? "<none>" : Join(roles, ",");
}

std::string NodeAddress(const Json& node, const std::string& type) {
  const Json& addrs = At(node, {"status", "addresses"});
  if (addrs.is_array()) {
    for (const Json& a : addrs) {
      if (S(At(a, {"type"})) == type) return S(At(a, {"address"}), "<none>");
    }
  }
  return "<none>";
}

// Event fields, from either core/v1 or events.k8s.io/v1.
const Json& EventRegarding(const Json& ev) {
  const Json& core = At(ev, {"involvedObject"});
  return core.is_object() ? core : At(ev, {"regarding"});
}

std::string EventLastSeen(const Json& ev, TimePoint now) {
  for (const Json* t : {&At(ev, {"series", "lastObservedTime"}), &At(ev, {"lastTimestamp"}),
                        &At(ev, {"deprecatedLastTimestamp"}), &At(ev, {"eventTime"}),
                        &At(ev, {"metadata", "creationTimestamp"})}) {
    if (!S(*t).empty()) return HumanAge(*t, now);
  }
  return "<unknown>";
}

std::string HpaTargets(const Json& hpa) {
  const Json& metrics = At(hpa, {"spec", "metrics"});
  const Json& current = At(hpa, {"status", "currentMetrics"});
  if (Size(metrics) == 0) return "<none>";
  std::vector<std::string> parts;
  for (size_t i = 0; i < metrics.size(); ++i) {
    const Json& m = metrics[i];
    const std::string type = S(At(m, {"type"}));
    std::string key = type == "Resource" ? "resource"
                      : type == "ContainerResource" ? "containerResource"
                      : type == "Pods" ? "pods"
                      : type == "Object" ? "object" : "external";
    const Json& target = At(m, {key.c_str(), "target"});
    const Json cur = i < Size(current) ? At(current[i], {key.c_str(), "current"}) : Json();
    std::string target_s, cur_s = "<unknown>";
    if (At(target, {"averageUtilization"}).is_number()) {
      target_s = std::to_string(I(At(target, {"averageUtilization"}))) + "%";
      if (At(cur, {"averageUtilization"}).is_number()) {
        cur_s = std::to_string(I(At(cur, {"averageUtilization"}))) + "%";
      }
    } else {
      const char* field = At(target, {"averageValue"}).is_null() ? "value" : "averageValue";
      const Json& tv = At(target, {field});
      target_s = tv.is_string() ? S(tv) : tv.dump();
      const Json& cv = At(cur, {field});
      if (!cv.is_null()) cur_s = cv.is_string() ? S(cv) : cv.dump();
    }
    std::string prefix;
    if (type == "Resource" || type == "ContainerResource") {
      prefix = S(At(m, {key.c_str(), "name"})) + ": ";
    }
    parts.push_back(prefix + cur_s + "/" + target_s);
  }
  return Join(parts, ", ");
}

std::optional<Json> PodCell(const std::string& col, const Json& obj, TimePoint now) {
  if (col == "Ready") return PodReady(obj);
  if (col == "Status") return PodStatus(obj);
  if (col == "Restarts") return PodRestarts(obj, now);
  if (col == "IP") return S(At(obj, {"status", "podIP"}), "<none>");
  if (col == "Node") return S(At(obj, {"spec", "nodeName"}), "<none>");
  if (col == "Nominated Node") return S(At(obj, {"status", "nominatedNodeName"}), "<none>");
  if (col == "Readiness Gates") return PodReadinessGates(obj);
  return std::nullopt;
}

std::optional<Json> DeploymentCell(const std::string& col, const Json& obj) {
  if (col == "Ready") {
    return std::to_string(I(At(obj, {"status", "readyReplicas"}))) + "/" +
           std::to_string(I(At(obj, {"spec", "replicas"}), 1));
  }
  const Json& containers = At(obj, {"spec", "template", "spec", "containers"});
  if (col == "Containers" || col == "Images") {
    std::vector<std::string> parts;
    if (containers.is_array()) {
      for (const Json& c : containers) parts.push_back(S(At(c, {col == "Images" ? "image" : "name"})));
    }
    return Join(parts, ",");
  }
  if (col == "Selector") return FormatLabelSelector(At(obj, {"spec", "selector"}));
  return std::nullopt;
}

std::optional<Json> ReplicaSetCell(const std::string& col, const Json& obj) {
  if (col == "Desired") return I(At(obj, {"spec", "replicas"}), 1);
  if (col == "Current") return I(At(obj, {"status", "replicas"}));
  if (col == "Ready") return I(At(obj, {"status", "readyReplicas"}));
  return DeploymentCell(col, obj);  // Containers, Images, Selector
}

// "ip:port,ip:port + N more..." of ready addresses (printers.formatEndpoints).
std::string EndpointsList(const Json& ep) {
  const Json& subsets = At(ep, {"subsets"});
  if (Size(subsets) == 0) return "<none>";
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  size_t count = 0;
  bool more = false;
  for (const Json& ss : subsets) {
    const Json& addrs = At(ss, {"addresses"});
    const Json& ports = At(ss, {"ports"});
    if (Size(ports) == 0) {
      count += Size(addrs);
      for (size_t i = 0; i < Size(addrs); ++i) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(S(At(addrs[i], {"ip"})));
      }
      continue;
    }
    for (const Json& port : ports) {
      count += Size(addrs);
      for (size_t i = 0; i < Size(addrs); ++i) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(S(At(addrs[i], {"ip"})) + ":" + std::to_string(I(At(port, {"port"}))));
      }
    }
  }
  std::string out = Join(list, ",");
  if (more) out += " + " + std::to_string(count - kMax) + " more...";
  return out;
}

// Up to three entries joined by ",", then " + N more..."; `empty` when there are none.
std::string FirstThree(const std::vector<std::string>& items, const std::string& empty) {
  if (items.empty()) return empty;
  std::vector<std::string> shown(items.begin(),
                                 items.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(3, items.size())));
  std::string out = Join(shown, ",");
  if (items.size() > 3) out += " + " + std::to_string(items.size() - 3) + " more...";
  return out;
}

std::optional<Json> EndpointSliceCell(const std::string& col, const Json& obj) {
  if (col == "Ports") {
    std::vector<std::string> ports;
    const Json& list = At(obj, {"ports"});
    if (list.is_array()) {
      for (const Json& p : list) {
        ports.push_back(At(p, {"port"}).is_number() ? std::to_string(I(At(p, {"port"}))) : "<unset>");
      }
    }
    return FirstThree(ports, "<unset>");
  }
  if (col == "Endpoints") {
    std::vector<std::string> addrs;
    const Json& list = At(obj, {"endpoints"});
    if (list.is_array()) {
      for (const Json& e : list) {
        const Json& a = At(e, {"addresses"});
        if (a.is_array()) {
          for (const Json& ip : a) addrs.push_back(S(ip));
        }
      }
    }
    return FirstThree(addrs, "<unset>");
  }
  return std::nullopt;
}

std::optional<Json> EventCell(const std::string& col, const Json& obj, TimePoint now) {
  const Json& regarding = EventRegarding(obj);
  if (col == "Last Seen") return EventLastSeen(obj, now);
  if (col == "Type") return S(At(obj, {"type"}));
  if (col == "Object") {
    std::string kind = S(At(regarding, {"kind"}));
    for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return kind + "/" + S(At(regarding, {"name"}));
  }
  if (col == "Subobject") return S(At(regarding, {"fieldPath"}));
  if (col == "Source") {
    std::string component = S(At(obj, {"source", "component"}), S(At(obj, {"reportingComponent"}),
                                                                 S(At(obj, {"reportingController"}))));
    std::string host = S(At(obj, {"source", "host"}));
    return host.empty() ? component : component + ", " + host;
  }
  if (col == "Message") return S(At(obj, {"message"}), S(At(obj, {"note"})));
  if (col == "First Seen") {
    const Json& first = At(obj, {"firstTimestamp"});
    return S(first).empty() ? EventLastSeen(obj, now) : HumanAge(first, now);
  }
  if (col == "Count") {
    int64_t count = I(At(obj, {"series", "count"}), I(At(obj, {"count"}), 1));
    return std::to_string(count);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Json> BuiltinCell(const ResourceType& type, const PrinterColumn& column,
                                const Json& obj, TimePoint now) {
  const std::string& col = column.name;
  if (col == "Age") return Age(obj, now);
  if (col == "Created At") return S(At(obj, {"metadata", "creationTimestamp"}));
  const std::string& kind = type.kind;
  if (kind == "Pod") return PodCell(col, obj, now);
  if (auto rbac = auth::RbacCell(kind, col, obj)) return rbac;
  if (auto workload = WorkloadCell(kind, col, obj, now)) return workload;
  if (kind == "Deployment") return DeploymentCell(col, obj);
  if (kind == "ReplicaSet") return ReplicaSetCell(col, obj);
  if (kind == "Endpoints" && col == "Endpoints") return EndpointsList(obj);
  if (kind == "EndpointSlice") return EndpointSliceCell(col, obj);
  if (kind == "ServiceAccount" && col == "Secrets") {
    return static_cast<int64_t>(Size(At(obj, {"secrets"})));
  }
  if (kind == "Event") return EventCell(col, obj, now);
  if (kind == "Service") {
    if (col == "External-IP") return ServiceExternalIp(obj);
    if (col == "Port(s)") return ServicePorts(obj);
    if (col == "Selector") return MapSelector(At(obj, {"spec", "selector"}));
    if (col == "Type") return S(At(obj, {"spec", "type"}), "ClusterIP");
    if (col == "Cluster-IP") return S(At(obj, {"spec", "clusterIP"}), "<none>");
  }
  if ((kind == "ConfigMap" || kind == "Secret") && col == "Data") {
    return static_cast<int64_t>(Size(At(obj, {"data"})) + Size(At(obj, {"binaryData"})));
  }
  if (kind == "Node") {
    if (col == "Status") return NodeStatus(obj);
    if (col == "Roles") return NodeRoles(obj);
    if (col == "Internal-IP") return NodeAddress(obj, "InternalIP");
    if (col == "External-IP") return NodeAddress(obj, "ExternalIP");
  }
  if (kind == "PriorityClass") {
    if (col == "Global-Default") {
      const Json& v = At(obj, {"globalDefault"});
      return v.is_boolean() ? v.get<bool>() : false;
    }
    if (col == "Preemption-Policy") return S(At(obj, {"preemptionPolicy"}), "PreemptLowerPriority");
  }
  if (kind == "HorizontalPodAutoscaler") {
    if (col == "Reference") {
      const Json& ref = At(obj, {"spec", "scaleTargetRef"});
      return S(At(ref, {"kind"})) + "/" + S(At(ref, {"name"}));
    }
    if (col == "Targets") {
      if (S(At(obj, {"apiVersion"})) != "autoscaling/v1") return HpaTargets(obj);
      auto v2 = HpaV1ToV2(obj);  // the columns are the same in every version, as upstream's
      return v2.ok() ? HpaTargets(*v2) : std::string("<unknown>");
    }
    if (col == "MinPods") {
      const Json& min = At(obj, {"spec", "minReplicas"});
      return min.is_number() ? std::to_string(I(min)) : std::string("<unset>");
    }
  }
  return std::nullopt;
}

}  // namespace trimtab::cluster
