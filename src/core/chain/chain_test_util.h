// Test helpers for the executor chain: a plugin whose behaviour is a lambda, and small builders
// for summaries and topologies. Test-only (included by *_test.cc files).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/chain/executor_plugin.h"

namespace trimtab::core::testing {

using ExecuteFn = std::function<StatusOr<ExecutorResult>(
    const ExecutorContext&, const ScalingSummaries&, CycleState&, Json&)>;

class LambdaPlugin final : public ExecutorPlugin {
 public:
  LambdaPlugin(std::string name, int priority, ExecuteFn fn)
      : ExecutorPlugin(PluginIdentity{std::move(name), priority}), fn_(std::move(fn)) {}
  StatusOr<ExecutorResult> Execute(const ExecutorContext& context,
                                   const ScalingSummaries& summaries, CycleState& cycle,
                                   Json& plugin_state) override {
    return fn_(context, summaries, cycle, plugin_state);
  }

 private:
  ExecuteFn fn_;
};

inline std::unique_ptr<ExecutorPlugin> MakePlugin(std::string name, int priority, ExecuteFn fn) {
  return std::make_unique<LambdaPlugin>(std::move(name), priority, std::move(fn));
}

inline ScalingSummary Summary(int current, int next) {
  return ScalingSummary{.current_parallelism = current, .new_parallelism = next, .metrics = {}};
}

// A linear job graph "v0 -> v1 -> ..." with the given current parallelisms.
inline JobTopology LinearTopology(const std::vector<int>& parallelism, int max_parallelism = 128) {
  JobTopology t;
  for (size_t i = 0; i < parallelism.size(); ++i) {
    t.vertices.push_back(VertexInfo{.id = "v" + std::to_string(i),
                                    .name = "vertex " + std::to_string(i),
                                    .parallelism = parallelism[i],
                                    .max_parallelism = max_parallelism});
    if (i > 0) {
      t.edges.push_back(Edge{.from = "v" + std::to_string(i - 1), .to = "v" + std::to_string(i),
                             .ship_strategy = "HASH"});
    }
  }
  return t;
}

}  // namespace trimtab::core::testing
