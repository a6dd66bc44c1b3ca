// The executor plugins that come with trimtab's autoscaler defaults (core/flink/trimtab_defaults.h):
// the plugin specs (a JSON array, as a chain file's `plugins`) that `trimtab simulate`'s
// `trimtab` policy runs and that the operator puts first in the chain of every job whose
// configuration has `job.autoscaler.defaults: trimtab` (docs/operator.md). Today one plugin: the
// restart-cost-gate (src/plugins/restart_cost_gate), with the reasons for its settings beside
// them in the source.
//
// Thread-safety: a pure function.
#pragma once

#include "common/json.h"

namespace trimtab::plugins {

Json TrimtabDefaultExecutorPlugins();

}  // namespace trimtab::plugins
