#include "sim/flink_cluster/topic_registry.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace trimtab::sim::flink {

namespace {

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

std::string FormatOffset(double x) {
  std::ostringstream ss;
  ss.precision(12);
  ss << x;
  return ss.str();
}

}  // namespace

std::string LedgerIssue::ToString() const {
  std::string s = "partition " + std::to_string(partition) + ": " + (kind == Kind::kGap ? "gap" : "overlap") +
                  " [" + FormatOffset(from) + ", " + FormatOffset(to) + ") at ledger entry " +
                  std::to_string(entry);
  if (!job_id.empty()) s += " (job " + job_id + ")";
  return s;
}

std::string LedgerIssuesToString(const std::vector<LedgerIssue>& issues) {
  std::string out;
  for (const LedgerIssue& i : issues) out += i.ToString() + "\n";
  return out;
}

double TopicRegistry::ProducedPerPartition(const Topic& t, TimePoint to) {
  if (!t.profile || to <= t.end_time || t.end.empty()) return 0;
  // Mid-point rule on a grid of at most 1 s.
  const double start = Seconds(t.end_time - t.origin);
  const double span = Seconds(to - t.end_time);
  const int steps = std::max(1, static_cast<int>(std::ceil(span)));
  const double dt = span / steps;
  double total = 0;
  for (int i = 0; i < steps; ++i) total += t.profile->Rate(start + (i + 0.5) * dt) * dt;
  return total * t.rate_factor / static_cast<double>(t.end.size());
}

StatusOr<TopicLease> TopicRegistry::Attach(const std::string& key, const std::string& reader,
                                           const TopicOptions& options) {
  if (options.partitions < 1) return InvalidArgumentError("topic " + key + ": needs at least one partition");
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_->Now();
  auto it = topics_.find(key);
  if (it == topics_.end()) {
    Topic t;
    t.origin = now;
    t.end.assign(static_cast<size_t>(options.partitions), 0.0);
    t.end_time = now;
    t.ledger.resize(static_cast<size_t>(options.partitions));
    it = topics_.emplace(key, std::move(t)).first;
  }
  Topic& t = it->second;
  if (!t.reader.empty() && t.reader != reader) {
    return FailedPreconditionError("topic " + key + " is being read by " + t.reader);
  }
  if (t.reader.empty()) {
    const double add = ProducedPerPartition(t, now);
    for (double& e : t.end) e += add;
    t.end_time = now;
  }
  t.reader = reader;
  t.profile = options.profile;
  t.rate_factor = options.rate_factor;
  TopicLease lease;
  lease.key = key;
  lease.origin = t.origin;
  lease.end_offsets = t.end;
  lease.committed_offsets.assign(t.end.size(), 0.0);
  for (size_t p = 0; p < t.ledger.size(); ++p) {
    if (!t.ledger[p].empty()) lease.committed_offsets[p] = t.ledger[p].back().to;
  }
  lease.profile = t.profile;
  lease.rate_factor = t.rate_factor;
  return lease;
}

void TopicRegistry::Detach(const std::string& key, const std::string& reader,
                           const std::vector<double>& end_offsets, TimePoint at) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = topics_.find(key);
  if (it == topics_.end() || it->second.reader != reader) return;
  Topic& t = it->second;
  for (size_t p = 0; p < t.end.size() && p < end_offsets.size(); ++p) t.end[p] = std::max(t.end[p], end_offsets[p]);
  t.end_time = at;
  t.reader.clear();
}

void TopicRegistry::Commit(const std::string& key, int partition, const LedgerEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = topics_.find(key);
  if (it == topics_.end() || partition < 0 || partition >= static_cast<int>(it->second.ledger.size())) return;
  it->second.ledger[static_cast<size_t>(partition)].push_back(entry);
}

std::vector<std::string> TopicRegistry::Keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [k, t] : topics_) out.push_back(k);
  return out;
}

StatusOr<TopicInfo> TopicRegistry::Describe(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = topics_.find(key);
  if (it == topics_.end()) return NotFoundError("topic " + key + " does not exist");
  const Topic& t = it->second;
  TopicInfo info;
  info.key = key;
  info.partitions = static_cast<int>(t.end.size());
  info.reader = t.reader;
  info.end_offsets = t.end;
  info.origin = t.origin;
  if (t.reader.empty()) {
    const double add = ProducedPerPartition(t, clock_->Now());
    for (double& e : info.end_offsets) e += add;
  }
  return info;
}

std::vector<LedgerEntry> TopicRegistry::Ledger(const std::string& key, int partition) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = topics_.find(key);
  if (it == topics_.end() || partition < 0 || partition >= static_cast<int>(it->second.ledger.size())) return {};
  return it->second.ledger[static_cast<size_t>(partition)];
}

std::vector<LedgerIssue> TopicRegistry::CheckLedger(const std::string& key, double tolerance) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<LedgerIssue> issues;
  auto it = topics_.find(key);
  if (it == topics_.end()) return issues;
  const auto& ledger = it->second.ledger;
  for (size_t p = 0; p < ledger.size(); ++p) {
    double expected = 0;
    for (size_t i = 0; i < ledger[p].size(); ++i) {
      const LedgerEntry& e = ledger[p][i];
      const double tol = tolerance * std::max(1.0, std::fabs(expected));
      if (e.from > expected + tol) {
        issues.push_back({LedgerIssue::Kind::kGap, static_cast<int>(p), expected, e.from, i, e.job_id});
      } else if (e.from < expected - tol) {
        issues.push_back({LedgerIssue::Kind::kOverlap, static_cast<int>(p), e.from, std::min(expected, e.to), i,
                          e.job_id});
      }
      expected = std::max(expected, e.to);
    }
  }
  return issues;
}

}  // namespace trimtab::sim::flink
