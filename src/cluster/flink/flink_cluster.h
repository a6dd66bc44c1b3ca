// FlinkCluster: a simulated Flink cluster (one JobManager, its TaskManagers and jobs) driven by
// a Clock. It wraps ClusterState with a lock, advances it to the clock's now before every use
// (so a ManualClock test sees exactly the instants it sets), optionally from a background
// thread too, and flushes HA updates to the HaStore outside the lock, in order. A checkpoint
// subsumed by a newer one is deleted only after the HA update naming the newer one is stored.
//
// Usage (no Kubernetes: TaskManagers appear on demand):
//   ManualClock clock(FromUnixMillis(1'700'000'000'000));
//   auto topics = std::make_shared<TopicRegistry>(&clock);
//   FlinkConfig config;  config.Set("execution.checkpointing.interval", "10 s");
//   TRIMTAB_ASSIGN_OR_RETURN(ClusterSettings settings, ClusterSettings::Parse(config, {.cluster_id = "wc"}));
//   TRIMTAB_ASSIGN_OR_RETURN(auto cluster, FlinkCluster::Create({.cluster = {.config = config,
//       .settings = settings, .topics = topics, .fs = fs}, .clock = &clock}));
//   clock.Advance(std::chrono::minutes(1));
//   cluster->Locked([](ClusterState& s) { ... s.jobs() ... });
//
// Thread-safety: all methods are safe for concurrent use. Locked() must not be re-entered from
// inside its callback.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include "common/clock.h"
#include "common/status.h"
#include "cluster/flink/cluster_state.h"

namespace trimtab::sim::flink {

struct FlinkClusterOptions {
  ClusterOptions cluster;
  Clock* clock = nullptr;  // null: the real clock
  // When > 0, a background thread advances the cluster every `tick` of wall time, so
  // checkpoints complete and HA metadata is written without REST traffic.
  std::chrono::milliseconds tick{0};
};

class FlinkCluster {
 public:
  static StatusOr<std::unique_ptr<FlinkCluster>> Create(FlinkClusterOptions options);
  ~FlinkCluster();
  FlinkCluster(const FlinkCluster&) = delete;
  FlinkCluster& operator=(const FlinkCluster&) = delete;

  // Advances to the clock's now, runs fn(ClusterState&) under the lock, then flushes HA.
  template <typename Fn>
  auto Locked(Fn&& fn) -> std::invoke_result_t<Fn, ClusterState&> {
    using R = std::invoke_result_t<Fn, ClusterState&>;
    if constexpr (std::is_void_v<R>) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        state_->AdvanceTo(clock_->Now());
        fn(*state_);
        CollectHaLocked();
      }
      FlushHa();
    } else {
      std::unique_lock<std::mutex> lock(mu_);
      state_->AdvanceTo(clock_->Now());
      R result = fn(*state_);
      CollectHaLocked();
      lock.unlock();
      FlushHa();
      return result;
    }
  }

  void AdvanceToNow();
  // Stops the background thread; every job is SUSPENDED (JobManager shutdown). Idempotent.
  void Shutdown();
  Clock* clock() const { return clock_; }
  // HA updates that could not be written yet (they are retried on the next flush).
  size_t pending_ha_updates() const;

 private:
  explicit FlinkCluster(Clock* clock) : clock_(clock) {}
  void CollectHaLocked();
  void FlushHa();
  void Drive(std::chrono::milliseconds tick);

  Clock* clock_;
  std::shared_ptr<HaStore> ha_;
  std::shared_ptr<SimFileSystem> fs_;  // removes subsumed checkpoints once HA names the newer one
  mutable std::mutex mu_;
  std::unique_ptr<ClusterState> state_;  // guarded by mu_
  mutable std::mutex ha_mu_;             // serializes flushes; guards ha_pending_
  std::deque<HaUpdate> ha_pending_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by stop_mu_
  bool shut_down_ = false;  // guarded by mu_
  std::thread driver_;
};

}  // namespace trimtab::sim::flink
