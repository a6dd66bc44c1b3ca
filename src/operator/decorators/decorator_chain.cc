#include "operator/decorators/decorator_chain.h"

#include <algorithm>
#include <set>

#include "common/flink_values.h"

namespace trimtab::op::decorators {
namespace {

std::string Value(const api::FlinkConfiguration& conf, const std::string& key) {
  auto it = conf.find(key);
  return it == conf.end() ? std::string() : std::string(TrimSpaces(it->second));
}

}  // namespace

Json& TemplateMetadataMap(Json& pod_template, const char* field) {
  if (!pod_template.is_object()) pod_template = Json::object();
  Json& meta = pod_template["metadata"];
  if (!meta.is_object()) meta = Json::object();
  Json& map = meta[field];
  if (!map.is_object()) map = Json::object();
  return map;
}

Json& TemplateSpec(Json& pod_template) {
  if (!pod_template.is_object()) pod_template = Json::object();
  Json& spec = pod_template["spec"];
  if (!spec.is_object()) spec = Json::object();
  return spec;
}

std::string SchedulerConfigKey(std::string_view scheduler) {
  return "kubernetes.scheduler." + std::string(scheduler) + ".config";
}

StatusOr<SchedulerSettings> ReadSchedulerSettings(const api::FlinkConfiguration& conf) {
  SchedulerSettings s;
  const std::string global = Value(conf, kSchedulerNameKey);
  s.job_manager = Value(conf, kJobManagerSchedulerNameKey);
  if (s.job_manager.empty()) s.job_manager = global;
  s.task_manager = Value(conf, kTaskManagerSchedulerNameKey);
  if (s.task_manager.empty()) s.task_manager = global;
  auto it = conf.find(kDecoratorsKey);
  TRIMTAB_ASSIGN_OR_RETURN(
      s.decorators,
      ParseFlinkMap(kDecoratorsKey,
                                 it == conf.end() ? std::string(kDefaultDecorators) : it->second));
  return s;
}

StatusOr<DecoratorChain> DecoratorChain::Create(const DecoratorRegistry& registry,
                                                const api::FlinkConfiguration& conf) {
  DecoratorChain chain;
  TRIMTAB_ASSIGN_OR_RETURN(chain.settings_, ReadSchedulerSettings(conf));
  std::set<std::string> schedulers;
  for (const std::string& s : {chain.settings_.job_manager, chain.settings_.task_manager}) {
    if (!s.empty()) schedulers.insert(s);
  }
  for (const std::string& scheduler : schedulers) {
    auto type = chain.settings_.decorators.find(scheduler);
    if (type == chain.settings_.decorators.end()) {
      chain.undecorated_.push_back(scheduler);
      continue;
    }
    if (!registry.Contains(type->second)) {
      std::string known;
      for (const std::string& t : registry.Types()) known += (known.empty() ? "" : ", ") + t;
      return InvalidArgumentError(std::string(kDecoratorsKey) + ": scheduler \"" + scheduler +
                                  "\" maps to unknown decorator \"" + type->second +
                                  "\" (known: " + (known.empty() ? "none" : known) + ")");
    }
    const std::string key = SchedulerConfigKey(scheduler);
    Json config = Json::object();
    if (auto raw = conf.find(key); raw != conf.end()) {
      TRIMTAB_ASSIGN_OR_RETURN(auto map, ParseFlinkMap(key, raw->second));
      for (const auto& [k, v] : map) config[k] = v;
    }
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<StepDecorator> decorator,
                             registry.Create(type->second, config, key));
    chain.steps_.push_back(Step{std::move(decorator), scheduler});
  }
  std::sort(chain.steps_.begin(), chain.steps_.end(), [](const Step& a, const Step& b) {
    if (a.decorator->priority() != b.decorator->priority()) {
      return a.decorator->priority() < b.decorator->priority();
    }
    if (a.decorator->name() != b.decorator->name()) return a.decorator->name() < b.decorator->name();
    return a.scheduler < b.scheduler;
  });
  return chain;
}

Status DecoratorChain::Run(const DecoratorContext& context, DecoratedCluster* cluster) const {
  if (!cluster->job_manager_pod_template.is_object()) {
    cluster->job_manager_pod_template = Json::object();
  }
  if (!cluster->task_manager_pod_template.is_object()) {
    cluster->task_manager_pod_template = Json::object();
  }
  if (!settings_.job_manager.empty()) {
    TemplateSpec(cluster->job_manager_pod_template)["schedulerName"] = settings_.job_manager;
  }
  if (!settings_.task_manager.empty()) {
    TemplateSpec(cluster->task_manager_pod_template)["schedulerName"] = settings_.task_manager;
  }
  for (const Step& step : steps_) {
    DecoratorContext c = context;
    c.scheduler_name = step.scheduler;
    c.job_manager = settings_.job_manager == step.scheduler;
    c.task_manager = settings_.task_manager == step.scheduler;
    TRIMTAB_RETURN_IF_ERROR(step.decorator->Decorate(c, cluster).WithContext(
        "decorator \"" + step.decorator->name() + "\" for scheduler \"" + step.scheduler + "\""));
  }
  return Status::Ok();
}

std::optional<std::string> DecoratorChain::TaskManagerVolcanoQueue() const {
  for (const Step& step : steps_) {
    if (step.scheduler == settings_.task_manager) {
      if (std::optional<std::string> q = step.decorator->VolcanoQueue()) return q;
    }
  }
  return std::nullopt;
}

std::string DecoratorChain::Describe() const {
  if (steps_.empty()) return "(empty)";
  std::string out;
  for (const Step& step : steps_) {
    std::string pods;
    if (settings_.job_manager == step.scheduler) pods = "jobmanager";
    if (settings_.task_manager == step.scheduler) pods += std::string(pods.empty() ? "" : ", ") + "taskmanager";
    if (!out.empty()) out += " -> ";
    out += step.decorator->name() + "(" + std::to_string(step.decorator->priority()) + ") for " +
           step.scheduler + " [" + pods + "]";
  }
  return out;
}

}  // namespace trimtab::op::decorators
