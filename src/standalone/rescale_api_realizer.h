// RescaleApiScalingRealizer: the standalone autoscaler's ScalingRealizer
// (core/chain/scaling_realizer.h; upstream RescaleApiScalingRealizer): applies parallelism
// overrides in place through Flink's resource-requirements API (FLIP-291), so the job keeps its
// id and rescales from its latest state without a redeploy.
//
// RealizeParallelismOverrides(job_key, overrides), for the job bound to the key:
//   1. the job's jobmanager.scheduler must be "adaptive" (else kFailedPrecondition, nothing sent:
//      the default scheduler cannot rescale in place);
//   2. the job must be RUNNING (else kFailedPrecondition);
//   3. GET /jobs/:id/resource-requirements; every vertex with an override gets the bounds
//      [1, override] as upstream sets them; vertices without one keep theirs;
//   4. only when a bound changed: PUT the whole map, and a Normal "Scaling" event
//      "In-place scaling triggered, the new requirements is {...}". Otherwise nothing is sent
//      (the requirements already match: the usual case on every pass after a scaling).
// An empty map changes nothing. REST failures come back as the transport's status.
//
// RealizeConfigOverrides: memory tuning's TaskManager options cannot be changed through REST; as
// upstream, a warning is logged (once per job and set of keys) and nothing is applied.
//
// Thread-safety: safe for concurrent use for different job keys.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "adapters/flink/rest_client.h"
#include "core/chain/event_handler.h"
#include "core/chain/scaling_realizer.h"

namespace trimtab::standalone {

// What a job key stands for in this pass.
struct RescaleTarget {
  std::shared_ptr<const flink::FlinkRestClient> rest;
  std::string job_id;
  std::string job_status;  // as listed in this pass
  std::map<std::string, std::string> configuration;  // the job's effective configuration
};

class RescaleApiScalingRealizer final : public core::ScalingRealizer {
 public:
  // `events` (not owned) receives the "Scaling" events; it must outlive the realizer.
  explicit RescaleApiScalingRealizer(core::AutoscalerEventHandler* events) : events_(events) {}

  // Binds (or rebinds) the key to a job before the realize calls of a pass.
  void Bind(const std::string& job_key, RescaleTarget target);
  void Unbind(const std::string& job_key);

  Status RealizeParallelismOverrides(const std::string& job_key,
                                     const core::ParallelismOverrides& overrides) override;
  Status RealizeConfigOverrides(const std::string& job_key,
                                const std::map<std::string, std::string>& overrides,
                                const std::set<std::string>& removals) override;

  // What the last RealizeParallelismOverrides of the key did ("" before any): "in-place scaling
  // triggered: ...", "requirements already match" or "no overrides".
  std::string LastAction(const std::string& job_key) const;

 private:
  core::AutoscalerEventHandler* events_;
  mutable std::mutex mu_;
  std::map<std::string, RescaleTarget> targets_;        // guarded by mu_
  std::map<std::string, std::string> last_action_;      // guarded by mu_
  std::map<std::string, std::string> warned_config_;    // guarded by mu_
};

}  // namespace trimtab::standalone
