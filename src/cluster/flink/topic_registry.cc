#include "cluster/flink/topic_registry.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

namespace {

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

int64_t Nanos(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
TimePoint FromNanos(int64_t n) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::nanoseconds(n)));
}

Json EntryJson(const std::string& key, int partition, const LedgerEntry& e) {
  return {{"t", "commit"}, {"key", key},  {"p", partition},     {"from", e.from},
          {"to", e.to},    {"job", e.job_id}, {"cp", e.checkpoint_id}, {"sp", e.savepoint},
          {"time", e.time_ms}, {"path", e.snapshot_path}};
}

bool SameCommit(const LedgerEntry& a, const LedgerEntry& b) {
  return a.job_id == b.job_id && a.checkpoint_id == b.checkpoint_id && a.from == b.from &&
         a.to == b.to && a.savepoint == b.savepoint;
}

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

TopicRegistry::~TopicRegistry() {
  if (journal_ != nullptr) std::fclose(journal_);
}

void TopicRegistry::Journal(const Json& line) {
  if (journal_ == nullptr) return;
  const std::string text = line.dump() + "\n";
  // One write per line, flushed at once: a SIGKILL loses at most the line being written.
  std::fwrite(text.data(), 1, text.size(), journal_);
  std::fflush(journal_);
}

bool TopicRegistry::Replay(const Json& line) {
  if (!line.is_object() || !line.contains("t") || !line.contains("key")) return false;
  const std::string type = line["t"].get<std::string>();
  const std::string key = line["key"].get<std::string>();
  if (type == "topic") {
    Topic t;
    const size_t n = line.value("partitions", 1);
    t.origin = FromNanos(line.value("origin", int64_t{0}));
    t.end = line.value("end", std::vector<double>(n, 0.0));
    t.end.resize(n, 0.0);
    t.end_time = FromNanos(line.value("endTime", int64_t{0}));
    t.rate_factor = line.value("rateFactor", 1.0);
    t.ledger.resize(n);
    topics_[key] = std::move(t);
    return true;
  }
  auto it = topics_.find(key);
  if (it == topics_.end()) return false;
  Topic& t = it->second;
  if (type == "attach" || type == "detach") {
    std::vector<double> end = line.value("end", std::vector<double>{});
    for (size_t p = 0; p < t.end.size() && p < end.size(); ++p) t.end[p] = end[p];
    t.end_time = FromNanos(line.value("endTime", int64_t{0}));
    if (line.contains("rateFactor")) t.rate_factor = line["rateFactor"].get<double>();
    return true;
  }
  const size_t p = line.value("p", size_t{0});
  if (p >= t.ledger.size()) return false;
  LedgerEntry e{.from = line.value("from", 0.0),
                .to = line.value("to", 0.0),
                .job_id = line.value("job", ""),
                .checkpoint_id = line.value("cp", int64_t{0}),
                .savepoint = line.value("sp", false),
                .time_ms = line.value("time", int64_t{0}),
                .snapshot_path = line.value("path", "")};
  if (type == "commit") {
    t.ledger[p].push_back(std::move(e));
    return true;
  }
  if (type == "retract") {
    if (!t.ledger[p].empty() && SameCommit(t.ledger[p].back(), e)) t.ledger[p].pop_back();
    return true;
  }
  return false;
}

std::vector<Json> TopicRegistry::Compacted() const {
  std::vector<Json> lines;
  for (const auto& [key, t] : topics_) {
    lines.push_back({{"t", "topic"},
                     {"key", key},
                     {"partitions", t.end.size()},
                     {"origin", Nanos(t.origin)},
                     {"end", t.end},
                     {"endTime", Nanos(t.end_time)},
                     {"rateFactor", t.rate_factor}});
    for (size_t p = 0; p < t.ledger.size(); ++p) {
      for (const LedgerEntry& e : t.ledger[p]) lines.push_back(EntryJson(key, static_cast<int>(p), e));
    }
  }
  return lines;
}

Status TopicRegistry::Persist(const std::string& path,
                              std::function<bool(const std::string&)> snapshot_completed) {
  std::lock_guard<std::mutex> lock(mu_);
  if (journal_ != nullptr) return FailedPreconditionError("topic journal " + path + ": already open");
  {
    std::ifstream in(path);
    std::string text;
    size_t number = 0;
    while (in && std::getline(in, text)) {
      ++number;
      if (text.empty()) continue;
      Json line = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      // A line cut by a kill is the last one; anything else not understood is skipped too
      // (the journal is the simulation's, not user data).
      if (line.is_discarded() || !Replay(line)) continue;
    }
  }
  for (auto& [key, t] : topics_) {
    for (std::vector<LedgerEntry>& ledger : t.ledger) {
      // Commits whose snapshot never completed (killed between the journal and the metadata).
      while (!ledger.empty() && !ledger.back().snapshot_path.empty() && snapshot_completed &&
             !snapshot_completed(ledger.back().snapshot_path)) {
        ledger.pop_back();
      }
    }
    // The readers died with the process; what they produced is produced again on attach.
    t.reader.clear();
    for (size_t p = 0; p < t.end.size(); ++p) {
      if (!t.ledger[p].empty()) t.end[p] = std::max(t.end[p], t.ledger[p].back().to);
    }
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const Json& line : Compacted()) out << line.dump() << "\n";
    if (!out) return UnavailableError("topic journal: cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return UnavailableError("topic journal: rename " + tmp + ": " + ec.message());
  journal_ = std::fopen(path.c_str(), "a");
  if (journal_ == nullptr) return UnavailableError("topic journal: cannot append to " + path);
  return Status::Ok();
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
    Journal({{"t", "topic"},
             {"key", key},
             {"partitions", options.partitions},
             {"origin", Nanos(now)},
             {"endTime", Nanos(now)}});
  }
  Topic& t = it->second;
  if (!t.reader.empty() && t.reader != reader) {
    return FailedPreconditionError("topic " + key + " is being read by " + t.reader);
  }
  if (t.reader.empty()) {
    if (!t.profile) {
      // Reloaded from the journal: the downtime produced at the new deployment's rate.
      t.profile = options.profile;
      t.rate_factor = options.rate_factor;
    }
    const double add = ProducedPerPartition(t, now);
    for (double& e : t.end) e += add;
    t.end_time = now;
  }
  t.reader = reader;
  t.profile = options.profile;
  t.rate_factor = options.rate_factor;
  Journal({{"t", "attach"}, {"key", key}, {"end", t.end}, {"endTime", Nanos(t.end_time)},
           {"rateFactor", t.rate_factor}});
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
  Journal({{"t", "detach"}, {"key", key}, {"end", t.end}, {"endTime", Nanos(t.end_time)}});
}

void TopicRegistry::Commit(const std::string& key, int partition, const LedgerEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = topics_.find(key);
  if (it == topics_.end() || partition < 0 || partition >= static_cast<int>(it->second.ledger.size())) return;
  it->second.ledger[static_cast<size_t>(partition)].push_back(entry);
  Journal(EntryJson(key, partition, entry));
}

void TopicRegistry::Retract(const std::string& key, int partition, const LedgerEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = topics_.find(key);
  if (it == topics_.end() || partition < 0 || partition >= static_cast<int>(it->second.ledger.size())) return;
  std::vector<LedgerEntry>& ledger = it->second.ledger[static_cast<size_t>(partition)];
  if (ledger.empty() || !SameCommit(ledger.back(), entry)) return;
  ledger.pop_back();
  Json line = EntryJson(key, partition, entry);
  line["t"] = "retract";
  Journal(line);
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
