// Scaling policies for `trimtab simulate`: the simulator asks a policy every decision interval
// what parallelism each vertex should have, and applies the answer through JobModel::Rescale.
//
// A policy sees what a real autoscaler sees (the metric snapshot and the job topology) plus its
// own state, which lives in the policy object (one object per simulation run). Policies that
// are analytical bounds rather than real controllers (the oracle) declare it in their traits
// and then also get the model's ground truth.
//
// Adding a policy: implement ScalingPolicy, then register a factory:
//   registry.Register("hpa-cpu", [](const Json& config) -> StatusOr<std::unique_ptr<ScalingPolicy>> {
//     ... parse config with JsonReader, reject unknown fields ...
//   });
//
// Thread-safety: a policy object is used by one simulation run at a time.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/scaling_types.h"
#include "sim/metrics.h"

namespace trimtab::sim {

class JobModel;

struct PolicyTraits {
  // Decide at every simulation step instead of every decision interval.
  bool every_step = false;
  // Rescales cost nothing (no downtime, no rewind). Only for analytical bounds.
  bool free_restarts = false;
  // The policy needs PolicyInput::truth (ground truth). Only for analytical bounds.
  bool needs_ground_truth = false;
  // The policy reads PolicyInput::metrics; when false the simulator skips the snapshot.
  bool needs_metrics = true;
};

struct PolicyInput {
  double now_seconds = 0;
  const JobMetrics* metrics = nullptr;         // set when traits().needs_metrics
  const core::JobTopology* topology = nullptr;  // always set
  const JobModel* truth = nullptr;              // set only when traits().needs_ground_truth
  // Asks for PolicyDecision::explanation (`trimtab simulate --decision-log`).
  bool explain = false;
};

// What a policy decided at one instant.
struct PolicyDecision {
  // Desired parallelism per vertex; vertices left out keep theirs. nullopt: no change.
  std::optional<std::map<core::VertexId, int>> parallelism;
  // Why, one short sentence each ("window: busy 930 ms/s > target 700").
  std::vector<std::string> reasons;
  // Only when PolicyInput::explain: the whole decision cycle as a JSON object (what each stage
  // saw and did), also when nothing changes. Null for policies that have none to give. (A
  // pointer: common/json.h only declares Json, and most users of this header never need it.)
  std::shared_ptr<const Json> explanation;
};

class ScalingPolicy {
 public:
  virtual ~ScalingPolicy() = default;
  // Stable name as written in scenario files ("static", "oracle", ...).
  virtual std::string_view name() const = 0;
  virtual PolicyTraits traits() const { return {}; }
  // Called every decision interval (or every step, see traits). An error aborts the run.
  virtual StatusOr<PolicyDecision> Decide(const PolicyInput& input) = 0;
};

using PolicyFactory = std::function<StatusOr<std::unique_ptr<ScalingPolicy>>(const Json& config)>;

// Name -> factory. Duplicate names are rejected; Names() is sorted.
class PolicyRegistry {
 public:
  Status Register(const std::string& name, PolicyFactory factory);
  // `config` is the policy's object from the scenario (may be null / empty object).
  StatusOr<std::unique_ptr<ScalingPolicy>> Create(const std::string& name, const Json& config,
                                                  const std::string& path) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, PolicyFactory> factories_;
};

// A registry holding the in-tree reference policies: "static" and "oracle".
PolicyRegistry DefaultPolicyRegistry();

// `static`: never changes parallelism (the baseline every autoscaler must beat on cost or lag).
std::unique_ptr<ScalingPolicy> MakeStaticPolicy();

// `oracle`: the lower bound. At every step it sets each vertex to the fewest subtasks that carry
// the true current demand (from the workload, not from metrics) given key-group and partition
// skew, and its rescales are free. Not a real policy: it reads ground truth.
//   config: {headroom: 0.0}  extra capacity fraction kept (0 = exactly the load)
StatusOr<std::unique_ptr<ScalingPolicy>> MakeOraclePolicy(const Json& config);

}  // namespace trimtab::sim
