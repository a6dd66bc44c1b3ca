// TopicRegistry: the Kafka-like topics the simulated Flink jobs read, shared by every simulated
// cluster of the process (docs/design/flink-pods.md "State that outlives a JobManager"), and
// the offset ledger that proves what the jobs committed.
//
// A topic is keyed `<namespace>/<cluster-id>/<source JobVertexID>`. It has a fixed number of
// partitions and a workload (a RateProfile whose time 0 is the topic's creation, times the
// source's rate factor, spread evenly over the partitions). While a job reads the topic the
// job's model produces into it; while no job reads it, the registry integrates the workload
// over the clock, so downtime becomes backlog.
//
// The ledger keeps, per partition, every committed range [from, to) in commit order. Each
// completed checkpoint (or terminating savepoint) of a job commits the range read since that
// job's previous commit (its first commit starts where the job started reading). A correct
// history is contiguous from 0: a range starting after the previous end is a GAP (records were
// skipped, e.g. a stateless start from the latest offset), one starting before it an OVERLAP
// (records committed twice, e.g. a restore from an older snapshot).
//
// Persistence (trimtab local): with Persist(), every change is appended to a journal file (one
// JSON object per line, written before the call returns) and the journal is replayed when the
// process starts again on the same data directory, so a restart of the whole process neither
// forgets committed ranges nor reports false gaps. A commit is journaled before its snapshot's
// metadata is written (CommitLedger, then the _metadata file); on replay, ledger entries at the
// end of a partition whose snapshot metadata never reached the disk (the process was killed in
// between) are dropped, since no job can restore from that snapshot. Readers do not survive a
// restart: every topic comes back detached. The profile is not journaled: a reloaded topic
// produces nothing until a job attaches and gives it one again.
//
// Usage (a test):
//   std::vector<LedgerIssue> issues = topics->CheckLedger("default/wordcount/" + source_id);
//   EXPECT_TRUE(issues.empty()) << LedgerIssuesToString(issues);
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"
#include "sim/rate_profile.h"

namespace trimtab::sim::flink {

struct LedgerEntry {
  double from = 0;  // first offset of the range
  double to = 0;    // one past the last
  std::string job_id;
  int64_t checkpoint_id = 0;
  bool savepoint = false;
  int64_t time_ms = 0;  // Unix ms of the commit
  // The snapshot's directory (its _metadata file proves it completed); "" when not addressable.
  std::string snapshot_path;
};

struct LedgerIssue {
  enum class Kind { kGap, kOverlap };
  Kind kind = Kind::kGap;
  int partition = 0;
  double from = 0;  // the skipped / doubly committed range
  double to = 0;
  size_t entry = 0;  // index of the ledger entry that revealed it
  std::string job_id;
  std::string ToString() const;  // "partition 3: gap [120, 480) before checkpoint 7 of job ..."
};
std::string LedgerIssuesToString(const std::vector<LedgerIssue>& issues);

struct TopicOptions {
  int partitions = 1;
  std::shared_ptr<const RateProfile> profile;  // records/s before rate_factor; null = 0
  double rate_factor = 1.0;
};

// What a reader gets when it attaches.
struct TopicLease {
  std::string key;
  TimePoint origin;                      // profile time 0
  std::vector<double> end_offsets;       // per partition, produced up to now
  std::vector<double> committed_offsets; // per partition: end of the last ledger range (0 if none)
  std::shared_ptr<const RateProfile> profile;
  double rate_factor = 1.0;
};

struct TopicInfo {
  std::string key;
  int partitions = 0;
  std::string reader;               // "" when detached
  std::vector<double> end_offsets;  // as of the last hand-back or integration
  TimePoint origin;
};

class TopicRegistry {
 public:
  explicit TopicRegistry(Clock* clock) : clock_(clock) {}
  ~TopicRegistry();

  // Replays the journal at `path` (absent: nothing to replay), rewrites it compactly and appends
  // every later change to it. `snapshot_completed(path)` says whether a snapshot's metadata is
  // on disk. Call once, before any other method. Errors: the journal cannot be read or written.
  Status Persist(const std::string& path,
                 std::function<bool(const std::string& snapshot_path)> snapshot_completed);

  // Attaches `reader` (e.g. "<namespace>/<pod>/<job id>") to the topic, creating it at the
  // clock's now with `options` when absent. An existing topic keeps its partition count and
  // origin; its workload becomes `options.profile` / `rate_factor` (the new deployment's).
  // Errors: FailedPrecondition when another reader holds the topic.
  StatusOr<TopicLease> Attach(const std::string& key, const std::string& reader, const TopicOptions& options);
  // Hands the topic back with the end offsets the reader's model reached at `at`; from then on
  // the registry produces. Ignored when `reader` does not hold the topic.
  void Detach(const std::string& key, const std::string& reader, const std::vector<double>& end_offsets,
              TimePoint at);

  // Appends [from, to) of `partition` to the ledger.
  void Commit(const std::string& key, int partition, const LedgerEntry& entry);
  // Takes back the last entry of `partition` when it is `entry`'s commit (same job, checkpoint
  // and range): its snapshot could not be completed after all.
  void Retract(const std::string& key, int partition, const LedgerEntry& entry);

  std::vector<std::string> Keys() const;
  // The topic with its end offsets integrated up to now when detached. NotFound when absent.
  StatusOr<TopicInfo> Describe(const std::string& key) const;
  std::vector<LedgerEntry> Ledger(const std::string& key, int partition) const;
  // Gaps and overlaps in every partition of `key` (offsets compared with `tolerance`).
  std::vector<LedgerIssue> CheckLedger(const std::string& key, double tolerance = 1e-6) const;

 private:
  struct Topic {
    TimePoint origin;
    std::shared_ptr<const RateProfile> profile;
    double rate_factor = 1.0;
    std::vector<double> end;  // per partition, valid at `end_time` when detached
    TimePoint end_time;
    std::string reader;
    std::vector<std::vector<LedgerEntry>> ledger;  // per partition
  };
  // Records produced per partition by a detached topic over (end_time, to].
  static double ProducedPerPartition(const Topic& t, TimePoint to);
  // Appends one line to the journal (no-op without Persist). REQUIRES: mu_ held.
  void Journal(const Json& line);
  // Applies one journal line; false when it is not understood. REQUIRES: mu_ held.
  bool Replay(const Json& line);
  // The journal lines that recreate the current state. REQUIRES: mu_ held.
  std::vector<Json> Compacted() const;

  Clock* clock_;
  mutable std::mutex mu_;
  std::map<std::string, Topic> topics_;  // guarded by mu_
  std::FILE* journal_ = nullptr;         // guarded by mu_; null without Persist
};

}  // namespace trimtab::sim::flink
