// DecisionHistory: the bounded history the dashboard draws its charts from, kept in the
// autoscaler state as the document "decisionHistory" (docs/autoscaler-operator.md). Every
// autoscaler pass that ran appends one point (time, outcome, and per vertex its parallelism,
// input rate, processing capacity and lag as far as the evaluation has them); every pass that
// scaled, was vetoed or was blocked also keeps its full decision log. Both lists are cut to their
// newest entries, so the document stays small whatever the job does:
//
//   {"vertexNames": {vid: name},                       vertices of the latest topology
//    "points":    [{time, outcome, vertices: {vid: {parallelism, inputRate?, capacity?, lag?}}}],
//    "decisions": [{...decision log..., "decision": "Scaled" | "Vetoed" | "Blocked"}]}
//
// inputRate is TARGET_DATA_RATE (average), capacity TRUE_PROCESSING_RATE (average), lag LAG
// (current, sources only); values the evaluation does not have are left out. Oldest first.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "common/clock.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "core/scaling_types.h"

namespace trimtab::op {

inline constexpr size_t kMaxHistoryPoints = 240;     // 4 h at the default 1 min interval
inline constexpr size_t kMaxHistoryDecisions = 30;   // full logs kept
inline constexpr size_t kMaxHistoryVertexName = 256; // characters of a vertex name

struct HistoryPass {
  TimePoint time;
  // "Scaled", "Vetoed", "Blocked", "NoChange", "WindowNotFull", ... (the decisions metric's).
  std::string outcome;
  const core::JobTopology* topology = nullptr;         // required
  const core::EvaluatedMetrics* evaluated = nullptr;   // null or empty: parallelism only
  const Json* decision_log = nullptr;                  // kept for Scaled / Vetoed / Blocked
};

// `history` as stored (null, or anything that is not an object, starts afresh) with `pass`
// appended and both lists cut to their limits. Malformed entries are dropped, not kept.
Json AppendToHistory(const Json& history, const HistoryPass& pass);

// True for the outcomes whose decision log the history keeps.
bool IsKeptDecision(const std::string& outcome);

}  // namespace trimtab::op
