// source-aligned: the job scales as a whole, led by its sources. Only a scale-up of a source that
// is driven by lag passes; every downstream vertex then follows the parallelism of the sources
// feeding it (the largest one when several do), clamped to its max parallelism. Any other change
// the algorithm proposed for downstream vertices is replaced by that alignment.
//
//   no source scaled up                        -> veto
//   a source scaled up with LAG <= lagThreshold -> veto (the scale-up is not lag-driven)
//   otherwise                                  -> modify (sources + aligned downstream vertices)
//
// LAG is the source vertex's evaluated LAG (current, else average) from the context, else from
// the source's summary metrics; missing counts as no lag.
//
// Config (all optional): {"lagThreshold": 0,                 // records; lag must exceed it
//                         "clampToMaxParallelism": true}
//
// Thread-safety: immutable after construction.
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

inline constexpr const char kSourceAlignedType[] = "source-aligned";

struct SourceAlignedOptions {
  double lag_threshold = 0;            // a source scale-up needs LAG > this (records)
  bool clamp_to_max_parallelism = true;  // never align a vertex above its max parallelism
};

class SourceAligned final : public core::ExecutorPlugin {
 public:
  SourceAligned(core::PluginIdentity identity, SourceAlignedOptions options)
      : ExecutorPlugin(std::move(identity)), options_(options) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  SourceAlignedOptions options_;
};

StatusOr<SourceAlignedOptions> ParseSourceAlignedOptions(const Json& config,
                                                         const std::string& path);
Status RegisterSourceAligned(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
