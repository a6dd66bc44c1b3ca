// QueueInfo: a scheduling.volcano.sh/v1beta1 Queue as the session sees it
// (pkg/scheduler/api/queue_info.go).
//
// Thread-safety: owned by one session.
#pragma once

#include <cstdint>
#include <string>

// Json is held by value: the complete type is needed.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "core/scheduling/resources.h"

namespace trimtab::core::scheduling {

struct QueueInfo {
  int id = -1;
  std::string name, uid;
  int64_t creation = 0;
  int32_t weight = 1;        // spec.weight (0 or absent -> 1)
  int32_t priority = 0;      // spec.priority
  bool has_capability = false;
  Resources capability;      // spec.capability as written (absent dims 0)
  bool capability_named[kMaxResourceDims] = {};  // which dims spec.capability names
  bool has_guarantee = false;
  Resources guarantee;       // spec.guarantee.resource
  bool guarantee_named[kMaxResourceDims] = {};
  bool has_deserved = false;
  Resources deserved_spec;   // spec.deserved (capacity plugin)
  bool deserved_named[kMaxResourceDims] = {};
  bool reclaimable = true;   // spec.reclaimable (nil -> true)
  std::string parent;        // spec.parent
  std::string state = "Open";  // status.state ("" -> Open)
  Json input_status;

  bool IsOpen() const { return state == "Open"; }
};

}  // namespace trimtab::core::scheduling
