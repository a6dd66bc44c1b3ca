#include "operator/decorators/decorator_registry.h"

namespace trimtab::op::decorators {

Status DecoratorRegistry::Register(std::string type, int priority, DecoratorFactory factory) {
  if (type.empty()) return InvalidArgumentError("decorator registry: empty decorator type");
  if (!factory) {
    return InvalidArgumentError("decorator registry: decorator \"" + type + "\" has no factory");
  }
  if (entries_.count(type)) {
    return AlreadyExistsError("decorator registry: decorator \"" + type +
                              "\" is already registered");
  }
  entries_.emplace(std::move(type), Entry{priority, std::move(factory)});
  return Status::Ok();
}

bool DecoratorRegistry::Contains(std::string_view type) const {
  return entries_.find(type) != entries_.end();
}

std::vector<std::string> DecoratorRegistry::Types() const {
  std::vector<std::string> out;
  for (const auto& [type, entry] : entries_) out.push_back(type);
  return out;
}

StatusOr<std::unique_ptr<StepDecorator>> DecoratorRegistry::Create(
    std::string_view type, const Json& config, const std::string& config_path) const {
  auto it = entries_.find(type);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [name, entry] : entries_) known += (known.empty() ? "" : ", ") + name;
    return NotFoundError("unknown decorator type \"" + std::string(type) + "\" (known: " +
                         (known.empty() ? "none" : known) + ")");
  }
  const DecoratorIdentity identity{.name = std::string(type), .priority = it->second.priority};
  StatusOr<std::unique_ptr<StepDecorator>> d = it->second.factory(identity, config, config_path);
  if (!d.ok()) return d.status().WithContext("decorator \"" + std::string(type) + "\"");
  if (*d == nullptr) {
    return InternalError("decorator \"" + std::string(type) + "\": factory returned nothing");
  }
  return d;
}

}  // namespace trimtab::op::decorators
