#include "cluster/metrics/pod_usage.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace trimtab::cluster::metrics {
namespace {

struct Resource {
  const char* name;             // "cpu"
  const char* usage;            // pod / container annotation
  const char* load;             // controller annotation
  double request_fraction;      // default: this share of the request
  int64_t default_milli;        // default without a request
  Quantity::Format format;
};

const Resource kCpu{"cpu", kCpuUsageAnnotation, kCpuLoadAnnotation, 0.1, 1,
                    Quantity::Format::kDecimalSI};
const Resource kMemory{"memory", kMemoryUsageAnnotation, kMemoryLoadAnnotation, 0.5,
                       int64_t{16} * 1024 * 1024 * 1000, Quantity::Format::kBinarySI};

std::string Annotation(const Json* object, const std::string& key) {
  if (!object || !object->is_object()) return "";
  auto meta = object->find("metadata");
  if (meta == object->end() || !meta->is_object()) return "";
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return "";
  auto v = annotations->find(key);
  return v != annotations->end() && v->is_string() ? v->get<std::string>() : "";
}

std::optional<int64_t> MilliOf(const std::string& text, const std::string& where) {
  if (text.empty()) return std::nullopt;
  auto q = Quantity::Parse(text);
  if (!q.ok() || q->Sign() < 0) {
    spdlog::debug("metrics: ignoring {}: \"{}\" is not a non-negative quantity", where, text);
    return std::nullopt;
  }
  return q->MilliValue();
}

int64_t RequestMilli(const Json& container, const char* resource) {
  auto resources = container.find("resources");
  if (resources == container.end() || !resources->is_object()) return 0;
  auto requests = resources->find("requests");
  if (requests == resources->end() || !requests->is_object()) return 0;
  auto v = requests->find(resource);
  if (v == requests->end()) return 0;
  auto q = Quantity::Parse(v->is_string() ? v->get<std::string>() : v->dump());
  return q.ok() ? q->MilliValue() : 0;
}

// The object's metadata (an empty object when it has none).
const Json& Metadata(const Json& object) {
  static const Json kEmpty = Json::object();
  auto it = object.find("metadata");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

// The pod's containers (an empty array when it has none).
const Json& Containers(const Json& pod) {
  static const Json kEmpty = Json::array();
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return kEmpty;
  auto it = spec->find("containers");
  return it != spec->end() && it->is_array() ? *it : kEmpty;
}

bool Running(const Json& pod) {
  auto status = pod.find("status");
  return status != pod.end() && status->is_object() && status->value("phase", "") == "Running" &&
         !Metadata(pod).contains("deletionTimestamp");
}

std::string OwnerKey(const PodView& v) {
  if (!v.owner) return "";
  return v.owner->value("kind", "") + "/" + Metadata(*v.owner).value("name", "");
}

// Per-container usage (milli) of one resource for `pod`; `pod_share` is the pod's part of its
// controller's load, when the controller declares one.
std::vector<int64_t> Usage(const PodView& view, const Resource& r,
                           std::optional<int64_t> pod_share, std::optional<int64_t> known) {
  const Json& containers = Containers(*view.pod);
  std::vector<int64_t> out(containers.size(), 0);
  std::vector<int64_t> requests;
  int64_t total_request = 0;
  for (const Json& c : containers) {
    requests.push_back(RequestMilli(c, r.name));
    total_request += requests.back();
  }
  const std::string pod_name = Metadata(*view.pod).value("name", "");
  std::optional<int64_t> pod_total =
      MilliOf(Annotation(view.pod, r.usage), pod_name + " " + r.usage);
  if (!pod_total) pod_total = known;
  if (!pod_total) pod_total = pod_share;
  for (size_t i = 0; i < containers.size(); ++i) {
    const std::string cname = containers[i].value("name", "");
    const std::string key = std::string(r.usage) + "." + cname;
    if (auto own = MilliOf(Annotation(view.pod, key), pod_name + " " + key)) {
      out[i] = *own;
    } else if (pod_total) {
      const double share = total_request > 0
                               ? static_cast<double>(requests[i]) / static_cast<double>(total_request)
                               : 1.0 / static_cast<double>(containers.size());
      out[i] = static_cast<int64_t>(static_cast<double>(*pod_total) * share);
    } else if (requests[i] > 0) {
      out[i] = static_cast<int64_t>(static_cast<double>(requests[i]) * r.request_fraction);
    } else {
      out[i] = r.default_milli;
    }
  }
  return out;
}

}  // namespace

std::map<std::string, PodUsage> ModelPodUsages(const std::vector<PodView>& pods, TimePoint now,
                                               const std::map<std::string, int64_t>& known_cpu) {
  // Running pods per controller, for the load annotations.
  std::map<std::string, int> running_per_owner;
  for (const PodView& v : pods) {
    if (v.pod && Running(*v.pod) && v.owner) ++running_per_owner[OwnerKey(v)];
  }
  std::map<std::string, PodUsage> out;
  for (const PodView& v : pods) {
    if (!v.pod || !Running(*v.pod)) continue;
    const Json& containers = Containers(*v.pod);
    if (containers.empty()) continue;
    std::optional<int64_t> cpu_share, memory_share;
    if (v.owner) {
      const int n = std::max(1, running_per_owner[OwnerKey(v)]);
      const std::string owner_name = OwnerKey(v);
      if (auto load = MilliOf(Annotation(v.owner, kCpuLoadAnnotation), owner_name)) {
        cpu_share = *load / n;
      }
      if (auto load = MilliOf(Annotation(v.owner, kMemoryLoadAnnotation), owner_name)) {
        memory_share = *load / n;
      }
    }
    const auto known = known_cpu.find(Metadata(*v.pod).value("name", ""));
    const std::vector<int64_t> cpu =
        Usage(v, kCpu, cpu_share,
              known == known_cpu.end() ? std::nullopt : std::optional<int64_t>(known->second));
    const std::vector<int64_t> memory = Usage(v, kMemory, memory_share, std::nullopt);
    PodUsage usage;
    usage.timestamp = now;
    for (size_t i = 0; i < containers.size(); ++i) {
      // Memory in whole bytes (metrics-server reports Ki), cpu in millicores.
      usage.containers.push_back(
          {containers[i].value("name", ""), Quantity::FromMilli(cpu[i]),
           Quantity::FromMilli(memory[i] / 1000 * 1000, Quantity::Format::kBinarySI)});
    }
    out[Metadata(*v.pod).value("name", "")] = std::move(usage);
  }
  return out;
}

}  // namespace trimtab::cluster::metrics
