// FetchJobs: the jobs of one Flink cluster the standalone autoscaler looks after in a pass
// (upstream FlinkClusterJobListFetcher): GET /jobs/overview, then for each job that is not
// globally terminal its configuration from GET /jobs/:id/jobmanager/config.
//
// Which jobs: every job the cluster lists when the cluster names none (a session cluster's jobs
// are discovered), otherwise only the named ones; a named job the cluster does not list comes back
// with an empty status and `error` set.
//
// Each job's configuration is layered: `base` (the standalone configuration), then the cluster's
// `configuration`, then the job's own configuration as its JobManager reports it (the job wins,
// so a job opts out with its own job.autoscaler.enabled: false).
//
// Errors: the job list cannot be read (the cluster is unreachable); a job whose configuration
// cannot be read keeps `error` set and is not autoscaled this pass.
//
// Thread-safety: a pure function of the REST answers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "adapters/flink/rest_client.h"
#include "common/status.h"
#include "standalone/standalone_config.h"

namespace trimtab::standalone {

struct StandaloneJob {
  std::string job_id;
  std::string name;
  std::string status;  // Flink JobStatus ("RUNNING", ...); "" = not on the cluster
  std::map<std::string, std::string> configuration;
  std::string error;  // why this job cannot be autoscaled this pass ("" = it can)
};

// True for FINISHED, CANCELED and FAILED: the job will not run again, its state can go.
bool IsGloballyTerminalJobStatus(const std::string& status);

StatusOr<std::vector<StandaloneJob>> FetchJobs(const flink::FlinkRestClient& rest,
                                               const StandaloneCluster& cluster,
                                               const std::map<std::string, std::string>& base);

}  // namespace trimtab::standalone
