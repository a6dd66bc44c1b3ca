// The `oracle` reference policy (see policy.h): the analytical lower bound on slots.
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/job_model.h"
#include "sim/parse_util.h"
#include "sim/policy.h"

namespace trimtab::sim {

namespace {

class OraclePolicy final : public ScalingPolicy {
 public:
  explicit OraclePolicy(double headroom) : headroom_(headroom) {}
  std::string_view name() const override { return "oracle"; }
  PolicyTraits traits() const override {
    return {.every_step = true, .free_restarts = true, .needs_ground_truth = true, .needs_metrics = false};
  }

  StatusOr<PolicyDecision> Decide(const PolicyInput& input) override {
    if (!input.truth || !input.topology) return InternalError("oracle: needs ground truth and topology");
    const JobModel& m = *input.truth;
    if (Unchanged(m, *input.topology)) return PolicyDecision{};
    m.TrueDemand(&demand_);
    target_.resize(demand_.size());
    bool change = false;
    for (size_t i = 0; i < demand_.size(); ++i) {
      VertexDemand want = demand_[i];
      want.total *= 1.0 + headroom_;
      want.hashed *= 1.0 + headroom_;
      target_[i] = m.MinimalParallelism(static_cast<int>(i), want);
      change = change || target_[i] != input.topology->vertices[i].parallelism;
    }
    // Called every step, and most steps change nothing: the decision is only spelled out when
    // one does.
    PolicyDecision d;
    quiet_.model = change ? nullptr : &m;
    if (!change) return d;
    std::map<core::VertexId, int> target;
    for (size_t i = 0; i < demand_.size(); ++i) {
      const int p = target_[i];
      const core::VertexInfo& v = input.topology->vertices[i];
      target[v.id] = p;
      if (p != v.parallelism) {
        d.reasons.push_back(fmt::format("{}: true demand {:.0f} records/s needs {} subtasks (was {})",
                                        v.id, demand_[i].total, p, v.parallelism));
      }
    }
    d.parallelism = std::move(target);
    return d;
  }

 private:
  // The answer depends on nothing but the source rates and the parallelism, so a step that has
  // the same ones as the last step, which changed nothing, changes nothing either. Remembered
  // for one model and forward in time only (a run that reuses this policy starts at time 0).
  bool Unchanged(const JobModel& m, const core::JobTopology& topology) {
    const bool later = m.now_seconds() > quiet_.time;
    quiet_.time = m.now_seconds();
    bool same = quiet_.model == &m && later;
    quiet_.rates.resize(static_cast<size_t>(m.num_sources()));
    for (size_t s = 0; s < quiet_.rates.size(); ++s) {
      same = same && quiet_.rates[s] == m.source_rate(static_cast<int>(s));
      quiet_.rates[s] = m.source_rate(static_cast<int>(s));
    }
    quiet_.parallelism.resize(topology.vertices.size());
    for (size_t i = 0; i < quiet_.parallelism.size(); ++i) {
      same = same && quiet_.parallelism[i] == topology.vertices[i].parallelism;
      quiet_.parallelism[i] = topology.vertices[i].parallelism;
    }
    return same;
  }

  double headroom_;
  std::vector<VertexDemand> demand_;  // per vertex, reused from step to step
  std::vector<int> target_;
  struct {
    const JobModel* model = nullptr;  // null: the last step changed something
    double time = -1;
    std::vector<double> rates;  // per source
    std::vector<int> parallelism;  // per vertex
  } quiet_;
};

}  // namespace

StatusOr<std::unique_ptr<ScalingPolicy>> MakeOraclePolicy(const Json& config) {
  double headroom = 0;
  if (!config.is_null()) {
    JsonReader r(config, "config");
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("headroom", &headroom));
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    TRIMTAB_RETURN_IF_ERROR(CheckRange(r.FieldPath("headroom"), headroom, 0, 10));
  }
  return std::unique_ptr<ScalingPolicy>(new OraclePolicy(headroom));
}

}  // namespace trimtab::sim
