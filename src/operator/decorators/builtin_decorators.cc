#include "operator/decorators/builtin_decorators.h"

#include "operator/decorators/coscheduling/coscheduling_decorator.h"
#include "operator/decorators/volcano/volcano_decorator.h"

namespace trimtab::op::decorators {

Status RegisterBuiltinDecorators(DecoratorRegistry& registry) {
  TRIMTAB_RETURN_IF_ERROR(RegisterCoschedulingDecorator(registry));
  TRIMTAB_RETURN_IF_ERROR(RegisterVolcanoDecorator(registry));
  return Status::Ok();
}

}  // namespace trimtab::op::decorators
