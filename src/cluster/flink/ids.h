// Identifiers as Flink writes them on the wire: JobID, JobVertexID, TriggerId and
// SlotSharingGroupId are 32 lower-case hex digits; HA ConfigMap checkpoint keys are
// `checkpointID-<19-digit zero-padded id>`.
//
// Thread-safety: IdGenerator is not thread-safe (one per cluster, used under its lock); the
// free functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/rng.h"

namespace trimtab::sim::flink {

// True when `s` is exactly 32 hex digits (either case, as Flink's JobID.fromHexString accepts).
bool IsHexId(std::string_view s);

// A stable id derived from the parts (e.g. job name and vertex id in the job spec), so the same
// job graph gets the same vertex ids in every run and on every JobManager.
std::string StableHexId(std::string_view a, std::string_view b);

// "checkpointID-0000000000000000042".
std::string CheckpointKey(int64_t checkpoint_id);

// Seeded random ids (job ids, trigger ids, jar ids).
class IdGenerator {
 public:
  explicit IdGenerator(uint64_t seed) : rng_(seed) {}
  std::string HexId();           // 32 hex digits
  std::string Hex(int digits);   // `digits` hex digits
  std::string Uuid();            // 8-4-4-4-12 (random UUID shape)

 private:
  Xoshiro256 rng_;
};

}  // namespace trimtab::sim::flink
