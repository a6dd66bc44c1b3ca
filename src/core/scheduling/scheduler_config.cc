#include "core/scheduling/scheduler_config.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling {
namespace {

// The Helm chart's volcano-scheduler.conf, as shipped.
constexpr std::string_view kDefaultConfigText = R"(actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
)";

struct FlagField {
  std::string_view key;
  std::optional<bool> PluginOption::*member;
};

// The YAML keys of the switches, spelled as Volcano's PluginOption tags (some say "enabled").
constexpr FlagField kFlagFields[] = {
    {"enableJobOrder", &PluginOption::enable_job_order},
    {"enableHierarchy", &PluginOption::enable_hierarchy},
    {"enableJobReady", &PluginOption::enable_job_ready},
    {"enableJobPipelined", &PluginOption::enable_job_pipelined},
    {"enableTaskOrder", &PluginOption::enable_task_order},
    {"enablePreemptable", &PluginOption::enable_preemptable},
    {"enableReclaimable", &PluginOption::enable_reclaimable},
    {"enablePreemptive", &PluginOption::enable_preemptive},
    {"enableQueueOrder", &PluginOption::enable_queue_order},
    {"enabledClusterOrder", &PluginOption::enable_cluster_order},
    {"enablePredicate", &PluginOption::enable_predicate},
    {"enableBestNode", &PluginOption::enable_best_node},
    {"enableNodeOrder", &PluginOption::enable_node_order},
    {"enableTargetJob", &PluginOption::enable_target_job},
    {"enableReservedNodes", &PluginOption::enable_reserved_nodes},
    {"enableJobEnqueued", &PluginOption::enable_job_enqueued},
    {"enabledVictim", &PluginOption::enable_victim},
    {"enableJobStarving", &PluginOption::enable_job_starving},
    {"enabledOverused", &PluginOption::enable_overused},
    {"enabledAllocatable", &PluginOption::enable_allocatable},
    {"enabledHyperNodeOrder", &PluginOption::enable_hyper_node_order},
    {"enabledSubJobReady", &PluginOption::enable_sub_job_ready},
    {"enabledSubJobPipelined", &PluginOption::enable_sub_job_pipelined},
    {"enabledSubJobOrder", &PluginOption::enable_sub_job_order},
    {"enabledHyperNodeGradient", &PluginOption::enable_hyper_node_gradient},
};

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool Known(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

StatusOr<PluginOption> PluginOptionFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  PluginOption p;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("name", &p.name));
  if (!Known(KnownPluginNames(), p.name)) {
    if (Known(UnsupportedVolcanoPluginNames(), p.name)) {
      return InvalidArgumentError(r.FieldPath("name") + ": Volcano plugin \"" + p.name +
                                  "\" is not supported by this engine (supported: " +
                                  JoinNames(KnownPluginNames()) + "); remove it from the tier");
    }
    return InvalidArgumentError(r.FieldPath("name") + ": unknown plugin \"" + p.name +
                                "\" (known: " + JoinNames(KnownPluginNames()) + ")");
  }
  for (const FlagField& f : kFlagFields) {
    if (!r.Has(f.key)) continue;
    bool value = true;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalBool(f.key, &value));
    p.*(f.member) = value;
  }
  p.arguments = Json::object();
  if (const Json* args = r.Get("arguments")) {
    if (!args->is_null()) {
      if (!args->is_object()) {
        return InvalidArgumentError(r.FieldPath("arguments") + ": expected an object, got " +
                                    std::string(JsonTypeName(*args)));
      }
      p.arguments = *args;
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return p;
}

}  // namespace

const std::vector<std::string>& KnownActionNames() {
  static const std::vector<std::string> names = {"allocate", "backfill",  "enqueue", "gangpreempt",
                                                 "gangreclaim", "preempt", "reclaim"};
  return names;
}

const std::vector<std::string>& KnownPluginNames() {
  static const std::vector<std::string> names = {
      "binpack",  "capacity",  "conformance", "drf",        "gang",
      "nodeorder", "overcommit", "predicates", "priority", "proportion", "sla"};
  return names;
}

const std::vector<std::string>& UnsupportedVolcanoPluginNames() {
  static const std::vector<std::string> names = {
      "cdp",       "deviceshare", "extender",        "network-topology-aware", "nodegroup",
      "numa-aware", "pdb",        "rescheduling",    "resource-strategy-fit",  "resourcequota",
      "task-topology", "tdm",           "usage"};
  return names;
}

const Json& SchedulerConfig::ActionArguments(std::string_view action) const {
  static const Json empty = Json::object();
  for (const auto& c : configurations) {
    if (c.name == action) return c.arguments;
  }
  return empty;
}

bool SchedulerConfig::HasAction(std::string_view action) const {
  return std::find(actions.begin(), actions.end(), action) != actions.end();
}

StatusOr<SchedulerConfig> SchedulerConfigFromJson(const Json& doc, std::string_view path) {
  JsonReader r(doc, std::string(path));
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  SchedulerConfig config;
  std::string actions;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("actions", &actions));
  std::string_view rest = actions;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view name = Trim(rest.substr(0, comma));
    if (name.empty()) {
      return InvalidArgumentError(r.FieldPath("actions") + ": empty action name in \"" + actions +
                                  "\"");
    }
    if (name == "shuffle") {
      return InvalidArgumentError(r.FieldPath("actions") +
                                  ": Volcano action \"shuffle\" is not supported by this engine "
                                  "(supported: " + JoinNames(KnownActionNames()) + ")");
    }
    if (!Known(KnownActionNames(), name)) {
      return InvalidArgumentError(r.FieldPath("actions") + ": unknown action \"" +
                                  std::string(name) + "\" (known: " +
                                  JoinNames(KnownActionNames()) + ")");
    }
    config.actions.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (const Json* tiers = r.Get("tiers"); tiers && !tiers->is_null()) {
    const std::string tiers_path = r.FieldPath("tiers");
    if (!tiers->is_array()) {
      return InvalidArgumentError(tiers_path + ": expected a list, got " +
                                  std::string(JsonTypeName(*tiers)));
    }
    for (size_t i = 0; i < tiers->size(); ++i) {
      const std::string tier_path = JoinPath(tiers_path, i);
      JsonReader t((*tiers)[i], tier_path);
      TRIMTAB_RETURN_IF_ERROR(t.ExpectObject());
      Tier tier;
      if (const Json* plugins = t.Get("plugins"); plugins && !plugins->is_null()) {
        const std::string plugins_path = t.FieldPath("plugins");
        if (!plugins->is_array()) {
          return InvalidArgumentError(plugins_path + ": expected a list, got " +
                                      std::string(JsonTypeName(*plugins)));
        }
        for (size_t k = 0; k < plugins->size(); ++k) {
          TRIMTAB_ASSIGN_OR_RETURN(PluginOption p,
                                   PluginOptionFromJson((*plugins)[k], JoinPath(plugins_path, k)));
          tier.plugins.push_back(std::move(p));
        }
      }
      TRIMTAB_RETURN_IF_ERROR(t.NoUnknownFields());
      config.tiers.push_back(std::move(tier));
    }
  }
  if (const Json* confs = r.Get("configurations"); confs && !confs->is_null()) {
    const std::string confs_path = r.FieldPath("configurations");
    if (!confs->is_array()) {
      return InvalidArgumentError(confs_path + ": expected a list, got " +
                                  std::string(JsonTypeName(*confs)));
    }
    for (size_t i = 0; i < confs->size(); ++i) {
      JsonReader c((*confs)[i], JoinPath(confs_path, i));
      TRIMTAB_RETURN_IF_ERROR(c.ExpectObject());
      ActionConfiguration ac;
      TRIMTAB_RETURN_IF_ERROR(c.RequiredString("name", &ac.name));
      if (!Known(KnownActionNames(), ac.name)) {
        return InvalidArgumentError(c.FieldPath("name") + ": unknown action \"" + ac.name + "\"");
      }
      ac.arguments = Json::object();
      if (const Json* args = c.Get("arguments"); args && !args->is_null()) {
        if (!args->is_object()) {
          return InvalidArgumentError(c.FieldPath("arguments") + ": expected an object");
        }
        ac.arguments = *args;
      }
      TRIMTAB_RETURN_IF_ERROR(c.NoUnknownFields());
      config.configurations.push_back(std::move(ac));
    }
  }
  r.Ignore("metrics");  // Volcano's metrics configuration: not used by a session
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  config.source = std::string(path);
  return config;
}

StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml_text,
                                               std::string_view source) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(yaml_text, source));
  if (doc.is_null()) {
    return InvalidArgumentError(std::string(source) + ": empty scheduler configuration");
  }
  auto config = SchedulerConfigFromJson(doc, "");
  if (!config.ok()) return config.status().WithContext(source);
  config->source = std::string(source);
  return config;
}

Json SchedulerConfigToJson(const SchedulerConfig& config) {
  Json out = Json::object();
  std::string actions;
  for (const auto& a : config.actions) {
    if (!actions.empty()) actions += ", ";
    actions += a;
  }
  out["actions"] = actions;
  Json tiers = Json::array();
  for (const Tier& tier : config.tiers) {
    Json plugins = Json::array();
    for (const PluginOption& p : tier.plugins) {
      Json pj = {{"name", p.name}};
      for (const FlagField& f : kFlagFields) {
        if ((p.*(f.member)).has_value()) pj[std::string(f.key)] = *(p.*(f.member));
      }
      if (p.arguments.is_object() && !p.arguments.empty()) pj["arguments"] = p.arguments;
      plugins.push_back(std::move(pj));
    }
    tiers.push_back({{"plugins", std::move(plugins)}});
  }
  out["tiers"] = std::move(tiers);
  if (!config.configurations.empty()) {
    Json confs = Json::array();
    for (const auto& c : config.configurations) {
      confs.push_back({{"name", c.name}, {"arguments", c.arguments}});
    }
    out["configurations"] = std::move(confs);
  }
  return out;
}

std::string_view DefaultSchedulerConfigText() { return kDefaultConfigText; }

const SchedulerConfig& DefaultSchedulerConfig() {
  static const SchedulerConfig config = [] {
    auto parsed = ParseSchedulerConfig(kDefaultConfigText, "default volcano-scheduler.conf");
    // The text above is a constant checked by scheduler_config_test.
    return parsed.ok() ? *parsed : SchedulerConfig{};
  }();
  return config;
}

}  // namespace trimtab::core::scheduling
