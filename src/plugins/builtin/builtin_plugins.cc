#include "plugins/builtin/builtin_plugins.h"

#include "plugins/budget_cap/budget_cap.h"
#include "plugins/multi_job_coordinator/multi_job_coordinator.h"
#include "plugins/queue_capacity/queue_capacity.h"
#include "plugins/resource_gate/resource_gate.h"
#include "plugins/restart_cost_gate/restart_cost_gate.h"
#include "plugins/scale_guard/scale_guard.h"
#include "plugins/source_aligned/source_aligned.h"
#include "plugins/webhook/webhook.h"

namespace trimtab::plugins {

Status RegisterBuiltinExecutorPlugins(core::ExecutorPluginRegistry& registry) {
  TRIMTAB_RETURN_IF_ERROR(RegisterBudgetCap(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterMultiJobCoordinator(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterQueueCapacity(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterResourceGate(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterRestartCostGate(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterScaleGuard(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterSourceAligned(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterWebhookPlugin(registry));
  return Status::Ok();
}

}  // namespace trimtab::plugins
