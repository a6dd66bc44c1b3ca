#include "cluster/flink/ha_store.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

StatusOr<HaJobState> InMemoryHaStore::LoadJob(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? HaJobState{} : it->second;
}

StatusOr<std::map<std::string, Json>> InMemoryHaStore::LoadJobGraphs() {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, Json> out;
  for (const auto& [id, job] : jobs_) {
    if (job.job_graph) out[id] = *job.job_graph;
  }
  return out;
}

Status InMemoryHaStore::Apply(const HaUpdate& u) {
  std::lock_guard<std::mutex> lock(mu_);
  switch (u.type) {
    case HaUpdate::Type::kJobGraphAdded:
      jobs_[u.job_id].job_graph = u.job_graph;
      break;
    case HaUpdate::Type::kCheckpointAdded: {
      HaJobState& job = jobs_[u.job_id];
      job.checkpoints[u.checkpoint_id] = u.path;
      for (auto it = job.checkpoints.begin(); it != job.checkpoints.end();) {
        if (std::find(u.retained.begin(), u.retained.end(), it->first) == u.retained.end()) {
          it = job.checkpoints.erase(it);
        } else {
          ++it;
        }
      }
      job.counter = u.counter;
      break;
    }
    case HaUpdate::Type::kJobRemoved:
      jobs_.erase(u.job_id);
      break;
  }
  return Status::Ok();
}

bool InMemoryHaStore::HasJob(const std::string& job_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return jobs_.count(job_id) > 0;
}

}  // namespace trimtab::sim::flink
