// Slot arithmetic shared by the plugins that enforce budgets (budget-cap, multi-job-coordinator):
// how many task slots a job needs before and after a scaling decision, and how to cut scale-ups
// down deterministically until a slot limit is met.
//
// With slot sharing (Flink's default: every vertex in one slot-sharing group) a job needs as many
// slots as its largest vertex parallelism, per slot-sharing group (VertexInfo::slot_sharing_group)
// summed over the groups; without it, the sum of all parallelisms.
//
// Thread-safety: pure functions.
#pragma once

#include "core/scaling_types.h"

namespace trimtab::core {

// Parallelism of every vertex: from `topology`, replaced by summaries' new parallelism when
// `after` is true (vertices only in the summaries count with their current/new parallelism).
int SlotsNeeded(const JobTopology& topology, const ScalingSummaries& summaries, bool slot_sharing,
                bool after);

// Lowers scale-ups (never below a vertex's current parallelism, never touching scale-downs) until
// the job fits in `max_slots`, or no scale-up is left to cut. Entries whose new parallelism ends
// equal to the current one are dropped. Which vertex is cut is deterministic:
//   slot sharing, one group: every scale-up is clamped to max(current, max_slots);
//   slot sharing, several groups: one slot at a time from the group whose maximum rises most
//                 (all of its scale-ups at the group's new maximum), ties to the smaller name;
//   otherwise:    one slot at a time from the vertex with the largest remaining increase, ties
//                 to the smallest vertex id.
ScalingSummaries CapScaleUps(const JobTopology& topology, const ScalingSummaries& summaries,
                             int max_slots, bool slot_sharing);

// True when at least one summary raises parallelism.
bool HasScaleUp(const ScalingSummaries& summaries);

}  // namespace trimtab::core
