#include "operator/decorators/coscheduling/coscheduling_decorator.h"

#include <nlohmann/json.hpp>

#include "operator/decorators/gang_size.h"

namespace trimtab::op::decorators {

Status CoschedulingDecorator::Decorate(const DecoratorContext& context,
                                       DecoratedCluster* cluster) const {
  const std::string group = PodGroupName(context.cluster_id);
  if (context.job_manager) {
    TemplateMetadataMap(cluster->job_manager_pod_template, "labels")[kCoschedulingGroupLabel] = group;
  }
  if (context.task_manager) {
    TemplateMetadataMap(cluster->task_manager_pod_template, "labels")[kCoschedulingGroupLabel] = group;
  }
  const GangSize size = SizeGang(context, options_.min_member);
  Json spec = {{"minMember", size.min_member},
               {"minResources", ResourceList(size.cpu, size.memory_bytes)}};
  if (options_.schedule_timeout_seconds) {
    spec["scheduleTimeoutSeconds"] = *options_.schedule_timeout_seconds;
  }
  cluster->pre_creation.push_back(KubeObject{
      .resource = "podgroups",
      .namespaced = true,
      .object = {{"apiVersion", kCoschedulingApiVersion},
                 {"kind", "PodGroup"},
                 {"metadata", {{"name", group}, {"namespace", context.namespace_name}}},
                 {"spec", std::move(spec)}}});
  return Status::Ok();
}

}  // namespace trimtab::op::decorators
