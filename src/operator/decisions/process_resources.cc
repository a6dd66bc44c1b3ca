#include "operator/decisions/process_resources.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/quantity.h"
#include "common/flink_values.h"

namespace trimtab::op {
namespace {

// Upstream formatMemoryStringForK8sSpec: strip spaces, upper-case, drop a trailing B, "I" -> "i".
std::string K8sMemoryText(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  if (!out.empty() && out.back() == 'B') out.pop_back();
  if (!out.empty() && out.back() == 'I') out.back() = 'i';
  return out;
}

StatusOr<Quantity> QuantityAt(const Json& map, const std::string& key, const std::string& path) {
  return QuantityFromJson(map.at(key), path + "." + key);
}

bool HasRequirements(const Json& resources) {
  if (!resources.is_object()) return false;
  for (const char* part : {"requests", "limits"}) {
    auto it = resources.find(part);
    if (it != resources.end() && it->is_object() && !it->empty()) return true;
  }
  return false;
}

const Json* Part(const Json& resources, const char* part) {
  auto it = resources.find(part);
  return it != resources.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

StatusOr<int64_t> ParseResourceMemory(std::string_view text) {
  StatusOr<int64_t> flink = ParseFlinkMemorySize("memory", text);
  if (flink.ok()) return *flink;
  StatusOr<Quantity> q = Quantity::Parse(K8sMemoryText(text));
  if (!q.ok()) {
    return InvalidArgumentError("cannot parse \"" + std::string(text) +
                                "\" as a Flink memory size or a Kubernetes quantity");
  }
  return q->Value();
}

std::string FormatMemorySize(int64_t bytes) {
  struct Unit {
    int64_t size;
    const char* suffix;
  };
  static constexpr Unit kUnits[] = {{int64_t{1} << 40, "t"},
                                    {int64_t{1} << 30, "g"},
                                    {int64_t{1} << 20, "m"},
                                    {int64_t{1} << 10, "k"}};
  if (bytes > 0) {
    for (const Unit& u : kUnits) {
      if (bytes % u.size == 0) return std::to_string(bytes / u.size) + u.suffix;
    }
  }
  return std::to_string(bytes) + "b";
}

std::string FormatDouble(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return std::to_string(static_cast<int64_t>(v)) + ".0";
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

StatusOr<ProcessResources> ResolveProcessResources(std::string_view component,
                                                   const std::optional<api::Resource>& resource,
                                                   const Json& resources) {
  ProcessResources out;
  const std::string comp(component);
  if (HasRequirements(resources)) {
    const Json* requests = Part(resources, "requests");
    const Json* limits = Part(resources, "limits");
    std::map<std::string, Quantity> req;
    std::map<std::string, Quantity> lim;
    for (auto [part, target, name] : {std::tuple{requests, &req, "requests"},
                                      std::tuple{limits, &lim, "limits"}}) {
      if (!part) continue;
      for (auto it = part->begin(); it != part->end(); ++it) {
        StatusOr<Quantity> q = QuantityAt(*part, it.key(), std::string("resources.") + name);
        if (!q.ok()) return InvalidArgumentError(comp + " " + q.status().message());
        if (q->Sign() < 0) {
          return InvalidArgumentError(comp + " resources." + name + "." + it.key() +
                                      " must not be negative");
        }
        (*target)[it.key()] = *q;
      }
    }
    for (const auto& [key, r] : req) {
      auto l = lim.find(key);
      if (l != lim.end() && l->second < r) {
        return InvalidArgumentError(comp + " resources: requests." + key + " (" + r.String() +
                                    ") must not exceed limits." + key + " (" +
                                    l->second.String() + ")");
      }
    }
    for (const char* key : {"cpu", "memory"}) {
      for (const auto* m : {&req, &lim}) {
        auto it = m->find(key);
        if (it != m->end() && it->second.IsZero()) {
          return InvalidArgumentError(comp + " resources." + (m == &req ? "requests." : "limits.") +
                                      key + " must be greater than 0");
        }
      }
    }
    auto pick = [&](const char* key) -> const Quantity* {
      if (auto it = req.find(key); it != req.end()) return &it->second;
      if (auto it = lim.find(key); it != lim.end()) return &it->second;
      return nullptr;
    };
    if (const Quantity* mem = pick("memory")) {
      // The quantity's own text, read as upstream reads Quantity.toString().
      const Json& raw = req.count("memory") ? requests->at("memory") : limits->at("memory");
      const std::string text = raw.is_string() ? raw.get<std::string>() : mem->String();
      StatusOr<int64_t> bytes = ParseResourceMemory(text);
      if (!bytes.ok()) return InvalidArgumentError(comp + " resource memory parse error: " + bytes.status().message());
      out.memory_bytes = *bytes;
    }
    if (const Quantity* cpu = pick("cpu")) out.cpu = cpu->AsApproximateFloat64();
    for (const char* key : {"cpu", "memory"}) {
      auto r = req.find(key);
      auto l = lim.find(key);
      if (r == req.end() || l == lim.end() || r->second.Sign() <= 0) continue;
      const double factor = l->second.AsApproximateFloat64() / r->second.AsApproximateFloat64();
      (std::string(key) == "cpu" ? out.cpu_limit_factor : out.memory_limit_factor) = factor;
    }
    return out;
  }
  if (resource) {
    if (!resource->memory.empty()) {
      StatusOr<int64_t> bytes = ParseResourceMemory(resource->memory);
      if (!bytes.ok()) {
        return InvalidArgumentError(comp + " resource memory parse error: " + bytes.status().message());
      }
      out.memory_bytes = *bytes;
    }
    if (!resource->ephemeral_storage.empty()) {
      StatusOr<Quantity> q = Quantity::Parse(resource->ephemeral_storage);
      if (!q.ok()) {
        return InvalidArgumentError(comp + " resource ephemeral storage parse error: " +
                                    q.status().message());
      }
    }
    if (resource->cpu) {
      if (*resource->cpu <= 0) {
        return InvalidArgumentError(comp + " resource cpu must be greater than 0");
      }
      out.cpu = *resource->cpu;
    }
  }
  return out;
}

std::string RealizeMemoryOverrides(const std::map<std::string, std::string>& overrides,
                                   const std::set<std::string>& removals,
                                   std::optional<int64_t> spec_memory_bytes,
                                   api::FlinkDeploymentSpec* spec) {
  for (const std::string& key : removals) spec->flink_configuration.erase(key);
  for (const auto& [key, value] : overrides) spec->flink_configuration[key] = value;
  std::optional<int64_t> total = spec_memory_bytes;
  if (auto it = spec->flink_configuration.find("taskmanager.memory.process.size");
      it != spec->flink_configuration.end()) {
    StatusOr<int64_t> bytes = ParseResourceMemory(it->second);
    if (!bytes.ok()) return "taskmanager.memory.process.size: " + bytes.status().message();
    total = *bytes;
  }
  if (!total || *total <= 0) return "the tuned TaskManager memory is not valid";
  if (!spec->task_manager) return "the spec sets no TaskManager memory";
  api::TaskManagerSpec& tm = *spec->task_manager;
  const std::string tuned = std::to_string(*total);
  if (!HasRequirements(tm.resources)) {
    if (!tm.resource || tm.resource->memory.empty()) return "the spec sets no TaskManager memory";
    StatusOr<int64_t> current = ParseResourceMemory(tm.resource->memory);
    if (current.ok() && *current == *total) return "";
    tm.resource->memory = tuned;
    return "";
  }
  Json* requests = tm.resources.contains("requests") ? &tm.resources["requests"] : nullptr;
  Json* limits = tm.resources.contains("limits") ? &tm.resources["limits"] : nullptr;
  const auto memory_of = [](Json* part) -> std::optional<int64_t> {
    if (!part || !part->is_object() || !part->contains("memory")) return std::nullopt;
    const Json& m = (*part)["memory"];
    StatusOr<int64_t> b = ParseResourceMemory(m.is_string() ? m.get<std::string>() : m.dump());
    return b.ok() ? std::optional<int64_t>(*b) : std::nullopt;
  };
  const std::optional<int64_t> request = memory_of(requests);
  const std::optional<int64_t> limit = memory_of(limits);
  if (request) {
    if (*request == *total) return "";
    (*requests)["memory"] = tuned;
    if (limit) {
      const double ratio = static_cast<double>(*total) / static_cast<double>(*request);
      (*limits)["memory"] = std::to_string(std::llround(static_cast<double>(*limit) * ratio));
    }
    return "";
  }
  if (limit) {
    if (*limit != *total) (*limits)["memory"] = tuned;
    return "";
  }
  return "the spec sets no TaskManager memory";
}

}  // namespace trimtab::op
