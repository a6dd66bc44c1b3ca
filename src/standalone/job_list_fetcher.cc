#include "standalone/job_list_fetcher.h"

#include <algorithm>

namespace trimtab::standalone {

bool IsGloballyTerminalJobStatus(const std::string& status) {
  return status == "FINISHED" || status == "CANCELED" || status == "FAILED";
}

StatusOr<std::vector<StandaloneJob>> FetchJobs(const flink::FlinkRestClient& rest,
                                               const StandaloneCluster& cluster,
                                               const std::map<std::string, std::string>& base) {
  StatusOr<std::vector<flink::JobOverview>> listed = rest.ListJobs();
  if (!listed.ok()) {
    return listed.status().WithContext("cluster " + cluster.name + ": listing jobs");
  }
  std::vector<StandaloneJob> jobs;
  for (const flink::JobOverview& o : *listed) {
    if (!cluster.job_ids.empty() &&
        std::find(cluster.job_ids.begin(), cluster.job_ids.end(), o.id) == cluster.job_ids.end()) {
      continue;
    }
    StandaloneJob job{.job_id = o.id, .name = o.name, .status = o.state};
    if (!IsGloballyTerminalJobStatus(o.state)) {
      StatusOr<std::map<std::string, std::string>> own = rest.JobConfiguration(o.id);
      if (own.ok()) {
        job.configuration = base;
        for (const auto& [k, v] : cluster.configuration) job.configuration[k] = v;
        for (const auto& [k, v] : *own) job.configuration[k] = v;
      } else {
        job.error = "cannot read the job's configuration: " + std::string(own.status().message());
      }
    }
    jobs.push_back(std::move(job));
  }
  for (const std::string& id : cluster.job_ids) {
    const bool present = std::any_of(jobs.begin(), jobs.end(),
                                     [&](const StandaloneJob& j) { return j.job_id == id; });
    if (!present) {
      jobs.push_back({.job_id = id,
                      .error = "job " + id + " is not on the cluster (" + cluster.rest_url +
                               " does not list it)"});
    }
  }
  return jobs;
}

}  // namespace trimtab::standalone
