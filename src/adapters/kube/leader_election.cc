#include "adapters/kube/leader_election.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace trimtab::kube {
namespace {

LeaderElectionRecord RecordFromLease(const Json& lease) {
  LeaderElectionRecord r;
  const auto spec = lease.find("spec");
  if (spec == lease.end() || !spec->is_object()) return r;
  r.holder_identity = spec->value("holderIdentity", "");
  r.lease_duration_seconds = spec->value("leaseDurationSeconds", int64_t{0});
  r.acquire_time = spec->value("acquireTime", "");
  r.renew_time = spec->value("renewTime", "");
  r.leader_transitions = spec->value("leaseTransitions", int64_t{0});
  return r;
}

Json RecordToSpec(const LeaderElectionRecord& r) {
  Json spec = {{"leaseDurationSeconds", r.lease_duration_seconds},
               {"leaseTransitions", r.leader_transitions}};
  // client-go omits empty fields (holderIdentity "" after a release stays explicit there as a
  // pointer to ""; we write it the same way).
  spec["holderIdentity"] = r.holder_identity;
  if (!r.acquire_time.empty()) spec["acquireTime"] = r.acquire_time;
  if (!r.renew_time.empty()) spec["renewTime"] = r.renew_time;
  return spec;
}

int64_t CeilSeconds(Duration d) {
  const auto s = std::chrono::ceil<std::chrono::seconds>(d);
  return s.count();
}

}  // namespace

std::string FormatMicroTime(TimePoint t) {
  const auto secs = std::chrono::floor<std::chrono::seconds>(t);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count();
  std::string text = FormatRfc3339(secs);  // "...:SSZ"
  std::string frac = std::to_string(micros);  // 0..999999
  frac.insert(0, 6 - frac.size(), '0');
  text.insert(text.size() - 1, "." + frac);
  return text;
}

LeaderElector::LeaderElector(const KubeClient* client, LeaderElectionOptions options)
    : client_(client), options_(std::move(options)) {}

StatusOr<std::unique_ptr<LeaderElector>> LeaderElector::Create(const KubeClient* client,
                                                               LeaderElectionOptions options) {
  const std::string what = "leader election " + options.lease_namespace + "/" + options.lease_name;
  if (client == nullptr || options.clock == nullptr) {
    return InvalidArgumentError(what + ": client and clock are required");
  }
  if (options.lease_name.empty() || options.lease_namespace.empty()) {
    return InvalidArgumentError(what + ": lease namespace and name are required");
  }
  if (options.identity.empty()) return InvalidArgumentError(what + ": identity is required");
  if (options.retry_period <= Duration::zero()) {
    return InvalidArgumentError(what + ": retryPeriod must be greater than zero");
  }
  if (options.lease_duration <= options.renew_deadline) {
    return InvalidArgumentError(what + ": leaseDuration must be greater than renewDeadline");
  }
  if (std::chrono::duration<double>(options.renew_deadline).count() <=
      1.2 * std::chrono::duration<double>(options.retry_period).count()) {
    return InvalidArgumentError(what + ": renewDeadline must be greater than retryPeriod*1.2");
  }
  return std::unique_ptr<LeaderElector>(new LeaderElector(client, std::move(options)));
}

bool LeaderElector::IsLeader() const {
  std::lock_guard<std::mutex> lock(mu_);
  return leading_;
}

std::string LeaderElector::Leader() const {
  std::lock_guard<std::mutex> lock(mu_);
  return observed_.holder_identity;
}

void LeaderElector::Stop() { stop_.Stop(); }

void LeaderElector::Observe(const LeaderElectionRecord& record) {
  std::string new_leader;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (record == observed_) return;
    if (record.holder_identity != observed_.holder_identity) new_leader = record.holder_identity;
    observed_ = record;
    observed_time_ = options_.clock->Now();
    leading_ = record.holder_identity == options_.identity;
  }
  if (!new_leader.empty() && options_.on_new_leader) options_.on_new_leader(new_leader);
}

bool LeaderElector::TryAcquireOrRenew() {
  const TimePoint now = options_.clock->Now();
  const std::string now_text = FormatMicroTime(now);
  LeaderElectionRecord desired{.holder_identity = options_.identity,
                               .lease_duration_seconds = CeilSeconds(options_.lease_duration),
                               .acquire_time = now_text,
                               .renew_time = now_text};
  const GroupVersionResource leases = LeasesResource();
  StatusOr<Json> lease = client_->Get(leases, options_.lease_namespace, options_.lease_name);
  if (!lease.ok()) {
    if (lease.status().code() != StatusCode::kNotFound) {
      spdlog::warn("leader election: {}", lease.status().ToString());
      return false;
    }
    const Json fresh = {{"apiVersion", "coordination.k8s.io/v1"},
                        {"kind", "Lease"},
                        {"metadata",
                         {{"name", options_.lease_name}, {"namespace", options_.lease_namespace}}},
                        {"spec", RecordToSpec(desired)}};
    StatusOr<Json> created = client_->Create(leases, options_.lease_namespace, fresh);
    if (!created.ok()) {
      spdlog::info("leader election: create lease: {}", created.status().ToString());
      return false;
    }
    Observe(desired);
    return true;
  }

  const LeaderElectionRecord old = RecordFromLease(*lease);
  Observe(old);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!old.holder_identity.empty() && old.holder_identity != options_.identity &&
        observed_time_ + options_.lease_duration > now) {
      return false;  // held by someone else and not expired
    }
  }
  if (old.holder_identity == options_.identity) {
    desired.acquire_time = old.acquire_time;
    desired.leader_transitions = old.leader_transitions;
  } else {
    desired.leader_transitions = old.leader_transitions + 1;
  }
  Json updated = *lease;
  updated["spec"] = RecordToSpec(desired);
  StatusOr<Json> result = client_->Update(leases, updated);
  if (!result.ok()) {
    spdlog::info("leader election: update lease: {}", result.status().ToString());
    return false;
  }
  Observe(desired);
  return true;
}

Duration LeaderElector::JitteredRetry() {
  if (!options_.jitter) return options_.retry_period;
  std::lock_guard<std::mutex> lock(mu_);
  std::uniform_real_distribution<double> dist(0.0, 1.2);
  return options_.retry_period +
         std::chrono::duration_cast<Duration>(options_.retry_period * dist(rng_));
}

bool LeaderElector::Wait(Duration d) {
  waiting_ = true;
  const bool done = stop_.WaitFor(options_.clock, d, options_.poll_interval);
  waiting_ = false;
  return done;
}

void LeaderElector::Release() {
  const GroupVersionResource leases = LeasesResource();
  StatusOr<Json> lease = client_->Get(leases, options_.lease_namespace, options_.lease_name);
  if (!lease.ok() || RecordFromLease(*lease).holder_identity != options_.identity) return;
  const std::string now_text = FormatMicroTime(options_.clock->Now());
  const LeaderElectionRecord released{
      .holder_identity = "",
      .lease_duration_seconds = 1,
      .acquire_time = now_text,
      .renew_time = now_text,
      .leader_transitions = RecordFromLease(*lease).leader_transitions};
  Json updated = *lease;
  updated["spec"] = RecordToSpec(released);
  StatusOr<Json> result = client_->Update(leases, updated);
  if (!result.ok()) {
    spdlog::warn("leader election: release lease: {}", result.status().ToString());
    return;
  }
  Observe(released);
}

void LeaderElector::Run() {
  // Acquire.
  while (true) {
    if (stop_.stopped()) return;
    if (TryAcquireOrRenew()) break;
    if (!Wait(JitteredRetry())) return;
  }
  spdlog::info("leader election: {} acquired lease {}/{}", options_.identity,
               options_.lease_namespace, options_.lease_name);
  if (options_.on_started_leading) options_.on_started_leading();

  // Renew until a renewal misses the deadline or we are stopped.
  bool lost = false;
  while (!stop_.stopped()) {
    const TimePoint deadline = options_.clock->Now() + options_.renew_deadline;
    bool renewed = false;
    while (true) {
      if (TryAcquireOrRenew()) {
        renewed = true;
        break;
      }
      if (options_.clock->Now() >= deadline) break;
      if (!Wait(options_.retry_period)) break;
    }
    if (stop_.stopped()) break;
    if (!renewed) {
      lost = true;
      break;
    }
    if (!Wait(options_.retry_period)) break;
  }
  if (lost) {
    spdlog::warn("leader election: {} failed to renew lease {}/{} within {} ms", options_.identity,
                 options_.lease_namespace, options_.lease_name,
                 std::chrono::duration_cast<std::chrono::milliseconds>(options_.renew_deadline)
                     .count());
  } else if (options_.release_on_cancel) {
    Release();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    leading_ = false;
  }
  if (options_.on_stopped_leading) options_.on_stopped_leading();
}

}  // namespace trimtab::kube
