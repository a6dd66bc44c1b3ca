// The runtime's controllers run on the controller kit of adapters/kube: `Controller` is the one
// controller work loop (adapters/kube/controller.h) and `Result` what a sync returns
// (kube::ReconcileResult, adapters/kube/reconciler.h: Done, After(d), Retry(error),
// Terminal(error)). These names keep the controllers' sync bodies short.
#pragma once

#include "adapters/kube/controller.h"
#include "adapters/kube/reconciler.h"

namespace trimtab::cluster::runtime {

using Controller = kube::Controller;
using Result = kube::ReconcileResult;

}  // namespace trimtab::cluster::runtime
