// Private to job_model*.cc: the per-vertex, per-source and per-edge runtime records of
// JobModel, shared by the stepping code (job_model.cc) and the metric snapshot
// (job_model_snapshot.cc).
#pragma once

#include <algorithm>
#include <cmath>

#include <vector>

#include "sim/job_model.h"

namespace trimtab::sim {

struct JobModel::Vertex {
  VertexId id;
  int spec_index = 0;
  int p = 1;
  int max_p = 128;
  double cap = 0;
  double sel = 1;
  int first = 0;    // index of subtask 0 in the flat arrays
  int source = -1;  // index in sources_, or -1
  bool has_hash_in = false;
  std::vector<int> in_edges;
  std::vector<int> out_edges;
  std::vector<double> key_prefix;                // prefix sums of key-group weights (max_p + 1)
  mutable std::vector<double> max_share_cache;   // by parallelism; < 0: not computed
  mutable VertexDemand minimal_demand{-1, -1};   // MinimalParallelism's last question
  mutable int minimal_p = 0;                     // and its answer
  double ewma_in = 0;                            // input rate, 60-s exponential average
  double total_processed = 0;
};

struct JobModel::Source {
  int vertex = 0;
  double rate = 0;         // records/s after rate_factor
  double rate_factor = 1;
  mutable std::vector<PartitionOffsets> parts;  // mutable: lazy offsets of the linear regime
  // Stopping offset per partition of a bounded source; empty when unbounded.
  std::vector<double> stop;
  // What the reader can still read of partition k: up to the log end, and for a bounded source
  // no further than the stopping offset.
  double Readable(size_t k) const {
    const PartitionOffsets& po = parts[k];
    return stop.empty() ? po.end - po.read : std::max(0.0, std::min(po.end, stop[k]) - po.read);
  }
  std::vector<int> order;               // partition indices grouped by owner subtask
  std::vector<int> owner_begin;         // owner i's partitions: order[owner_begin[i]..[i+1])
};

struct JobModel::EdgeRt {
  int from = 0;
  int to = 0;
  ShipStrategy ship = ShipStrategy::kRebalance;
  bool pointwise = false;  // forward with equal parallelism
};

// Which counter RingValue() and CumValue() read (inline: the metric snapshot reads them per
// subtask and per window slot).
enum CounterKind { kRecordsIn = 0, kRecordsOut = 1, kIdleMs = 2, kBackpressuredMs = 3 };

namespace internal {
constexpr int64_t kWindowUpdateMs = 5000;  // Flink's view updater interval
constexpr double kWindowSeconds = 60.0;    // MeterView / TimerGauge window

// A counter of the linear regime from its value at entry and the integrated input l and active
// time t since.
inline double Linear(int kind, double entry, double gain, double sel, double cap, double bp,
                     double l, double t) {
  switch (kind) {
    case kRecordsIn: return entry + gain * l;
    case kRecordsOut: return entry + sel * gain * l;
    case kIdleMs: return entry + 1000.0 * (t - gain * l / cap);
    default: return bp;
  }
}
}  // namespace internal

inline bool JobModel::CanStepFast(int64_t t0) const {
  return !linear_disabled_ && sources_.size() == 1 && sources_[0].stop.empty() && down_until_ms_ <= t0 &&
         drained_ && sources_[0].rate <= lambda_max_;
}

inline void JobModel::UseStepLength(int64_t step_ms) {
  if (ewma_alpha_ms_ == step_ms) return;
  ewma_alpha_ms_ = step_ms;
  ewma_dt_ = static_cast<double>(step_ms) / 1000.0;
  ewma_alpha_dt_ = 1.0 - std::exp(-ewma_dt_ / internal::kWindowSeconds);
}

inline double JobModel::LinearValue(int kind, const Vertex& v, size_t u, double l,
                                    double t) const {
  const double entry = kind == kRecordsIn    ? entry_in_[u]
                       : kind == kRecordsOut ? entry_out_[u]
                                             : entry_idle_[u];
  return internal::Linear(kind, entry, gain_[u], v.sel, v.cap, cum_bp_[u], l, t);
}

inline double JobModel::RingValue(int kind, int slot, const Vertex& v, size_t u) const {
  const size_t n = static_cast<size_t>(num_subtasks_);
  const size_t at = static_cast<size_t>(slot) * n + u;
  if (!slot_virtual_[slot]) {
    switch (kind) {
      case kRecordsIn: return ring_in_[at];
      case kRecordsOut: return ring_out_[at];
      case kIdleMs: return ring_idle_[at];
      default: return ring_bp_[at];
    }
  }
  return LinearValue(kind, v, u, slot_l_[slot], slot_t_[slot]);
}

inline double JobModel::CumValue(int kind, const Vertex& v, size_t u) const {
  if (!fast_) {
    switch (kind) {
      case kRecordsIn: return cum_in_[u];
      case kRecordsOut: return cum_out_[u];
      case kIdleMs: return cum_idle_[u];
      default: return cum_bp_[u];
    }
  }
  return LinearValue(kind, v, u, fast_l_, fast_t_);
}

}  // namespace trimtab::sim
