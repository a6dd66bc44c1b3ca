// DecisionLog: the record of one autoscaler cycle, stage by stage (DESIGN.md §2), so nobody has
// to guess why a job scaled or did not. Built by RunAutoscalerCycle, kept in the result, printed
// by `trimtab eval flink`, turned into Kubernetes Events by the operator.
//
// Thread-safety: plain values.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

// What the cycle ended with. Callers act on it:
enum class CycleOutcome {
  kDisabled,          // autoscaler disabled: state cleared, overrides gone; nothing else
  kJobNotRunning,     // job not RUNNING: nothing evaluated
  kStabilizing,       // samples stored, no evaluation yet (stabilization interval)
  kNotEnoughSamples,  // fewer than 2 samples in the window
  kWindowNotFull,     // evaluated (metrics reportable) but no decision yet
  kNoChange,          // every vertex at its target, within its band, or delayed
  kBlocked,           // a change was wanted but blocked (memory pressure, disabled, excluded
                      // period, quota); recommendations are in the result
  kScale,             // summaries are non-empty and should go to the plugin chain
};
std::string_view CycleOutcomeName(CycleOutcome o);

// A Flink-autoscaler event (upstream AutoScalerEventHandler), for the operator to emit.
struct AutoscalerEvent {
  std::string type;    // "Normal" or "Warning"
  std::string reason;  // ScalingReport, IneffectiveScaling, ScalingLimited, MemoryPressure, ...
  std::string message;
  // What makes a repeat "the same event" for deduplication, when not the message itself (a
  // ScalingVetoed event: the plugin and the vetoed change; a vertex's ScalingLimited). Not part
  // of the log's JSON.
  std::optional<std::string> message_key;
  // The ScalingReport of a scaling about to be executed ("Scaling execution enabled, ..."): the
  // chain replaces it when it changes the decision, the operator always emits it. Not part of
  // the log's JSON.
  bool executes_scaling = false;
};

// How a proposal was fitted to the vertex's key groups or source partitions
// (parallelism_alignment.h; CAPACITY: vertex_scaler.h). Set only when alignment applied: the
// vertex reads known partitions or has a HASH input, the mode is not OFF and the clamped proposal
// differed from the current parallelism.
struct VertexAlignment {
  std::string to;     // "partitions" or "keyGroups"
  std::string mode;   // the alignment mode's name (BALANCED, EVENLY_SPREAD, CAPACITY, ...)
  int units = 0;      // how many partitions or key groups
  int unaligned = 0;  // the proposal clamped to the vertex's limits, before alignment
  int aligned = 0;    // after alignment
};

struct VertexDecision {
  int current_parallelism = 0;
  std::optional<int> proposed_parallelism;  // what the algorithm wanted (decide stage)
  int final_parallelism = 0;                // after shaping and blocking
  bool outside_utilization_bound = false;
  std::vector<std::string> reasons;         // in stage order
  std::optional<VertexAlignment> alignment;  // decide stage; printed by eval flink
};

struct DecisionLog {
  TimePoint time;
  CycleOutcome outcome = CycleOutcome::kNoChange;
  // Stage -> what it saw and did; keys are "collect", "evaluate", "decide", "shape".
  std::map<std::string, std::vector<std::string>, std::less<>> stages;
  std::map<VertexId, VertexDecision> vertices;
  std::vector<AutoscalerEvent> events;

  // A cycle writes a dozen notes: the stage is found without building its name as a string.
  void Note(std::string_view stage, std::string message) {
    auto it = stages.find(stage);
    if (it == stages.end()) it = stages.try_emplace(std::string(stage)).first;
    it->second.push_back(std::move(message));
  }
};

Json ToJson(const DecisionLog& log);

}  // namespace trimtab::core::flink
