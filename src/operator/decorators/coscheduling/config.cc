// Registration of coscheduling: option map -> CoschedulingOptions -> decorator.
#include <nlohmann/json.hpp>

#include "common/flink_values.h"
#include "operator/decorators/coscheduling/coscheduling_decorator.h"

namespace trimtab::op::decorators {
namespace {

Status PositiveInt(JsonReader& r, const char* field, std::optional<int64_t>* out) {
  if (!r.Has(field)) return Status::Ok();
  std::string text;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString(field, &text));
  StatusOr<int64_t> n = ParseFlinkInt(r.FieldPath(field), text);
  if (!n.ok()) return n.status();
  if (*n < 1) return InvalidArgumentError(r.FieldPath(field) + ": must be at least 1");
  *out = *n;
  return Status::Ok();
}

}  // namespace

StatusOr<CoschedulingOptions> ParseCoschedulingOptions(const Json& config,
                                                       const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  CoschedulingOptions o;
  TRIMTAB_RETURN_IF_ERROR(PositiveInt(r, "minMember", &o.min_member));
  TRIMTAB_RETURN_IF_ERROR(PositiveInt(r, "scheduleTimeoutSeconds", &o.schedule_timeout_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return o;
}

Status RegisterCoschedulingDecorator(DecoratorRegistry& registry) {
  return registry.Register(
      kCoschedulingDecoratorType, kCoschedulingDecoratorPriority,
      [](const DecoratorIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<StepDecorator>> {
        TRIMTAB_ASSIGN_OR_RETURN(CoschedulingOptions options,
                                 ParseCoschedulingOptions(config, path));
        return std::unique_ptr<StepDecorator>(
            std::make_unique<CoschedulingDecorator>(identity, options));
      });
}

}  // namespace trimtab::op::decorators
