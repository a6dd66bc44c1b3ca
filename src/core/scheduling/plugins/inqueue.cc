// Queue and admission accounting shared by proportion, capacity and overcommit.
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

Resources QueueCapability(const QueueInfo& q) {
  Resources cap = Resources::Unlimited();
  for (int d = 0; d < kMaxResourceDims; ++d) {
    if (q.capability_named[d]) cap[d] = q.capability[d];
  }
  if (cap[kCpu] <= 0) cap[kCpu] = kUnlimited;
  if (cap[kMemory] <= 0) cap[kMemory] = kUnlimited;
  return cap;
}

Resources QueueRealCapability(const QueueInfo& q, const Resources& total,
                              const Resources& total_guarantee) {
  Resources real = Resources::ExceededPart(total, total_guarantee);
  if (q.has_guarantee) real.Add(q.guarantee);
  if (q.has_capability) real.MinDimension(QueueCapability(q));
  return real;
}

std::string QuotaInsufficientMessage(const std::vector<std::string>& failed) {
  std::string msg = "queue resource quota insufficient";
  for (size_t i = 0; i < failed.size(); ++i) {
    msg += (i == 0 ? ": insufficient " : ", insufficient ") + failed[i];
  }
  return msg;
}

std::string AdmissionRefusal(const Session& ssn, const JobInfo& job,
                             const Resources& real_capability,
                             const std::vector<std::string>& failed) {
  std::string msg = QuotaInsufficientMessage(failed);
  if (!job.min_resources.LessEqualOnRequested(real_capability, job.min_resources, ssn.names())) {
    Resources shown = real_capability;
    // Only the dimensions minResources names; an unlimited one cannot be what is exceeded.
    for (int d = 0; d < kMaxResourceDims; ++d) {
      if (job.min_resources[d] <= 0) shown[d] = 0;
    }
    msg += "; spec.minResources <" + ssn.Res(job.min_resources) +
           "> exceeds the real capability <" + ssn.Res(shown) + "> of queue \"" +
           job.queue_name + "\": the group can never be admitted";
  }
  return msg;
}

std::string QueueNotOpenMessage(const QueueInfo& queue) {
  return "queue \"" + queue.name + "\" is " + queue.state +
         " (status.state): it admits no new PodGroups";
}

void QueueUsage::AddJob(Session& ssn, const JobInfo& job) {
  for (int id : job.tasks) {
    const TaskInfo& t = ssn.tasks()[id];
    if (AllocatedStatus(t.status)) {
      allocated.Add(t.resreq);
      request.Add(t.resreq);
    } else if (t.status == TaskStatus::kPending) {
      request.Add(t.resreq);
    }
  }
  if (ReservesMinResources(job)) inqueue.Add(InqueueResource(job, job.allocated));
  // GetElasticResources: allocated beyond minResources (all of it without minResources).
  elastic.Add(Resources::ExceededPart(job.allocated, job.min_resources));
}

}  // namespace trimtab::core::scheduling
