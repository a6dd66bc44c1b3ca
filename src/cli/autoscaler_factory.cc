#include "cli/autoscaler_factory.h"

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/trimtab_defaults.h"
#include "operator/autoscaler/operator_autoscaler.h"

namespace trimtab::cli {

StatusOr<op::AutoscalerFactory> MakeAutoscalerFactory(const std::string& chain_file,
                                                      const std::string& plugins_dir,
                                                      const std::string& prometheus_url) {
  if (!prometheus_url.empty() && prometheus_url.rfind("http://", 0) != 0 &&
      prometheus_url.rfind("https://", 0) != 0) {
    return InvalidArgumentError("--prometheus-url: must start with http:// or https://, got \"" +
                                prometheus_url + "\"");
  }
  Json chain;  // null = no plugins
  if (!chain_file.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(chain_file));
    TRIMTAB_ASSIGN_OR_RETURN(chain, ParseYaml(text, chain_file));
    if (!chain.is_object()) {
      return InvalidArgumentError(chain_file + ": expected an object with plugins, libraries "
                                  "and pluginDirectory (docs/plugins.md)");
    }
  }
  if (!plugins_dir.empty()) {
    if (chain.is_null()) chain = Json::object();
    chain["pluginDirectory"] = plugins_dir;
  }
  return op::AutoscalerFactory(
      [chain, prometheus_url](const op::AutoscalerFactoryContext& context)
          -> StatusOr<std::unique_ptr<op::JobAutoscaler>> {
        TRIMTAB_ASSIGN_OR_RETURN(
            std::unique_ptr<op::OperatorAutoscaler> autoscaler,
            op::OperatorAutoscaler::Create({.kube = context.client,
                                            .clock = context.clock,
                                            .executor_chain = chain,
                                            .operator_instance = "trimtab-operator",
                                            .prometheus_url = prometheus_url,
                                            .metrics = context.metrics}));
        return std::unique_ptr<op::JobAutoscaler>(std::move(autoscaler));
      });
}

Status ApplyAutoscalerDefaultsFlag(const std::string& value, api::FlinkConfiguration* defaults) {
  namespace flink = core::flink;
  if (value != flink::kDefaultsTrimtab && value != flink::kDefaultsFlink) {
    return InvalidArgumentError("--autoscaler-defaults: expected trimtab or flink, got \"" +
                                value + "\"");
  }
  for (const char* prefix : {flink::kAutoscalerPrefix, flink::kLegacyAutoscalerPrefix}) {
    if (defaults->count(std::string(prefix) + flink::kDefaultsOption)) return Status::Ok();
  }
  (*defaults)[std::string(flink::kAutoscalerPrefix) + flink::kDefaultsOption] = value;
  return Status::Ok();
}

}  // namespace trimtab::cli
