#include "operator/decorators/gang_size.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/quantity.h"

namespace trimtab::op::decorators {

GangSize SizeGang(const DecoratorContext& c, std::optional<int64_t> min_member_cap) {
  const int64_t job_managers = c.job_manager ? std::max(1, c.job_manager_replicas) : 0;
  const int64_t desired = c.task_manager ? std::max(0, c.desired_task_managers) : 0;
  const int64_t placed =
      c.task_manager ? std::clamp<int64_t>(c.placed_task_managers, 0, desired) : 0;
  GangSize g;
  g.cpu = static_cast<double>(job_managers) * c.job_manager_requests.cpu +
          static_cast<double>(desired) * c.task_manager_requests.cpu;
  g.memory_bytes = job_managers * c.job_manager_requests.memory_bytes +
                   desired * c.task_manager_requests.memory_bytes;
  int64_t cap = job_managers + desired;
  if (min_member_cap) cap = std::min(cap, *min_member_cap);
  g.min_member = std::max<int64_t>(1, std::min(job_managers + placed, cap));
  return g;
}

Json ResourceList(double cpu, int64_t memory_bytes) {
  Json out = Json::object();
  const int64_t milli = static_cast<int64_t>(std::llround(cpu * 1000));
  if (milli > 0) out["cpu"] = Quantity::FromMilli(milli).String();
  if (memory_bytes > 0) {
    out["memory"] = Quantity::FromInt(memory_bytes, Quantity::Format::kBinarySI).String();
  }
  return out;
}

std::string PodGroupName(const std::string& cluster_id) { return "podgroup-" + cluster_id; }

bool IsDns1123Subdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (alnum(c)) continue;
    if (c != '-' && c != '.') return false;
    if (i == 0 || i + 1 == name.size()) return false;
    if (c == '.' && (!alnum(name[i - 1]) || !alnum(name[i + 1]))) return false;
  }
  return true;
}

}  // namespace trimtab::op::decorators
