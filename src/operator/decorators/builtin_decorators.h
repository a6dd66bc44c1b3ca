// The one list of built-in step decorator types:
//
//   volcano       src/operator/decorators/volcano        Volcano PodGroup + group annotation
//   coscheduling  src/operator/decorators/coscheduling   scheduler-plugins PodGroup + group label
//
// Thread-safety: call once at start-up.
#pragma once

#include "common/status.h"
#include "operator/decorators/decorator_registry.h"

namespace trimtab::op::decorators {

Status RegisterBuiltinDecorators(DecoratorRegistry& registry);

}  // namespace trimtab::op::decorators
