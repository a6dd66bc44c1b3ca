#include "core/chain/executor_chain.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "core/scaling_types_json.h"

namespace trimtab::core {
namespace {

// Rule 4: a modify must keep every vertex at parallelism >= 1.
std::optional<std::string> InvalidModify(const ScalingSummaries& summaries) {
  for (const auto& [vertex, summary] : summaries) {
    if (summary.new_parallelism < 1) {
      return "invalid modify: vertex " + vertex + " new parallelism " +
             std::to_string(summary.new_parallelism) + " < 1";
    }
  }
  return std::nullopt;
}

}  // namespace

bool SameSummaries(const ScalingSummaries& a, const ScalingSummaries& b) {
  return ToJson(a) == ToJson(b);
}

StatusOr<ExecutorChain> ExecutorChain::Create(
    std::vector<std::unique_ptr<ExecutorPlugin>> plugins) {
  std::set<std::string> names;
  for (const auto& p : plugins) {
    if (!p) return InvalidArgumentError("executor chain: null plugin");
    if (!names.insert(p->name()).second) {
      return AlreadyExistsError("executor chain: plugin name \"" + p->name() + "\" is used twice");
    }
  }
  std::sort(plugins.begin(), plugins.end(), [](const auto& a, const auto& b) {
    if (a->priority() != b->priority()) return a->priority() < b->priority();
    return a->name() < b->name();
  });
  ExecutorChain chain;
  chain.plugins_ = std::move(plugins);
  return chain;
}

ChainOutcome ExecutorChain::Run(const ExecutorContext& context, const ScalingSummaries& summaries,
                                CycleState& cycle, Json* plugin_states) const {
  ChainOutcome outcome;
  if (!plugin_states->is_object()) *plugin_states = Json::object();
  ScalingSummaries current = summaries;
  auto veto = [&](ChainStepRecord record) {
    outcome.vetoed = true;
    outcome.vetoed_by = record.plugin;
    outcome.veto_reason = record.reason;
    record.verdict = ChainVerdict::kVeto;
    record.output.clear();
    outcome.steps.push_back(std::move(record));
    outcome.summaries.clear();
  };
  for (const auto& plugin : plugins_) {
    ChainStepRecord record{.plugin = plugin->name(), .priority = plugin->priority()};
    Json& state = (*plugin_states)[plugin->name()];
    StatusOr<ExecutorResult> result = plugin->Execute(context, current, cycle, state);
    if (state.is_null()) plugin_states->erase(plugin->name());
    if (!result.ok()) {
      record.failed = true;
      record.reason = "error: " + result.status().ToString();
      veto(std::move(record));
      return outcome;
    }
    record.reason = result->reason;
    switch (result->verdict) {
      case ChainVerdict::kVeto:
        veto(std::move(record));
        return outcome;
      case ChainVerdict::kApprove:
        record.verdict = ChainVerdict::kApprove;
        break;
      case ChainVerdict::kModify:
        if (result->summaries.empty()) {
          if (record.reason.empty()) record.reason = "empty result";
          veto(std::move(record));
          return outcome;
        }
        if (std::optional<std::string> invalid = InvalidModify(result->summaries)) {
          record.failed = true;
          record.reason = *invalid;
          veto(std::move(record));
          return outcome;
        }
        if (SameSummaries(result->summaries, current)) {
          record.verdict = ChainVerdict::kApprove;
        } else {
          record.verdict = ChainVerdict::kModify;
          current = std::move(result->summaries);
        }
        break;
    }
    record.output = current;
    outcome.steps.push_back(std::move(record));
  }
  outcome.summaries = std::move(current);
  return outcome;
}

std::string ExecutorChain::Describe() const {
  if (plugins_.empty()) return "(empty)";
  std::string out;
  for (const auto& p : plugins_) {
    if (!out.empty()) out += " -> ";
    out += p->name() + "(" + std::to_string(p->priority()) + ")";
  }
  return out;
}

std::vector<const ExecutorPlugin*> ExecutorChain::plugins() const {
  std::vector<const ExecutorPlugin*> out;
  for (const auto& p : plugins_) out.push_back(p.get());
  return out;
}

Status ExecutorChain::DeclareMetrics(MetricRequirementRegistry& registry) const {
  for (const auto& p : plugins_) {
    TRIMTAB_RETURN_IF_ERROR(registry.DeclareAll(p->name(), p->RequiredMetrics()));
  }
  return Status::Ok();
}

std::optional<AutoscalerEvent> VetoEvent(const std::string& job_key, const ChainOutcome& outcome,
                                         const ScalingSummaries& proposed) {
  if (!outcome.vetoed) return std::nullopt;
  std::string key = "vetoed by " + outcome.vetoed_by + ":";
  for (const auto& [id, s] : proposed) {
    key += " " + id + " " + std::to_string(s.current_parallelism) + "->" +
           std::to_string(s.new_parallelism);
  }
  return AutoscalerEvent{
      .job_key = job_key,
      .type = EventType::kWarning,
      .reason = kReasonScalingVetoed,
      .message = "Scaling vetoed by plugin " + outcome.vetoed_by + ": " + outcome.veto_reason,
      .message_key = std::move(key),
  };
}

Json ToJson(const ChainOutcome& outcome) {
  Json steps = Json::array();
  for (const ChainStepRecord& s : outcome.steps) {
    steps.push_back({{"plugin", s.plugin},
                     {"priority", s.priority},
                     {"verdict", std::string(ChainVerdictName(s.verdict))},
                     {"reason", s.reason},
                     {"failed", s.failed},
                     {"output", ToJson(s.output)}});
  }
  Json j = {{"vetoed", outcome.vetoed},
            {"summaries", ToJson(outcome.summaries)},
            {"steps", std::move(steps)}};
  if (outcome.vetoed) {
    j["vetoedBy"] = outcome.vetoed_by;
    j["reason"] = outcome.veto_reason;
  }
  return j;
}

}  // namespace trimtab::core
