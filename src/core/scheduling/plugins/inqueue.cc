// Admission accounting shared by proportion and overcommit.
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {

Resources InqueueResource(const JobInfo& job, const Resources& allocated) {
  // util.GetInqueueResource: per dimension, what minResources asks beyond what is allocated.
  return Resources::ExceededPart(job.min_resources, allocated);
}

bool ReservesMinResources(const JobInfo& job) {
  if (!job.has_min_resources) return false;
  if (job.phase == PodGroupPhase::kInqueue) return true;
  return job.phase == PodGroupPhase::kRunning && job.AllocatedTaskNum() >= job.min_available;
}

}  // namespace trimtab::core::scheduling
