#include "cluster/flink/flink_cluster.h"

#include <spdlog/spdlog.h>

namespace trimtab::sim::flink {

StatusOr<std::unique_ptr<FlinkCluster>> FlinkCluster::Create(FlinkClusterOptions options) {
  Clock* clock = options.clock ? options.clock : RealClock::Default();
  std::unique_ptr<FlinkCluster> cluster(new FlinkCluster(clock));
  cluster->ha_ = options.cluster.ha;
  cluster->fs_ = options.cluster.fs;
  TRIMTAB_ASSIGN_OR_RETURN(cluster->state_, ClusterState::Create(std::move(options.cluster), clock->Now()));
  {
    std::lock_guard<std::mutex> lock(cluster->mu_);
    cluster->CollectHaLocked();
  }
  cluster->FlushHa();
  if (options.tick.count() > 0) {
    cluster->driver_ = std::thread([c = cluster.get(), tick = options.tick] { c->Drive(tick); });
  }
  return cluster;
}

FlinkCluster::~FlinkCluster() { Shutdown(); }

void FlinkCluster::AdvanceToNow() {
  Locked([](ClusterState&) {});
}

void FlinkCluster::Drive(std::chrono::milliseconds tick) {
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, tick, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    AdvanceToNow();
    lock.lock();
  }
}

void FlinkCluster::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (driver_.joinable()) driver_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_ || !state_) return;  // no state: Create() failed
    shut_down_ = true;
    state_->AdvanceTo(clock_->Now());
    state_->SuspendAll();
    CollectHaLocked();
  }
  FlushHa();
}

void FlinkCluster::CollectHaLocked() {
  std::vector<HaUpdate> updates = state_->TakeHaUpdates();
  if (updates.empty()) return;
  std::lock_guard<std::mutex> lock(ha_mu_);
  for (HaUpdate& u : updates) ha_pending_.push_back(std::move(u));
}

void FlinkCluster::FlushHa() {
  if (!ha_) return;
  std::lock_guard<std::mutex> lock(ha_mu_);
  while (!ha_pending_.empty()) {
    const Status s = ha_->Apply(ha_pending_.front());
    if (!s.ok()) {
      spdlog::warn("flink cluster: HA update for job {} failed, will retry: {}", ha_pending_.front().job_id,
                   s.ToString());
      return;
    }
    // Only now may the checkpoints the stored one subsumes go (a kill before this line leaves
    // their directories behind, never HA metadata naming a deleted checkpoint).
    if (fs_) {
      for (const std::string& path : ha_pending_.front().discard_after_stored) fs_->RemoveAll(path).IgnoreError();
    }
    ha_pending_.pop_front();
  }
}

size_t FlinkCluster::pending_ha_updates() const {
  std::lock_guard<std::mutex> lock(ha_mu_);
  return ha_pending_.size();
}

}  // namespace trimtab::sim::flink
