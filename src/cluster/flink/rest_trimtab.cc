// GET /trimtab/topics: what the simulated cluster's sources read, and the offset ledger that
// proves it. Not a Flink endpoint (real Flink has no such path; the conformance test skips it):
// it lets a test or a curious user check over HTTP, through the JobManager's Service, that an
// upgrade lost nothing and repeated nothing.
//
//   {"topics": [{"key": "<ns>/<cluster-id>/<source vertex id>", "partitions": 4,
//                "reader": "<ns>/<pod>/<job id>" | "",
//                "endOffsets": [...],            produced so far, per partition
//                "readOffsets": [...],           the reading job's position (only while one reads)
//                "committedOffsets": [...],      end of the last committed range, per partition
//                "commits": 17,                  ledger entries over all partitions
//                "savepointCommits": 2,
//                "jobs": ["<job id>", ...],      jobs that committed, in first-commit order
//                "issues": ["partition 3: gap [120, 480) before checkpoint 7 of job ..."]}]}
//
// Only the topics of this cluster (key prefix "<namespace>/<cluster-id>/") are listed.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

void AddTrimtabRoutes(RestRouter& router) {
  router.Add("GET", "trimtab/topics", [](RestContext& ctx) {
    const ClusterSettings& s = ctx.state.settings();
    const std::string prefix = s.namespace_name + "/" + s.cluster_id + "/";
    const TopicRegistry& topics = ctx.state.topics();
    Json out = Json::array();
    for (const std::string& key : topics.Keys()) {
      if (key.rfind(prefix, 0) != 0) continue;
      StatusOr<TopicInfo> info = topics.Describe(key);
      if (!info.ok()) continue;  // removed meanwhile
      // While a job of this cluster reads the topic, its model holds the live offsets; the
      // registry only integrates a topic nobody reads (TopicInfo::end_offsets is as of the last
      // hand-back then).
      Json end_offsets = info->end_offsets;
      Json read_offsets;
      for (const auto& job : ctx.state.jobs()) {
        const JobModel* model = job->model();
        const std::vector<std::string>& keys = job->topic_keys();
        auto it = std::find(keys.begin(), keys.end(), key);
        const std::string suffix = "/" + job->id();
        const bool reading = info->reader.size() >= suffix.size() &&
                             info->reader.compare(info->reader.size() - suffix.size(),
                                                  suffix.size(), suffix) == 0;
        if (!model || it == keys.end() || !reading) continue;
        end_offsets = Json::array();
        read_offsets = Json::array();
        for (const PartitionOffsets& p : model->partitions(static_cast<int>(it - keys.begin()))) {
          end_offsets.push_back(p.end);
          read_offsets.push_back(p.read);
        }
      }
      Json committed = Json::array();
      Json jobs = Json::array();
      int64_t commits = 0;
      int64_t savepoint_commits = 0;
      for (int p = 0; p < info->partitions; ++p) {
        double end = 0;
        for (const LedgerEntry& e : topics.Ledger(key, p)) {
          end = e.to;
          ++commits;
          if (e.savepoint) ++savepoint_commits;
          if (std::find(jobs.begin(), jobs.end(), e.job_id) == jobs.end()) jobs.push_back(e.job_id);
        }
        committed.push_back(end);
      }
      Json issues = Json::array();
      for (const LedgerIssue& issue : topics.CheckLedger(key)) issues.push_back(issue.ToString());
      out.push_back({{"key", key},
                     {"partitions", info->partitions},
                     {"reader", info->reader},
                     {"endOffsets", end_offsets},
                     {"readOffsets", read_offsets},
                     {"committedOffsets", committed},
                     {"commits", commits},
                     {"savepointCommits", savepoint_commits},
                     {"jobs", jobs},
                     {"issues", issues}});
    }
    return JsonResponse(200, Json{{"topics", out}});
  });
}

}  // namespace trimtab::sim::flink::rest
