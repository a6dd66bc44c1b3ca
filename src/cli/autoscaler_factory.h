// The autoscaler that `trimtab operator` and `trimtab local` run inside the operator:
// OperatorAutoscaler (src/operator/autoscaler) with the executor plugin chain the user chose.
#pragma once

#include <string>

#include "api/flink_spec.h"
#include "common/status.h"
#include "operator/wiring/operator.h"

namespace trimtab::cli {

// `chain_file`: the executor chain as JSON or YAML in the format of docs/plugins.md ({"plugins":
// [...], "libraries": [...], "pluginDirectory": "..."}); "" = no chain file. `plugins_dir`, when
// set, is loaded as the chain's pluginDirectory (it overrides one the file names). With neither,
// the chain is empty and the autoscaler decides exactly as upstream plus trimtab's behavior rules.
// Errors: the chain file cannot be read or parsed (naming the file and field). Plugin errors
// (unknown type, bad config, refused library) surface when the operator builds the autoscaler.
// `prometheus_url`: the Prometheus HTTP API custom metrics of source `prometheus` are queried
// from ("" = none; such metrics then have no value, and the decision log says why).
StatusOr<op::AutoscalerFactory> MakeAutoscalerFactory(const std::string& chain_file,
                                                      const std::string& plugins_dir,
                                                      const std::string& prometheus_url = "");

// `--autoscaler-defaults` of `trimtab operator` and `trimtab local`: "trimtab" (the flag's
// default) or "flink". Writes `job.autoscaler.defaults` into the operator's default
// configuration, the lowest layer of every job's configuration, unless that configuration (the
// --config / --operator-config file) already sets it under either prefix. A job's own
// spec.flinkConfiguration still chooses for itself (core/flink/trimtab_defaults.h).
// Errors: any other value, naming the flag.
Status ApplyAutoscalerDefaultsFlag(const std::string& value, api::FlinkConfiguration* defaults);

}  // namespace trimtab::cli
