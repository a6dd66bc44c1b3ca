// Registration of volcano: option map -> VolcanoOptions -> decorator.
#include <nlohmann/json.hpp>

#include "common/flink_values.h"
#include "operator/decorators/gang_size.h"
#include "operator/decorators/volcano/volcano_decorator.h"

namespace trimtab::op::decorators {

StatusOr<VolcanoOptions> ParseVolcanoOptions(const Json& config, const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  VolcanoOptions o;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("queue", &o.queue));
  if (!IsDns1123Subdomain(o.queue)) {
    return InvalidArgumentError(r.FieldPath("queue") + ": \"" + o.queue +
                                "\" is not a valid queue name (a DNS-1123 subdomain: lower case "
                                "letters, digits, '-' and '.')");
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("priorityClassName", &o.priority_class_name));
  if (!o.priority_class_name.empty() && !IsDns1123Subdomain(o.priority_class_name)) {
    return InvalidArgumentError(r.FieldPath("priorityClassName") + ": \"" +
                                o.priority_class_name + "\" is not a valid PriorityClass name");
  }
  std::string text;
  if (r.Has("minMember")) {
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("minMember", &text));
    StatusOr<int64_t> n = ParseFlinkInt(r.FieldPath("minMember"), text);
    if (!n.ok()) return n.status();
    if (*n < 1) return InvalidArgumentError(r.FieldPath("minMember") + ": must be at least 1");
    o.min_member = *n;
  }
  if (r.Has("preemptable")) {
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("preemptable", &text));
    StatusOr<bool> b = ParseFlinkBool(r.FieldPath("preemptable"), text);
    if (!b.ok()) return b.status();
    o.preemptable = *b;
  }
  if (r.Has("slaWaitingTime")) {
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("slaWaitingTime", &text));
    StatusOr<std::chrono::milliseconds> d =
        ParseFlinkDurationMillis(r.FieldPath("slaWaitingTime"), text);
    if (!d.ok()) return d.status();
    if (d->count() < 1000 || d->count() % 1000 != 0) {
      return InvalidArgumentError(r.FieldPath("slaWaitingTime") +
                                  ": must be a whole number of seconds, at least 1 s");
    }
    o.sla_waiting_seconds = d->count() / 1000;
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return o;
}

Status RegisterVolcanoDecorator(DecoratorRegistry& registry) {
  return registry.Register(
      kVolcanoDecoratorType, kVolcanoDecoratorPriority,
      [](const DecoratorIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<StepDecorator>> {
        TRIMTAB_ASSIGN_OR_RETURN(VolcanoOptions options, ParseVolcanoOptions(config, path));
        return std::unique_ptr<StepDecorator>(
            std::make_unique<VolcanoDecorator>(identity, std::move(options)));
      });
}

}  // namespace trimtab::op::decorators
