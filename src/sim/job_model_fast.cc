// JobModel's linear regime (see job_model.h, the comment at fast_): steps that cost O(vertices)
// instead of O(subtasks + partitions) while a single-source job keeps up with its input.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/job_model.h"
#include "sim/job_model_internal.h"

namespace trimtab::sim {

void JobModel::ComputeGains() {
  const size_t n = static_cast<size_t>(num_subtasks_);
  gain_.assign(n, 0.0);
  vertex_gain_.assign(vertices_.size(), 0.0);
  lambda_max_ = -1;  // never fast
  if (sources_.size() != 1) return;
  const Source& s = sources_[0];
  const Vertex& sv = vertices_[static_cast<size_t>(s.vertex)];
  const double parts = static_cast<double>(s.parts.size());
  for (int i = 0; i < sv.p; ++i) {
    const int owned = s.owner_begin[static_cast<size_t>(i) + 1] - s.owner_begin[static_cast<size_t>(i)];
    gain_[static_cast<size_t>(sv.first + i)] = owned / parts;
  }
  ForwardPass(gain_.data());
  vertex_gain_ = vertex_total_;
  double limit = std::numeric_limits<double>::infinity();
  for (const Vertex& v : vertices_) {
    for (int j = v.first; j < v.first + v.p; ++j) {
      const double g = gain_[static_cast<size_t>(j)];
      if (g > 0) limit = std::min(limit, v.cap / g);
    }
  }
  // Strictly below the saturation threshold the general path uses (1 - 1e-9 of capacity).
  lambda_max_ = limit * (1.0 - 4e-9);
}

void JobModel::EnterFast() {
  entry_in_ = cum_in_;  // same sizes after the first time: no allocation
  entry_out_ = cum_out_;
  entry_idle_ = cum_idle_;
  fast_l_ = 0;
  fast_t_ = 0;
  fast_ = true;
}

void JobModel::FastStep(int64_t t0, int64_t t1) {
  if (!fast_) EnterFast();
  UseStepLength(t1 - t0);
  const double dt = ewma_dt_;
  const Source& s = sources_[0];
  const double rate = s.rate;
  fast_partition_add_ += rate * dt / static_cast<double>(s.parts.size());
  fast_l_ += rate * dt;
  fast_t_ += dt;
  for (size_t vi = 0; vi < vertices_.size(); ++vi) {
    Vertex& v = vertices_[vi];
    const double in = vertex_gain_[vi] * rate;
    v.total_processed += in * dt;
    v.ewma_in += ewma_alpha_dt_ * (in - v.ewma_in);
  }
  while (next_boundary_ms_ <= t1) {
    if (next_boundary_ms_ > t0) {
      const double back = static_cast<double>(t1 - next_boundary_ms_) / 1000.0;
      ring_head_ = (ring_head_ + 1) % kSlots;
      ring_time_ms_[ring_head_] = next_boundary_ms_;
      slot_virtual_[ring_head_] = true;
      slot_l_[ring_head_] = fast_l_ - rate * back;
      slot_t_[ring_head_] = fast_t_ - back;
      ++ring_count_;
    }
    next_boundary_ms_ += internal::kWindowUpdateMs;
  }
}

void JobModel::ExitFast() {
  const size_t n = static_cast<size_t>(num_subtasks_);
  for (int slot = 0; slot < kSlots; ++slot) {
    if (!slot_virtual_[slot]) continue;
    for (const Vertex& v : vertices_) {
      for (int j = v.first; j < v.first + v.p; ++j) {
        const size_t u = static_cast<size_t>(j);
        const size_t at = static_cast<size_t>(slot) * n + u;
        ring_in_[at] = RingValue(kRecordsIn, slot, v, u);
        ring_out_[at] = RingValue(kRecordsOut, slot, v, u);
        ring_idle_[at] = RingValue(kIdleMs, slot, v, u);
        ring_bp_[at] = cum_bp_[u];
      }
    }
    slot_virtual_[slot] = false;
  }
  for (const Vertex& v : vertices_) {
    for (int j = v.first; j < v.first + v.p; ++j) {
      const size_t u = static_cast<size_t>(j);
      const double in = CumValue(kRecordsIn, v, u), out = CumValue(kRecordsOut, v, u),
                   idle = CumValue(kIdleMs, v, u);
      cum_in_[u] = in;
      cum_out_[u] = out;
      cum_idle_[u] = idle;
    }
  }
  MaterializePartitions();
  fast_ = false;
}

void JobModel::DropFast() {
  MaterializePartitions();
  std::fill(std::begin(slot_virtual_), std::end(slot_virtual_), false);
  fast_ = false;
}

void JobModel::MaterializePartitions() const {
  if (fast_partition_add_ == 0) return;
  for (const Source& s : sources_) {
    for (PartitionOffsets& po : s.parts) {
      po.end += fast_partition_add_;
      po.read += fast_partition_add_;
    }
  }
  fast_partition_add_ = 0;
}

}  // namespace trimtab::sim
