// ExecutorPlugin: one step of the scaling executor chain (DESIGN.md §2 stage 5; upstream FLIP
// "ScalingExecutorPlugin"). After the algorithm and the behavior rules have produced scaling
// summaries, every plugin of the chain sees them in ascending priority and answers:
//
//   approve  the summaries pass unchanged to the next plugin
//   modify   the plugin's own summaries replace them for the next plugin
//   veto     the chain stops; nothing is scaled in this cycle
//
// An empty summaries map returned with "modify" is a veto, and so is an error Status from
// Execute (a metric that could not be read, a webhook that timed out ...): the runner records the
// error as the veto reason. Plugins never throw.
//
// Plugins are created by a factory from their JSON config (plugin_registry.h) and live as long as
// the chain; the same instance serves every job, so anything kept between cycles for one job goes
// into the plugin-private state that the caller persists (`plugin_state` below), never into
// plugin globals.
//
// Thread-safety: Execute may be called concurrently for different jobs; implementations keep no
// mutable members (or guard them).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"
#include "core/chain/cycle_state.h"
#include "core/chain/metric_requirements.h"
#include "core/chain/queue_headroom.h"
#include "core/scaling_types.h"

namespace trimtab::core {

// What a plugin decided.
enum class ChainVerdict {
  kApprove,  // pass the input on unchanged
  kModify,   // pass `summaries` on instead; an empty map is turned into a veto
  kVeto,     // stop the chain; the job is not scaled this cycle
};

std::string_view ChainVerdictName(ChainVerdict v);  // "approve" | "modify" | "veto"
StatusOr<ChainVerdict> ParseChainVerdict(std::string_view text);

// Slot footprint of another job managed by the same control plane, so that plugins that share a
// budget between jobs (budget-cap per namespace, multi-job-coordinator) can see the others.
struct JobFootprint {
  std::string job_key;
  std::string namespace_name;
  int slots = 0;          // slots in use now
  int desired_slots = 0;  // slots its latest recommendation asks for; 0 = same as `slots`
  double weight = 1.0;    // fair-share weight (multi-job-coordinator)
};

// Everything a plugin may look at besides the summaries. The caller fills it once per cycle.
struct ExecutorContext {
  std::string job_key;         // "<namespace>/<name>" in the operator, any id standalone
  std::string namespace_name;  // Kubernetes namespace ("" standalone)
  TimePoint now;               // the cycle's time (from the Clock, never read by plugins)
  std::map<std::string, std::string> configuration;  // the job's effective Flink configuration
  EvaluatedMetrics metrics;    // evaluated metrics of this cycle (including custom metrics)
  JobTopology topology;        // the running job graph with current parallelism
  std::vector<JobFootprint> fleet;  // other jobs (this job excluded); empty when unknown
  // The job's Volcano queue and the free room on the nodes, when its TaskManagers are in a
  // Volcano queue (the operator fills it; nullopt otherwise and in standalone modes).
  std::optional<QueueHeadroom> queue;
  // The free room on the nodes for a job outside a Volcano queue: node_free, cluster_total and
  // the TaskManager shape set, the queue fields unset (the operator fills it; nullopt when the
  // job is in a queue, in standalone modes, or when the nodes could not be read).
  std::optional<QueueHeadroom> cluster;
};

// A plugin's answer.
struct ExecutorResult {
  ChainVerdict verdict = ChainVerdict::kApprove;
  ScalingSummaries summaries;  // read only for kModify
  std::string reason;          // why; shown in the decision log and in the veto event

  static ExecutorResult Approve(std::string reason = "");
  static ExecutorResult Modify(ScalingSummaries summaries, std::string reason);
  static ExecutorResult Veto(std::string reason);
};

// Name and priority of one configured plugin instance.
struct PluginIdentity {
  std::string name;  // unique in the chain; defaults to the plugin type
  int priority = 0;  // lower runs first; ties run in name order
};

class ExecutorPlugin {
 public:
  explicit ExecutorPlugin(PluginIdentity identity) : identity_(std::move(identity)) {}
  virtual ~ExecutorPlugin() = default;

  const std::string& name() const { return identity_.name; }
  int priority() const { return identity_.priority; }

  // Decides on `summaries` (never empty when called). `plugin_state` is this plugin's private
  // state for this job: JSON null on the first cycle, and whatever the plugin left there the
  // previous time; the caller persists it. `cycle` is shared with the other plugins of this run.
  // An error Status is recorded as a veto.
  virtual StatusOr<ExecutorResult> Execute(const ExecutorContext& context,
                                           const ScalingSummaries& summaries, CycleState& cycle,
                                           Json& plugin_state) = 0;

  // Extra metrics this plugin reads from ExecutorContext::metrics, so the collector fetches them
  // (metric_requirements.h). Default: none.
  virtual std::vector<MetricRequirement> RequiredMetrics() const { return {}; }

 private:
  PluginIdentity identity_;
};

}  // namespace trimtab::core
