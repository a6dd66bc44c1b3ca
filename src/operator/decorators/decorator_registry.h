// DecoratorRegistry: decorator type name -> factory, for the pod decoration chain (the executor
// plugin registry's shape, core/chain/plugin_registry.h). The built-in types are added by
// RegisterBuiltinDecorators (builtin_decorators.h). Names are unique: registering one twice fails.
//
// A factory takes the decorator's configuration, parses it into its typed options (unknown
// fields are an error naming the field) and returns the decorator. The configuration is the
// per-scheduler option map `kubernetes.scheduler.<scheduler-name>.config` (FLIP-250) as a JSON
// object of strings ({"queue": "q1", "minMember": "3"}); `config_path` is that key, so errors
// read "kubernetes.scheduler.volcano.config.minMember: ...".
//
// Usage:
//   DecoratorRegistry registry;
//   TRIMTAB_RETURN_IF_ERROR(RegisterBuiltinDecorators(registry));
//   TRIMTAB_ASSIGN_OR_RETURN(auto d, registry.Create("volcano", config, "kubernetes.scheduler.volcano.config"));
//
// Thread-safety: filled at start-up by one thread; Create may then run concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op::decorators {

using DecoratorFactory = std::function<StatusOr<std::unique_ptr<StepDecorator>>(
    const DecoratorIdentity& identity, const Json& config, const std::string& config_path)>;

class DecoratorRegistry {
 public:
  // Fails with AlreadyExists when `type` is taken, InvalidArgument when it is empty or the
  // factory is missing. `priority` is the chain position of the type's decorators.
  Status Register(std::string type, int priority, DecoratorFactory factory);

  bool Contains(std::string_view type) const;
  std::vector<std::string> Types() const;  // sorted

  // Creates a decorator of `type` named `type`. NotFound names the known types.
  StatusOr<std::unique_ptr<StepDecorator>> Create(std::string_view type, const Json& config,
                                                  const std::string& config_path) const;

 private:
  struct Entry {
    int priority = 0;
    DecoratorFactory factory;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace trimtab::op::decorators
