#include "operator/decisions/spec_diff.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace trimtab::op {
namespace {

using api::DiffType;

const Json& Field(const Json& object, const std::string& key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string Show(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::set<std::string> Keys(const Json& a, const Json& b) {
  std::set<std::string> keys;
  for (const Json* o : {&a, &b}) {
    if (!o->is_object()) continue;
    for (auto it = o->begin(); it != o->end(); ++it) keys.insert(it.key());
  }
  return keys;
}

class Builder {
 public:
  explicit Builder(api::DeploymentMode mode) : mode_(mode) {}

  void Add(const std::string& path, const Json& before, const Json& after, DiffType type,
           bool null_ignored = false) {
    if (before == after) return;
    if (null_ignored && after.is_null()) return;
    diff_.changes.push_back(path + " : " + Show(before) + " -> " + Show(after));
    diff_.type = std::max(diff_.type, type);
  }

  void Job(const Json& before, const Json& after) {
    if (before.is_null() != after.is_null()) {
      Add("job", before, after, DiffType::kUpgrade);
      return;
    }
    for (const std::string& key : Keys(before, after)) {
      const Json& b = Field(before, key);
      const Json& a = Field(after, key);
      const std::string path = "job." + key;
      // The recorded upgradeMode is the restore mode the operator used (stateless for a first
      // deployment without a savepoint), not what the user wrote: comparing it reports a change
      // nobody made (issue 25). It never triggers anything either way.
      if (key == "upgradeMode") continue;
      if (key == "parallelism") {
        Add(path, b, a, ScaleInStandalone());
      } else if (key == "savepointTriggerNonce" || key == "initialSavepointPath" ||
                 key == "checkpointTriggerNonce" ||
                 key == "allowNonRestoredState" || key == "autoscalerResetNonce") {
        Add(path, b, a, DiffType::kIgnore);
      } else if (key == "savepointRedeployNonce") {
        Add(path, b, a, DiffType::kSavepointRedeploy, /*null_ignored=*/true);
      } else {
        Add(path, b, a, DiffType::kUpgrade);
      }
    }
  }

  void FlinkConfiguration(const Json& before, const Json& after) {
    for (const std::string& key : Keys(before, after)) {
      Add("flinkConfiguration." + key, Field(before, key), Field(after, key), ConfigKeyType(key));
    }
  }

  void TaskManager(const Json& before, const Json& after) {
    if (before.is_null() || after.is_null()) {
      Add("taskManager", before, after, DiffType::kUpgrade);
      return;
    }
    for (const std::string& key : Keys(before, after)) {
      Add("taskManager." + key, Field(before, key), Field(after, key),
          key == "replicas" ? ScaleInStandalone() : DiffType::kUpgrade);
    }
  }

  SpecDiff Take() { return std::move(diff_); }

 private:
  DiffType ScaleInStandalone() const {
    return mode_ == api::DeploymentMode::kStandalone ? DiffType::kScale : DiffType::kUpgrade;
  }

  DiffType ConfigKeyType(const std::string& key) const {
    if (key.starts_with("job.autoscaler") || key.starts_with("parallelism.default") ||
        key.starts_with("kubernetes.operator")) {
      return DiffType::kIgnore;
    }
    if (key.starts_with("pipeline.jobvertex-parallelism-overrides")) {
      return mode_ == api::DeploymentMode::kNative ? DiffType::kScale : DiffType::kUpgrade;
    }
    return DiffType::kUpgrade;
  }

  api::DeploymentMode mode_;
  SpecDiff diff_;
};

}  // namespace

std::string SpecDiff::Describe(std::string_view spec_kind) const {
  std::string out = "Diff: " + std::string(spec_kind) + "[";
  for (size_t i = 0; i < changes.size(); ++i) {
    if (i > 0) out += ", ";
    out += changes[i];
  }
  return out + "]";
}

SpecDiff DiffSpecs(const Json& old_spec, const Json& new_spec, api::DeploymentMode mode) {
  Builder b(mode);
  for (const std::string& key : Keys(old_spec, new_spec)) {
    const Json& before = Field(old_spec, key);
    const Json& after = Field(new_spec, key);
    if (key == "job") {
      b.Job(before, after);
    } else if (key == "flinkConfiguration") {
      b.FlinkConfiguration(before.is_null() ? Json::object() : before,
                           after.is_null() ? Json::object() : after);
    } else if (key == "taskManager") {
      b.TaskManager(before, after);
    } else if (key == "restartNonce") {
      b.Add(key, before, after, DiffType::kUpgrade, /*null_ignored=*/true);
    } else {
      b.Add(key, before, after, DiffType::kUpgrade);
    }
  }
  return b.Take();
}

}  // namespace trimtab::op
