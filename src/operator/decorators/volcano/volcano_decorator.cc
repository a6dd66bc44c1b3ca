#include "operator/decorators/volcano/volcano_decorator.h"

#include <nlohmann/json.hpp>

#include "operator/decorators/gang_size.h"

namespace trimtab::op::decorators {

Status VolcanoDecorator::Decorate(const DecoratorContext& context, DecoratedCluster* cluster) const {
  const std::string group = PodGroupName(context.cluster_id);
  const std::string config_key = "kubernetes.scheduler." + context.scheduler_name + ".config";
  auto join = [&](Json& pod_template) {
    TemplateMetadataMap(pod_template, "annotations")[kVolcanoGroupAnnotation] = group;
    if (options_.preemptable) {
      TemplateMetadataMap(pod_template, "annotations")[kVolcanoPreemptableAnnotation] =
          *options_.preemptable ? "true" : "false";
    }
  };
  if (context.job_manager) join(cluster->job_manager_pod_template);
  if (context.task_manager) join(cluster->task_manager_pod_template);

  const GangSize size = SizeGang(context, options_.min_member);
  Json spec = {{"minMember", size.min_member},
               {"minResources", ResourceList(size.cpu, size.memory_bytes)},
               {"queue", options_.queue}};
  if (!options_.priority_class_name.empty()) {
    spec["priorityClassName"] = options_.priority_class_name;
  }
  Json metadata = {{"name", group}, {"namespace", context.namespace_name}};
  if (options_.preemptable) {
    metadata["annotations"][kVolcanoPreemptableAnnotation] =
        *options_.preemptable ? "true" : "false";
  }
  if (options_.sla_waiting_seconds) {
    metadata["annotations"][kVolcanoSlaWaitingTimeAnnotation] =
        std::to_string(*options_.sla_waiting_seconds) + "s";
  }
  cluster->pre_creation.push_back(KubeObject{
      .resource = "podgroups",
      .namespaced = true,
      .object = {{"apiVersion", kVolcanoApiVersion},
                 {"kind", "PodGroup"},
                 {"metadata", std::move(metadata)},
                 {"spec", std::move(spec)}}});
  cluster->references.push_back(ObjectReference{.api_version = kVolcanoApiVersion,
                                                .resource = "queues",
                                                .namespaced = false,
                                                .kind = "Queue",
                                                .name = options_.queue,
                                                .field = config_key + ": queue"});
  if (!options_.priority_class_name.empty()) {
    cluster->references.push_back(ObjectReference{.api_version = "scheduling.k8s.io/v1",
                                                  .resource = "priorityclasses",
                                                  .namespaced = false,
                                                  .kind = "PriorityClass",
                                                  .name = options_.priority_class_name,
                                                  .field = config_key + ": priorityClassName"});
  }
  return Status::Ok();
}

}  // namespace trimtab::op::decorators
