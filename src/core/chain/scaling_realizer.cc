#include "core/chain/scaling_realizer.h"

namespace trimtab::core {

ParallelismOverrides MergeParallelismOverrides(const ParallelismOverrides& user,
                                               const ParallelismOverrides& autoscaler,
                                               const std::set<VertexId>& excluded) {
  ParallelismOverrides merged = user;
  for (const auto& [vertex, p] : autoscaler) {
    if (excluded.contains(vertex) && user.contains(vertex)) continue;
    merged[vertex] = p;
  }
  return merged;
}

Status InMemoryScalingRealizer::RealizeParallelismOverrides(const std::string& job_key,
                                                            const ParallelismOverrides& overrides) {
  for (const auto& [vertex, p] : overrides) {
    if (p < 1) {
      return InvalidArgumentError("realize " + job_key + ": vertex " + vertex + " parallelism " +
                                  std::to_string(p) + " < 1");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++calls_;
  parallelism_[job_key] = overrides;
  return Status::Ok();
}

Status InMemoryScalingRealizer::RealizeConfigOverrides(
    const std::string& job_key, const std::map<std::string, std::string>& overrides,
    const std::set<std::string>& removals) {
  std::lock_guard<std::mutex> lock(mu_);
  ++calls_;
  for (const auto& [k, v] : overrides) config_[job_key][k] = v;
  for (const std::string& k : removals) config_[job_key].erase(k);
  return Status::Ok();
}

ParallelismOverrides InMemoryScalingRealizer::ParallelismOf(const std::string& job_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = parallelism_.find(job_key);
  return it == parallelism_.end() ? ParallelismOverrides{} : it->second;
}

std::map<std::string, std::string> InMemoryScalingRealizer::ConfigOf(
    const std::string& job_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = config_.find(job_key);
  return it == config_.end() ? std::map<std::string, std::string>{} : it->second;
}

int InMemoryScalingRealizer::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

}  // namespace trimtab::core
