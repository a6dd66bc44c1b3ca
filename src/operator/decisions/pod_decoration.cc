#include "operator/decisions/pod_decoration.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/flink_values.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {

int DesiredTaskManagers(const api::FlinkDeploymentSpec& spec, const api::FlinkConfiguration& conf,
                        int existing) {
  const int64_t slots_per_tm = std::max<int64_t>(1, TaskSlots(conf));
  if (!spec.job) {
    if (spec.task_manager && spec.task_manager->replicas) {
      return static_cast<int>(std::max<int64_t>(0, *spec.task_manager->replicas));
    }
    return std::max(0, existing);
  }
  int64_t slots = JobParallelism(spec, conf);
  auto overrides_it = conf.find(flink_keys::kParallelismOverrides);
  if (overrides_it != conf.end()) {
    const std::map<std::string, int> overrides =
        ParseFlinkParallelismOverrides(overrides_it->first, overrides_it->second).value_or({});
    int64_t largest = 0;
    for (const auto& [vertex, p] : overrides) largest = std::max<int64_t>(largest, p);
    const bool autoscaled =
        ConfigBool(conf, "job.autoscaler.enabled",
                   ConfigBool(conf, "kubernetes.operator.job.autoscaler.enabled", false));
    if (largest > 0) slots = autoscaled ? largest : std::max(slots, largest);
  }
  if (slots <= 0) {
    if (auto p = conf.find(flink_keys::kParallelismDefault); p != conf.end()) {
      try {
        slots = std::stoll(p->second);
      } catch (...) {
        slots = 1;
      }
    }
  }
  slots = std::max<int64_t>(1, slots);
  return static_cast<int>((slots + slots_per_tm - 1) / slots_per_tm);
}

StatusOr<PodDecoration> DecoratePods(const decorators::DecoratorRegistry& registry,
                                     const api::ObjectMeta& meta,
                                     const api::FlinkDeploymentSpec& spec,
                                     const api::FlinkConfiguration& deploy_conf,
                                     const api::FlinkConfiguration& effective_conf,
                                     int existing_task_managers, int placed_task_managers) {
  api::FlinkConfiguration conf = deploy_conf;
  if (auto it = effective_conf.find(decorators::kDecoratorsKey); it != effective_conf.end()) {
    conf[it->first] = it->second;
  }
  TRIMTAB_ASSIGN_OR_RETURN(decorators::DecoratorChain chain,
                           decorators::DecoratorChain::Create(registry, conf));
  const PodTemplates user = UserPodTemplates(spec);
  decorators::DecoratedCluster cluster{.job_manager_pod_template = user.job_manager,
                                       .task_manager_pod_template = user.task_manager};
  // The autoscaler's switch lives in the effective configuration (stripped from the deploy one).
  api::FlinkConfiguration sizing = deploy_conf;
  for (const char* key : {"job.autoscaler.enabled", "kubernetes.operator.job.autoscaler.enabled"}) {
    if (auto it = effective_conf.find(key); it != effective_conf.end()) sizing[key] = it->second;
  }
  const decorators::DecoratorContext context{
      .cluster_id = meta.name(),
      .namespace_name = meta.namespace_name(),
      .session_cluster = !spec.job.has_value(),
      .job_manager_replicas =
          spec.job_manager ? static_cast<int>(std::max<int64_t>(1, spec.job_manager->replicas)) : 1,
      .job_manager_requests = ContainerRequests(deploy_conf, "jobmanager"),
      .task_manager_requests = ContainerRequests(deploy_conf, "taskmanager"),
      .desired_task_managers = DesiredTaskManagers(spec, sizing, existing_task_managers),
      .existing_task_managers = existing_task_managers,
      .placed_task_managers = placed_task_managers};
  TRIMTAB_RETURN_IF_ERROR(chain.Run(context, &cluster));
  PodDecoration out;
  out.templates = {.job_manager = std::move(cluster.job_manager_pod_template),
                   .task_manager = std::move(cluster.task_manager_pod_template)};
  const Json labels = {{"app", meta.name()},
                       {"type", kNativeType},
                       {kManagedByLabel, kManagedByOperator}};
  for (auto* list : {&cluster.pre_creation, &cluster.accompanying}) {
    for (decorators::KubeObject& o : *list) {
      Json& l = o.object["metadata"]["labels"];
      if (!l.is_object()) l = Json::object();
      for (auto it = labels.begin(); it != labels.end(); ++it) l[it.key()] = *it;
    }
  }
  out.pre_creation = std::move(cluster.pre_creation);
  out.accompanying = std::move(cluster.accompanying);
  out.references = std::move(cluster.references);
  out.undecorated_schedulers = chain.undecorated_schedulers();
  out.volcano_queue = chain.TaskManagerVolcanoQueue();
  out.chain = chain.Describe();
  return out;
}

}  // namespace trimtab::op
