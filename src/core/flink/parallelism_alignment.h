// Parallelism alignment to key groups / source partitions (reference notes §C.5).
//
// A proposal is aligned only when the vertex reads source partitions (num_partitions > 0) or has
// a HASH input. N = num_partitions if > 0, else max_parallelism (the number of key groups). The
// search scans upward from the proposal, for a scale-down never past the current parallelism.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "core/flink/autoscaler_options.h"

namespace trimtab::core::flink {

struct AlignmentInput {
  int proposed = 1;         // already clamped to [lower, min(max_parallelism, upper)]
  int current = 1;
  int num_partitions = 0;   // 0 = unknown / not a partitioned source
  int max_parallelism = 1;  // key groups
  int lower = 1;            // parallelism lower limit
  int upper = 1;            // parallelism upper limit (before min with max_parallelism)
  bool has_hash_input = false;
};

struct AlignmentResult {
  int parallelism = 1;
  bool applied = false;  // alignment rules were considered (partitions or HASH input)
  // Set when the legacy modes had to deviate from the proposal or blocked the scaling: the
  // upstream ScalingLimited warning text without the vertex prefix.
  std::optional<std::string> limited;
};

// REQUIRES: in.proposed != in.current (alignment runs only for a change).
AlignmentResult AlignParallelism(const AlignmentInput& in, AlignmentMode mode);

}  // namespace trimtab::core::flink
