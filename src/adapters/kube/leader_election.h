// LeaderElector: leader election on a coordination.k8s.io/v1 Lease, with client-go's
// semantics (k8s.io/client-go/tools/leaderelection), so trimtab replicas interoperate with any
// other client-go style candidate on the same Lease.
//
// The Lease spec is the election record: holderIdentity, leaseDurationSeconds, acquireTime,
// renewTime (RFC 3339 with microseconds) and leaseTransitions. One attempt (tryAcquireOrRenew):
//  1. GET the Lease; if absent, CREATE it naming us (409 -> someone else won the race).
//  2. If the record differs from the last one seen, remember it and the local time it was seen.
//  3. If another holder's record was last seen changing less than leaseDuration ago, give up
//     this attempt: the lease is theirs. (Expiry is judged on our clock from when we observed the
//     change, never by comparing timestamps across machines.)
//  4. Otherwise PUT the record with us as holder (acquireTime and leaseTransitions+1 on a
//     change of holder), guarded by the resourceVersion read in 1; a 409 means we lost a race.
//
// Run(): attempts every retry_period (jittered by up to 1.2x) until one succeeds, calls
// on_started_leading, then renews every retry_period; if no renewal succeeds within
// renew_deadline, leadership is lost. On Stop() while leading and release_on_cancel, the Lease is
// released (holderIdentity "", leaseDurationSeconds 1) so another candidate takes over at once.
// on_stopped_leading is called when Run() returns after having led. Defaults: 15 s / 10 s / 2 s.
//
// Usage:
//   auto elector = LeaderElector::Create(client, {.lease_namespace = "trimtab-system",
//       .lease_name = "trimtab-operator", .identity = pod_name,
//       .on_started_leading = [&] { manager.StartControllers(); },
//       .on_stopped_leading = [&] { manager.StopControllers(); }});
//   std::thread t([&] { (*elector)->Run(); });
//
// Thread-safety: Run() on one thread; Stop(), IsLeader(), Leader() from any thread. Callbacks
// run on the Run() thread and must return promptly.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/stop_signal.h"
#include "common/clock.h"

namespace trimtab::kube {

struct LeaderElectionOptions {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per candidate, e.g. the pod name
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_cancel = true;
  Clock* clock = RealClock::Default();
  bool jitter = true;  // tests turn it off for exact timing
  std::chrono::milliseconds poll_interval{20};  // see stop_signal.h
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // Called when the observed holder changes (including to us).
  std::function<void(const std::string& identity)> on_new_leader;
};

// The election record as stored in Lease.spec.
struct LeaderElectionRecord {
  std::string holder_identity;
  int64_t lease_duration_seconds = 0;
  std::string acquire_time;  // MicroTime text
  std::string renew_time;
  int64_t leader_transitions = 0;
  friend bool operator==(const LeaderElectionRecord&, const LeaderElectionRecord&) = default;
};

// "2024-05-01T12:00:00.123456Z" (metav1.MicroTime).
std::string FormatMicroTime(TimePoint t);

class LeaderElector {
 public:
  // `client` must outlive the elector. Validates the timing rules of client-go:
  // lease_duration > renew_deadline > 1.2 * retry_period > 0.
  static StatusOr<std::unique_ptr<LeaderElector>> Create(const KubeClient* client,
                                                         LeaderElectionOptions options);

  // Blocks: acquire, lead, renew; returns when leadership is lost or Stop() is called.
  void Run();
  void Stop();

  bool IsLeader() const;
  // The holder last observed ("" when unknown).
  std::string Leader() const;

  // One acquire-or-renew attempt (exposed for tests): true when we hold the lease afterwards.
  bool TryAcquireOrRenew();
  // True while Run() waits between attempts (tests advance a ManualClock only then).
  bool WaitingForTest() const { return waiting_.load(); }

 private:
  LeaderElector(const KubeClient* client, LeaderElectionOptions options);

  void Observe(const LeaderElectionRecord& record);
  void Release();
  Duration JitteredRetry();
  // Waits `d` on the clock with waiting_ set; false when stopped.
  bool Wait(Duration d);

  const KubeClient* client_;
  LeaderElectionOptions options_;
  StopSignal stop_;
  std::atomic<bool> waiting_{false};

  mutable std::mutex mu_;
  LeaderElectionRecord observed_;         // guarded by mu_
  TimePoint observed_time_{};             // guarded by mu_
  std::string observed_resource_version_; // guarded by mu_
  bool leading_ = false;                  // guarded by mu_
  std::mt19937_64 rng_{std::random_device{}()};  // guarded by mu_
};

}  // namespace trimtab::kube
