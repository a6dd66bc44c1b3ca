#include "sim/policy.h"

#include <nlohmann/json.hpp>

namespace trimtab::sim {

namespace {

class StaticPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "static"; }
  PolicyTraits traits() const override { return {.needs_metrics = false}; }
  StatusOr<PolicyDecision> Decide(const PolicyInput&) override { return PolicyDecision{}; }
};

Status RejectConfig(const Json& config, const std::string& path) {
  if (config.is_null()) return Status::Ok();
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  return r.NoUnknownFields();
}

}  // namespace

std::unique_ptr<ScalingPolicy> MakeStaticPolicy() { return std::make_unique<StaticPolicy>(); }

Status PolicyRegistry::Register(const std::string& name, PolicyFactory factory) {
  if (name.empty()) return InvalidArgumentError("policy registry: empty policy name");
  if (!factories_.emplace(name, std::move(factory)).second) {
    return AlreadyExistsError("policy registry: policy \"" + name + "\" is already registered");
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<ScalingPolicy>> PolicyRegistry::Create(const std::string& name,
                                                                const Json& config,
                                                                const std::string& path) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [n, f] : factories_) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgumentError(path + ": unknown policy \"" + name + "\" (known: " + known + ")");
  }
  StatusOr<std::unique_ptr<ScalingPolicy>> p = it->second(config);
  if (!p.ok()) return p.status().WithContext(path);
  return p;
}

std::vector<std::string> PolicyRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [n, f] : factories_) names.push_back(n);
  return names;
}

PolicyRegistry DefaultPolicyRegistry() {
  PolicyRegistry r;
  r.Register("static", [](const Json& config) -> StatusOr<std::unique_ptr<ScalingPolicy>> {
     TRIMTAB_RETURN_IF_ERROR(RejectConfig(config, "config"));
     return MakeStaticPolicy();
   }).IgnoreError();
  r.Register("oracle", MakeOraclePolicy).IgnoreError();
  return r;
}

}  // namespace trimtab::sim
