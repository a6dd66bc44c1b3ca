// SchedulerConfig: Volcano's `volcano-scheduler.conf` (pkg/scheduler/conf/scheduler_conf.go):
// the actions to run in order and the tiers of plugins with their per-extension-point switches
// and arguments.
//
//   actions: "enqueue, allocate, backfill"
//   tiers:
//   - plugins:
//     - name: priority
//     - name: gang
//       enablePreemptable: false
//   - plugins:
//     - name: overcommit
//       arguments: {overcommit-factor: 1.2}
//   configurations:            # per-action arguments (optional)
//   - name: allocate
//     arguments: {...}
//
// Every `enable...` switch that is not written counts as true (Volcano's ApplyPluginConfDefaults
// for a config file). Differences from Volcano's loader, on purpose: unknown fields, unknown
// action names and unknown plugin names are errors naming the field
// ("tiers[1].plugins[2].name: unknown plugin \"foo\" (known: binpack, capacity, ...)") instead
// of being ignored or logged.
//
// Thread-safety: values; DefaultSchedulerConfig() returns an immutable shared instance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Json is held by value: the complete type is needed.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::core::scheduling {

// One plugin of a tier. Each switch gates one extension point of the plugin; nullopt = true.
struct PluginOption {
  std::string name;
  std::optional<bool> enable_job_order;         // enableJobOrder
  std::optional<bool> enable_hierarchy;         // enableHierarchy (capacity, drf)
  std::optional<bool> enable_job_ready;         // enableJobReady
  std::optional<bool> enable_job_pipelined;     // enableJobPipelined
  std::optional<bool> enable_task_order;        // enableTaskOrder
  std::optional<bool> enable_preemptable;       // enablePreemptable
  std::optional<bool> enable_reclaimable;       // enableReclaimable
  std::optional<bool> enable_preemptive;        // enablePreemptive
  std::optional<bool> enable_queue_order;       // enableQueueOrder
  std::optional<bool> enable_cluster_order;     // enabledClusterOrder
  std::optional<bool> enable_predicate;         // enablePredicate (also PrePredicate)
  std::optional<bool> enable_best_node;         // enableBestNode
  std::optional<bool> enable_node_order;        // enableNodeOrder
  std::optional<bool> enable_target_job;        // enableTargetJob
  std::optional<bool> enable_reserved_nodes;    // enableReservedNodes
  std::optional<bool> enable_job_enqueued;      // enableJobEnqueued (enqueueable and enqueued)
  std::optional<bool> enable_victim;            // enabledVictim
  std::optional<bool> enable_job_starving;      // enableJobStarving
  std::optional<bool> enable_overused;          // enabledOverused
  std::optional<bool> enable_allocatable;       // enabledAllocatable
  std::optional<bool> enable_hyper_node_order;  // enabledHyperNodeOrder
  std::optional<bool> enable_sub_job_ready;     // enabledSubJobReady
  std::optional<bool> enable_sub_job_pipelined; // enabledSubJobPipelined
  std::optional<bool> enable_sub_job_order;     // enabledSubJobOrder
  std::optional<bool> enable_hyper_node_gradient;  // enabledHyperNodeGradient
  // `arguments`: a JSON object (plugin-specific keys such as "overcommit-factor",
  // "binpack.weight", "leastrequested.weight"); {} when absent.
  Json arguments;

  // The switch value with Volcano's default (true).
  static bool On(const std::optional<bool>& flag) { return flag.value_or(true); }
};

struct Tier {
  std::vector<PluginOption> plugins;
};

// Arguments of one action (`configurations[]`).
struct ActionConfiguration {
  std::string name;
  Json arguments;  // object
};

struct SchedulerConfig {
  std::vector<std::string> actions;  // in execution order, e.g. {"enqueue","allocate","backfill"}
  std::vector<Tier> tiers;
  std::vector<ActionConfiguration> configurations;
  std::string source;  // where it came from ("volcano-scheduler.conf", "default"), for logs

  // The arguments of `action` from `configurations`, or an empty object.
  const Json& ActionArguments(std::string_view action) const;
  bool HasAction(std::string_view action) const;
};

// Parses the YAML (or JSON) text of a volcano-scheduler.conf. `source` names it in errors.
StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml_text, std::string_view source);
// Decodes the already-parsed structure (the `config:` object of an eval document). `path` is
// its JSON path for errors ("config").
StatusOr<SchedulerConfig> SchedulerConfigFromJson(const Json& doc, std::string_view path);
// The inverse of SchedulerConfigFromJson (switches that were not written stay absent).
Json SchedulerConfigToJson(const SchedulerConfig& config);

// The Helm chart's volcano-scheduler.conf: actions "enqueue, allocate, backfill"; tier 1
// priority, gang (enablePreemptable: false), conformance; tier 2 overcommit, drf
// (enablePreemptable: false), predicates, proportion, nodeorder, binpack.
const SchedulerConfig& DefaultSchedulerConfig();
// Its text, as shipped.
std::string_view DefaultSchedulerConfigText();

// The action and plugin names this engine implements, sorted.
const std::vector<std::string>& KnownActionNames();
const std::vector<std::string>& KnownPluginNames();
// Plugins Volcano has and this engine does not (network-topology-aware, tdm, ...): a config
// naming one is refused with a message saying so, not as a typo.
const std::vector<std::string>& UnsupportedVolcanoPluginNames();

}  // namespace trimtab::core::scheduling
