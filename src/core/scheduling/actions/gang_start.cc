#include "core/scheduling/actions/gang_start.h"

#include <vector>

#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {

bool GangNotStarted(const JobInfo& job) {
  return job.has_min_resources && job.AllocatedTaskNum() == 0 && job.ScheduledTaskNum() == 0;
}

Resources GangStartNeed(const JobInfo& job) {
  return Resources::ExceededPart(job.min_resources, job.allocated);
}

bool GangStartFits(Session& ssn, const JobInfo& job, const Resources& need, std::string* why) {
  const QueueInfo& queue = ssn.queues()[job.queue];
  Resources total_guarantee;
  for (const QueueInfo& q : ssn.queues()) {
    if (q.has_guarantee) total_guarantee.Add(q.guarantee);
  }
  Resources held = need;
  for (const JobInfo& other : ssn.jobs()) {
    if (other.queue != job.queue || other.id == job.id) continue;
    held.Add(other.allocated);
    if (ReservesMinResources(other)) held.Add(InqueueResource(other, other.allocated));
  }
  std::vector<std::string> failed;
  const Resources capability = QueueRealCapability(queue, ssn.total_resource(), total_guarantee);
  if (!held.LessEqualOnRequested(capability, need, ssn.names(), &failed)) {
    if (why) {
      *why = "queue " + queue.name + ":";
      for (const std::string& f : failed) *why += " insufficient " + f;
    }
    return false;
  }
  Resources future_idle;
  for (const NodeInfo& n : ssn.nodes()) future_idle.Add(n.FutureIdle());
  failed.clear();
  if (!need.LessEqualOnRequested(future_idle, need, ssn.names(), &failed)) {
    if (why) {
      *why = "nodes:";
      for (const std::string& f : failed) *why += " insufficient " + f;
    }
    return false;
  }
  return true;
}

}  // namespace trimtab::core::scheduling
