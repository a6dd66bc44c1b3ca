// Helpers shared by the snapshot's readers (snapshot.cc, snapshot_pods.cc).
#include "core/scheduling/snapshot_internal.h"

#include <algorithm>
#include <cmath>
#include <charconv>

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling::snapshot_internal {

const Json& Field(const Json& obj, const char* name) {
  static const Json null;
  if (!obj.is_object()) return null;
  auto it = obj.find(name);
  return it == obj.end() ? null : *it;
}

Status GetString(const Json& obj, const char* name, const std::string& path, std::string* out) {
  const Json& v = Field(obj, name);
  if (v.is_null()) return Status::Ok();
  if (!v.is_string()) {
    return InvalidArgumentError(JoinPath(path, name) + ": expected a string, got " +
                                std::string(JsonTypeName(v)));
  }
  *out = v.get<std::string>();
  return Status::Ok();
}

Status GetInt(const Json& obj, const char* name, const std::string& path, int64_t* out,
              bool* present) {
  const Json& v = Field(obj, name);
  if (present) *present = !v.is_null();
  if (v.is_null()) return Status::Ok();
  if (!v.is_number_integer()) {
    return InvalidArgumentError(JoinPath(path, name) + ": expected an integer, got " +
                                std::string(JsonTypeName(v)));
  }
  *out = v.get<int64_t>();
  return Status::Ok();
}

std::string StringOr(const Json& obj, const char* key, std::string fallback) {
  const Json& v = Field(obj, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

// Annotation first, then label (Volcano's lookup order for task-spec and preemptable).
const std::string* AnnotationOrLabel(const Json& meta, const char* key) {
  for (const char* where : {"annotations", "labels"}) {
    const Json& m = Field(meta, where);
    if (!m.is_object()) continue;
    auto it = m.find(key);
    if (it != m.end() && it->is_string()) return it->get_ptr<const std::string*>();
  }
  return nullptr;
}

// Go's strconv.ParseBool.
bool ParseGoBool(std::string_view s, bool* out) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") {
    *out = true;
    return true;
  }
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") {
    *out = false;
    return true;
  }
  return false;
}

std::optional<int64_t> ParseGoDurationSeconds(std::string_view s) {
  // [+-]? (number unit)+ with units ns us µs ms s m h, or the bare "0".
  if (s == "0") return 0;
  double sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    double whole = 0, frac = 0, scale = 1;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') whole = whole * 10 + (s[i++] - '0'), digits = true;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        scale /= 10;
        frac += (s[i++] - '0') * scale;
        digits = true;
      }
    }
    if (!digits) return std::nullopt;
    size_t j = i;
    while (j < s.size() && !(s[j] >= '0' && s[j] <= '9') && s[j] != '.') ++j;
    const std::string_view unit = s.substr(i, j - i);
    double seconds_per_unit = 0;
    if (unit == "ns") seconds_per_unit = 1e-9;
    else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") seconds_per_unit = 1e-6;
    else if (unit == "ms") seconds_per_unit = 1e-3;
    else if (unit == "s") seconds_per_unit = 1;
    else if (unit == "m") seconds_per_unit = 60;
    else if (unit == "h") seconds_per_unit = 3600;
    else return std::nullopt;
    total += (whole + frac) * seconds_per_unit;
    s.remove_prefix(j);
  }
  const double seconds = sign * total;
  if (seconds > 9.2e12 || seconds < -9.2e12) return std::nullopt;
  return static_cast<int64_t>(std::ceil(seconds - 1e-9));
}

int64_t NameIndex(std::string_view name) {
  // Volcano's GetPodIndexUnderTask: the last "-" field when the name has at least three.
  if (std::count(name.begin(), name.end(), '-') < 2) return -1;
  std::string_view tail = name.substr(name.rfind('-') + 1);
  if (!tail.empty() && tail[0] == '+') tail.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), v);
  if (tail.empty() || ec != std::errc() || p != tail.data() + tail.size()) return -1;
  return v;
}

PodGroupPhase PhaseFromName(const std::string& s) {
  if (s == "Inqueue") return PodGroupPhase::kInqueue;
  if (s == "Running") return PodGroupPhase::kRunning;
  if (s == "Unknown") return PodGroupPhase::kUnknown;
  if (s == "Completed") return PodGroupPhase::kCompleted;
  return PodGroupPhase::kPending;
}


// Per-container requests of a pod: the effective request (Volcano's GetPodResourceRequest:
// containers summed, init containers as max, restartable init containers added, overhead,
// pods 1) and kube-scheduler's non-zero cpu/memory for scoring.
Status PodRequests(const Json& spec, const std::string& path, ResourceNameTable* names,
                   Resources* req, double* nonzero_cpu, double* nonzero_mem) {
  constexpr double kDefaultCpu = 100;                    // milli
  constexpr double kDefaultMemory = 200.0 * 1024 * 1024;  // bytes
  Resources sum;
  double nz_cpu = 0, nz_mem = 0;
  const Json& containers = Field(spec, "containers");
  if (!containers.is_null() && !containers.is_array()) {
    return InvalidArgumentError(JoinPath(path, "containers") + ": expected a list");
  }
  auto container_requests = [&](const Json& c, const std::string& cpath, Resources* out) {
    const Json& requests = Field(Field(c, "resources"), "requests");
    return ResourcesFromJson(requests, JoinPath(cpath, "resources.requests"), names, out);
  };
  if (containers.is_array()) {
    for (size_t i = 0; i < containers.size(); ++i) {
      const std::string cpath = JoinPath(JoinPath(path, "containers"), i);
      Resources r;
      TRIMTAB_RETURN_IF_ERROR(container_requests(containers[i], cpath, &r));
      sum.Add(r);
      nz_cpu += r[kCpu] > 0 ? r[kCpu] : kDefaultCpu;
      nz_mem += r[kMemory] > 0 ? r[kMemory] : kDefaultMemory;
    }
  }
  const Json& inits = Field(spec, "initContainers");
  if (inits.is_array()) {
    Resources restartable, init_max;
    for (size_t i = 0; i < inits.size(); ++i) {
      const std::string cpath = JoinPath(JoinPath(path, "initContainers"), i);
      Resources r;
      TRIMTAB_RETURN_IF_ERROR(container_requests(inits[i], cpath, &r));
      if (StringOr(inits[i], "restartPolicy", "") == "Always") {
        sum.Add(r);
        restartable.Add(r);
        init_max.MaxDimension(restartable);
      } else {
        Resources tmp = r;
        tmp.Add(restartable);
        init_max.MaxDimension(tmp);
      }
      nz_cpu = std::max(nz_cpu, r[kCpu] > 0 ? r[kCpu] : kDefaultCpu);
      nz_mem = std::max(nz_mem, r[kMemory] > 0 ? r[kMemory] : kDefaultMemory);
    }
    sum.MaxDimension(init_max);
  }
  const Json& overhead = Field(spec, "overhead");
  if (!overhead.is_null()) {
    Resources o;
    TRIMTAB_RETURN_IF_ERROR(ResourcesFromJson(overhead, JoinPath(path, "overhead"), names, &o));
    sum.Add(o);
    nz_cpu += o[kCpu];
    nz_mem += o[kMemory];
  }
  sum[kPods] += 1;
  *req = sum;
  *nonzero_cpu = nz_cpu;
  *nonzero_mem = nz_mem;
  return Status::Ok();
}

TaskStatus StatusFromPod(const std::string& phase, bool has_node, bool deleting) {
  if (phase == "Running") return deleting ? TaskStatus::kReleasing : TaskStatus::kRunning;
  if (phase == "Pending" || phase.empty()) {
    if (deleting) return TaskStatus::kReleasing;
    return has_node ? TaskStatus::kBound : TaskStatus::kPending;
  }
  if (phase == "Succeeded") return TaskStatus::kSucceeded;
  if (phase == "Failed") return TaskStatus::kFailed;
  return TaskStatus::kUnknown;
}

bool NodeIsReady(const Json& node) {
  const Json& conditions = Field(Field(node, "status"), "conditions");
  if (!conditions.is_array()) return true;
  for (const Json& c : conditions) {
    if (StringOr(c, "type", "") == "Ready") return StringOr(c, "status", "") == "True";
  }
  return true;
}

std::string ObjectLabel(const std::string& list, size_t i, const std::string& ns,
                        const std::string& name) {
  std::string label = JoinPath(list, i);
  if (!name.empty()) label += " (" + (ns.empty() ? name : ns + "/" + name) + ")";
  return label;
}


}  // namespace trimtab::core::scheduling::snapshot_internal
