#include "sim/job_model.h"

#include "sim/job_model_internal.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "sim/key_groups.h"
#include "sim/rng.h"

namespace trimtab::sim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSaturated = 1.0 - 1e-9;    // processed / capacity at or above: saturated
constexpr double kReadEpsilon = 1e-6;        // records: a bounded reader this close has read all
}  // namespace

JobModel::JobModel(JobSpec spec) : spec_(std::move(spec)) {}
JobModel::~JobModel() = default;

StatusOr<std::unique_ptr<JobModel>> JobModel::Create(JobSpec spec, uint64_t seed) {
  TRIMTAB_RETURN_IF_ERROR(ValidateJobSpec(spec).WithContext("job " + spec.name));
  std::unique_ptr<JobModel> m(new JobModel(std::move(spec)));
  m->BuildGraph(seed);
  m->RebuildLayout();
  m->ResetWindows(0);
  m->next_checkpoint_ms_ = std::llround(m->spec_.checkpoint.interval_seconds * 1000.0);
  return m;
}

void JobModel::BuildGraph(uint64_t seed) {
  std::map<VertexId, int> index;
  for (size_t i = 0; i < spec_.vertices.size(); ++i) {
    const VertexSpec& vs = spec_.vertices[i];
    Vertex v;
    v.id = vs.id;
    v.spec_index = static_cast<int>(i);
    v.p = vs.parallelism;
    v.max_p = vs.max_parallelism;
    v.cap = vs.capacity_per_subtask;
    v.sel = vs.selectivity;
    const std::vector<double> weights =
        KeyGroupWeights(v.max_p, vs.key_skew, HashPair(seed, static_cast<uint64_t>(i)));
    v.key_prefix.assign(weights.size() + 1, 0.0);
    for (size_t g = 0; g < weights.size(); ++g) v.key_prefix[g + 1] = v.key_prefix[g] + weights[g];
    v.max_share_cache.assign(static_cast<size_t>(v.max_p) + 1, -1.0);
    index[v.id] = static_cast<int>(i);
    vertices_.push_back(std::move(v));
  }
  for (const EdgeSpec& es : spec_.edges) {
    EdgeRt e;
    e.from = index[es.from];
    e.to = index[es.to];
    e.ship = es.ship;
    edges_.push_back(e);
  }
  // Edges in a fixed order (by producer, then consumer, topologically) for reproducible sums.
  std::sort(edges_.begin(), edges_.end(), [](const EdgeRt& a, const EdgeRt& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  for (size_t i = 0; i < edges_.size(); ++i) {
    vertices_[static_cast<size_t>(edges_[i].from)].out_edges.push_back(static_cast<int>(i));
    Vertex& to = vertices_[static_cast<size_t>(edges_[i].to)];
    to.in_edges.push_back(static_cast<int>(i));
    if (edges_[i].ship == ShipStrategy::kHash) to.has_hash_in = true;
  }
  for (size_t i = 0; i < vertices_.size(); ++i) {
    Vertex& v = vertices_[i];
    if (!v.in_edges.empty()) continue;
    const VertexSpec& vs = spec_.vertices[i];
    Source s;
    s.vertex = static_cast<int>(i);
    s.rate_factor = vs.rate_factor;
    s.parts.resize(static_cast<size_t>(vs.partitions));
    for (PartitionOffsets& po : s.parts) po.end = vs.initial_backlog / vs.partitions;
    if (!vs.stopping_offsets.empty()) {
      s.stop = vs.stopping_offsets.size() == 1
                   ? std::vector<double>(s.parts.size(), vs.stopping_offsets.front())
                   : vs.stopping_offsets;
    }
    v.source = static_cast<int>(sources_.size());
    sources_.push_back(std::move(s));
    source_ids_.push_back(v.id);
  }
  pending_.assign(sources_.size(), 0.0);
  RecountPending();
  drained_ = TotalPendingRecords() <= 0;
  vertex_total_.assign(vertices_.size(), 0.0);
  vertex_min_ratio_.assign(vertices_.size(), kInf);
  vertex_reach_.assign(vertices_.size(), 0);
}

void JobModel::RebuildLayout() {
  int offset = 0;
  slots_ = 0;
  for (Vertex& v : vertices_) {
    v.first = offset;
    offset += v.p;
    slots_ = std::max(slots_, v.p);
  }
  num_subtasks_ = offset;
  const size_t n = static_cast<size_t>(num_subtasks_);
  flow_valid_ = false;
  for (std::vector<double>* a : {&demand_, &offer_, &actual_, &ratio_, &factor_, &avail_,
                                 &idle_rate_, &bp_rate_, &cum_in_, &cum_out_, &cum_idle_, &cum_bp_,
                                 &key_share_}) {
    a->assign(n, 0.0);
  }
  sat_.assign(n, 0);
  reach_.assign(n, 0);
  for (std::vector<double>* a : {&ring_in_, &ring_out_, &ring_idle_, &ring_bp_}) {
    a->assign(n * kSlots, 0.0);
  }
  for (size_t vi = 0; vi < vertices_.size(); ++vi) {
    Vertex& v = vertices_[vi];
    for (int i = 0; i < v.p; ++i) {
      const KeyGroupRange r = KeyGroupRangeForSubtask(v.max_p, v.p, i);
      key_share_[static_cast<size_t>(v.first + i)] =
          v.key_prefix[static_cast<size_t>(r.last + 1)] - v.key_prefix[static_cast<size_t>(r.first)];
    }
  }
  for (EdgeRt& e : edges_) {
    e.pointwise = e.ship == ShipStrategy::kForward &&
                  vertices_[static_cast<size_t>(e.from)].p == vertices_[static_cast<size_t>(e.to)].p;
  }
  for (Source& s : sources_) {
    const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
    const int num_parts = static_cast<int>(s.parts.size());
    std::vector<std::vector<int>> owned(static_cast<size_t>(v.p));
    for (int part = 0; part < num_parts; ++part) {
      owned[static_cast<size_t>(KafkaPartitionOwner(v.id, part, v.p))].push_back(part);
    }
    s.order.clear();
    s.owner_begin.assign(static_cast<size_t>(v.p) + 1, 0);
    for (int i = 0; i < v.p; ++i) {
      s.owner_begin[static_cast<size_t>(i)] = static_cast<int>(s.order.size());
      s.order.insert(s.order.end(), owned[static_cast<size_t>(i)].begin(), owned[static_cast<size_t>(i)].end());
    }
    s.owner_begin[static_cast<size_t>(v.p)] = static_cast<int>(s.order.size());
  }
  ComputeGains();
  BuildTopology();
}

void JobModel::BuildTopology() {
  if (topology_.vertices.size() == vertices_.size()) {  // a rescale: only parallelism changes
    for (size_t i = 0; i < vertices_.size(); ++i) {
      topology_.vertices[i].parallelism = vertices_[i].p;
    }
    return;
  }
  topology_.vertices.clear();
  topology_.edges.clear();
  for (const Vertex& v : vertices_) {
    core::VertexInfo info;
    info.id = v.id;
    info.name = spec_.vertices[static_cast<size_t>(v.spec_index)].name;
    info.parallelism = v.p;
    info.max_parallelism = v.max_p;
    if (v.source >= 0) info.num_partitions = static_cast<int>(sources_[static_cast<size_t>(v.source)].parts.size());
    topology_.vertices.push_back(std::move(info));
  }
  for (const EdgeRt& e : edges_) {
    topology_.edges.push_back(core::Edge{vertices_[static_cast<size_t>(e.from)].id,
                                         vertices_[static_cast<size_t>(e.to)].id,
                                         std::string(ShipStrategyName(e.ship))});
  }
}

int JobModel::vertex_index(const VertexId& id) const {
  for (size_t i = 0; i < vertices_.size(); ++i) {
    if (vertices_[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int JobModel::num_sources() const { return static_cast<int>(sources_.size()); }

int JobModel::parallelism(int vertex_index) const {
  return vertices_[static_cast<size_t>(vertex_index)].p;
}

int JobModel::task_managers() const {
  const int spt = spec_.task_manager.slots;
  return (slots_ + spt - 1) / spt;
}

void JobModel::SetSourceRate(int source_index, double records_per_second) {
  Source& s = sources_[static_cast<size_t>(source_index)];
  s.rate = std::max(0.0, records_per_second) * s.rate_factor;
}

double JobModel::source_rate(int source_index) const {
  return sources_[static_cast<size_t>(source_index)].rate;
}

// ---- Stepping ----------------------------------------------------------------------------------

void JobModel::Step(double dt_seconds) {
  if (dt_seconds != step_seconds_) {  // drivers step by the same dt: round it once
    step_seconds_ = dt_seconds;
    step_ms_ = std::llround(dt_seconds * 1000.0);
  }
  const int64_t dt_ms = step_ms_;
  if (dt_ms <= 0) return;
  const int64_t t0 = now_ms_;
  const int64_t t1 = t0 + dt_ms;
  if (CanStepFast(t0)) {
    FastStep(t0, t1);
    now_ms_ = t1;
    if (CheckpointsDue()) AdvanceCheckpoints();
    return;
  }
  if (fast_) ExitFast();
  const double dt = static_cast<double>(dt_ms) / 1000.0;
  for (size_t si = 0; si < sources_.size(); ++si) {
    Source& s = sources_[si];
    const double add = s.rate * dt / static_cast<double>(s.parts.size());
    for (PartitionOffsets& po : s.parts) po.end += add;
    pending_[si] += s.rate * dt;
  }
  const int64_t active_start = std::max(t0, down_until_ms_);
  if (active_start < t1) {
    if (awaiting_start_) {  // the restart completes in this step (possibly at its start)
      ResetWindows(active_start);
      state_since_ms_ = active_start;
      next_checkpoint_ms_ = active_start + std::llround(spec_.checkpoint.interval_seconds * 1000.0);
    }
    Process(active_start, t1);
  } else if (TotalPendingRecords() > 0) {
    drained_ = false;  // input arrived while the tasks are down
  }
  now_ms_ = t1;
  if (CheckpointsDue()) AdvanceCheckpoints();
}

void JobModel::ForwardPass(double* rate) {
  for (size_t vi = 0; vi < vertices_.size(); ++vi) {
    const Vertex& v = vertices_[vi];
    double* r = rate + v.first;
    if (v.source < 0) {
      std::fill(r, r + v.p, 0.0);
      for (int ei : v.in_edges) {
        const EdgeRt& e = edges_[static_cast<size_t>(ei)];
        const Vertex& u = vertices_[static_cast<size_t>(e.from)];
        if (e.pointwise) {
          const double* ru = rate + u.first;
          for (int i = 0; i < v.p; ++i) r[i] += u.sel * ru[i];
        } else if (e.ship == ShipStrategy::kHash) {
          const double t = u.sel * vertex_total_[static_cast<size_t>(e.from)];
          const double* share = key_share_.data() + v.first;
          for (int i = 0; i < v.p; ++i) r[i] += t * share[i];
        } else {
          const double t = u.sel * vertex_total_[static_cast<size_t>(e.from)] / v.p;
          for (int i = 0; i < v.p; ++i) r[i] += t;
        }
      }
    }
    double total = 0;
    for (int i = 0; i < v.p; ++i) total += r[i];
    vertex_total_[vi] = total;
  }
}

void JobModel::BackwardMinRatio() {
  for (size_t k = vertices_.size(); k-- > 0;) {
    const Vertex& v = vertices_[k];
    double* ratio = ratio_.data() + v.first;
    const double* d = demand_.data() + v.first;
    for (int i = 0; i < v.p; ++i) ratio[i] = d[i] > 0 ? v.cap / d[i] : kInf;
    for (int ei : v.out_edges) {
      const EdgeRt& e = edges_[static_cast<size_t>(ei)];
      if (e.pointwise) {
        const double* rw = ratio_.data() + vertices_[static_cast<size_t>(e.to)].first;
        for (int i = 0; i < v.p; ++i) ratio[i] = std::min(ratio[i], rw[i]);
      } else {
        const double m = vertex_min_ratio_[static_cast<size_t>(e.to)];
        for (int i = 0; i < v.p; ++i) ratio[i] = std::min(ratio[i], m);
      }
    }
    double m = kInf;
    for (int i = 0; i < v.p; ++i) m = std::min(m, ratio[i]);
    vertex_min_ratio_[k] = m;
  }
}

// Process() steps 2-4 and the time rates of step 5, from the source offers in offer_: sets
// factor_, demand_, ratio_, actual_, vertex_total_, sat_, reach_, idle_rate_ and bp_rate_.
void JobModel::ComputeFlow() {
  // factor_ is the throttle from downstream; offers go offer_ -> actual_ -> demand_.
  for (const Source& s : sources_) {
    const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
    for (int j = v.first; j < v.first + v.p; ++j) {
      actual_[static_cast<size_t>(j)] = offer_[static_cast<size_t>(j)];
      factor_[static_cast<size_t>(j)] = 1.0;
    }
  }
  // 2. Throttle factors: demand at the current factors, then each source scales by the smallest
  //    capacity/demand ratio it reaches. One round is exact with one source; with several
  //    sources more rounds hand capacity freed by one source's throttle to the others.
  const int rounds = sources_.size() > 1 ? 3 : 1;
  for (int round = 0; round < rounds; ++round) {
    for (const Source& s : sources_) {
      const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
      for (int j = v.first; j < v.first + v.p; ++j) {
        demand_[static_cast<size_t>(j)] = actual_[static_cast<size_t>(j)] * factor_[static_cast<size_t>(j)];
      }
    }
    ForwardPass(demand_.data());
    BackwardMinRatio();
    bool changed = false;
    for (const Source& s : sources_) {
      const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
      for (int j = v.first; j < v.first + v.p; ++j) {
        const size_t u = static_cast<size_t>(j);
        const double f = std::min(1.0, factor_[u] * ratio_[u]);
        if (std::fabs(f - factor_[u]) > 1e-12) changed = true;
        factor_[u] = f;
      }
    }
    if (!changed) break;
  }
  // 3. Actual flow.
  for (const Source& s : sources_) {
    const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
    for (int j = v.first; j < v.first + v.p; ++j) actual_[static_cast<size_t>(j)] *= factor_[static_cast<size_t>(j)];
  }
  ForwardPass(actual_.data());
  // 4. Saturation and backpressure reach (a saturated subtask downstream fills our buffers).
  for (size_t k = vertices_.size(); k-- > 0;) {
    const Vertex& v = vertices_[k];
    bool any = false;
    for (int i = 0; i < v.p; ++i) {
      const size_t j = static_cast<size_t>(v.first + i);
      sat_[j] = actual_[j] > 0 && actual_[j] >= v.cap * kSaturated;
      uint8_t reach = 0;
      for (int ei : v.out_edges) {
        const EdgeRt& e = edges_[static_cast<size_t>(ei)];
        if (e.pointwise) {
          const size_t w = static_cast<size_t>(vertices_[static_cast<size_t>(e.to)].first + i);
          reach |= sat_[w] | reach_[w];
        } else {
          reach |= vertex_reach_[static_cast<size_t>(e.to)];
        }
      }
      reach_[j] = reach;
      any = any || sat_[j] || reach;
    }
    vertex_reach_[k] = any;
  }
  // 5. Time accounting: busy in proportion to the work; the rest is backpressured when a
  //    saturated subtask lies downstream (or a source is throttled), else idle.
  for (const Vertex& v : vertices_) {
    const bool source = v.source >= 0;
    for (int j = v.first; j < v.first + v.p; ++j) {
      const size_t u = static_cast<size_t>(j);
      const double busy = sat_[u] ? 1.0 : std::min(1.0, actual_[u] / v.cap);
      const double rest = (1.0 - busy) * 1000.0;
      const bool bp = reach_[u] || (source && factor_[u] < kSaturated);
      idle_rate_[u] = bp ? 0.0 : rest;
      bp_rate_[u] = bp ? rest : 0.0;
    }
  }
}

void JobModel::Process(int64_t active_start_ms, int64_t end_ms) {
  const int64_t tau_ms = end_ms - active_start_ms;
  const double tau = static_cast<double>(tau_ms) / 1000.0;
  // 1. What each source subtask can read: min(capacity, backlog of its partitions / tau).
  bool same_offers = flow_valid_ && !flow_reuse_disabled_;
  for (const Source& s : sources_) {
    const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
    for (int i = 0; i < v.p; ++i) {
      double avail = 0;
      for (int k = s.owner_begin[static_cast<size_t>(i)]; k < s.owner_begin[static_cast<size_t>(i) + 1]; ++k) {
        avail += s.Readable(static_cast<size_t>(s.order[static_cast<size_t>(k)]));
      }
      const size_t j = static_cast<size_t>(v.first + i);
      avail_[j] = avail;
      const double offer = std::min(v.cap, avail / tau);
      same_offers =
          same_offers && std::bit_cast<uint64_t>(offer) == std::bit_cast<uint64_t>(offer_[j]);
      offer_[j] = offer;
    }
  }
  // 2.-4. The flow depends on nothing but the offers: a saturated job offers its capacity step
  // after step, and then the last step's flow is this step's too.
  if (!same_offers) ComputeFlow();
  flow_valid_ = true;
  // 5. Counters.
  UseStepLength(tau_ms);
  for (size_t vi = 0; vi < vertices_.size(); ++vi) {
    Vertex& v = vertices_[vi];
    for (int j = v.first; j < v.first + v.p; ++j) {
      const size_t u = static_cast<size_t>(j);
      const double a = actual_[u];
      cum_in_[u] += a * tau;
      cum_out_[u] += v.sel * a * tau;
      cum_idle_[u] += idle_rate_[u] * tau;
      cum_bp_[u] += bp_rate_[u] * tau;
    }
    v.total_processed += vertex_total_[vi] * tau;
    v.ewma_in += ewma_alpha_dt_ * (vertex_total_[vi] - v.ewma_in);
  }
  // 6. Sources consume from their partitions in proportion to each partition's backlog.
  drained_ = true;
  for (Source& s : sources_) {
    const Vertex& v = vertices_[static_cast<size_t>(s.vertex)];
    for (int i = 0; i < v.p; ++i) {
      const size_t j = static_cast<size_t>(v.first + i);
      if (avail_[j] <= 0) continue;
      const double fraction = std::min(1.0, actual_[j] * tau / avail_[j]);
      drained_ = drained_ && fraction >= 1.0;
      for (int k = s.owner_begin[static_cast<size_t>(i)]; k < s.owner_begin[static_cast<size_t>(i) + 1]; ++k) {
        const size_t part = static_cast<size_t>(s.order[static_cast<size_t>(k)]);
        PartitionOffsets& po = s.parts[part];
        if (s.stop.empty()) {
          po.read = fraction >= 1.0 ? po.end : std::min(po.end, po.read + (po.end - po.read) * fraction);
          continue;
        }
        // Bounded: up to the stopping offset. A read within kReadEpsilon of its target has
        // reached it, so a source finishes despite rounding in the fraction.
        const double target = std::min(po.end, s.stop[part]);
        if (po.read >= target) continue;
        const double read = fraction >= 1.0 ? target : po.read + (target - po.read) * fraction;
        po.read = target - read < kReadEpsilon ? target : read;
      }
    }
  }
  RecountPending();
  // 7. Window samples at every 5-s boundary inside the active part of the step.
  while (next_boundary_ms_ <= end_ms) {
    if (next_boundary_ms_ > active_start_ms) PushWindows(next_boundary_ms_, end_ms);
    next_boundary_ms_ += internal::kWindowUpdateMs;
  }
}

void JobModel::PushWindows(int64_t boundary_ms, int64_t end_ms) {
  const double back = static_cast<double>(end_ms - boundary_ms) / 1000.0;  // counters are linear
  ring_head_ = (ring_head_ + 1) % kSlots;
  ring_time_ms_[ring_head_] = boundary_ms;
  slot_virtual_[ring_head_] = false;
  ++ring_count_;
  const size_t base = static_cast<size_t>(ring_head_) * static_cast<size_t>(num_subtasks_);
  for (const Vertex& v : vertices_) {
    for (int j = v.first; j < v.first + v.p; ++j) {
      const size_t u = static_cast<size_t>(j);
      ring_in_[base + u] = cum_in_[u] - actual_[u] * back;
      ring_out_[base + u] = cum_out_[u] - v.sel * actual_[u] * back;
      ring_idle_[base + u] = cum_idle_[u] - idle_rate_[u] * back;
      ring_bp_[base + u] = cum_bp_[u] - bp_rate_[u] * back;
    }
  }
}

void JobModel::ResetWindows(int64_t start_ms) {
  for (std::vector<double>* a : {&cum_in_, &cum_out_, &cum_idle_, &cum_bp_, &idle_rate_, &bp_rate_,
                                 &actual_}) {
    std::fill(a->begin(), a->end(), 0.0);
  }
  flow_valid_ = false;  // actual_ and the time rates are zero now
  ring_head_ = 0;
  ring_count_ = 1;
  ring_time_ms_[0] = start_ms;
  std::fill(std::begin(slot_virtual_), std::end(slot_virtual_), false);
  const size_t n = static_cast<size_t>(num_subtasks_);
  for (std::vector<double>* a : {&ring_in_, &ring_out_, &ring_idle_, &ring_bp_}) {
    std::fill(a->begin(), a->begin() + static_cast<std::ptrdiff_t>(n), 0.0);
  }
  task_start_ms_ = start_ms;
  awaiting_start_ = false;
  next_boundary_ms_ = (start_ms / internal::kWindowUpdateMs + 1) * internal::kWindowUpdateMs;
}

// ---- Restarts ----------------------------------------------------------------------------------

void JobModel::StartRestart(double downtime_seconds, bool rewind) {
  if (fast_) ExitFast();
  AbortAllCheckpoints("the job is restarting");
  if (rewind) {
    for (Source& s : sources_) {
      for (PartitionOffsets& po : s.parts) {
        reprocessed_records_ += po.read - po.committed;
        po.read = po.committed;
      }
    }
    RecountPending();
    drained_ = false;
  }
  ++num_restarts_;
  state_since_ms_ = now_ms_;
  if (held_) {  // resources are still missing: the new downtime starts on Release()
    held_remaining_ms_ = std::max<int64_t>(0, std::llround(downtime_seconds * 1000.0));
    return;
  }
  down_until_ms_ = now_ms_ + std::llround(downtime_seconds * 1000.0);
  awaiting_start_ = true;
  if (down_until_ms_ <= now_ms_) {
    ResetWindows(now_ms_);
    next_checkpoint_ms_ = now_ms_ + std::llround(spec_.checkpoint.interval_seconds * 1000.0);
  }
}

StatusOr<double> JobModel::Rescale(const std::map<VertexId, int>& parallelism, RescaleOptions options) {
  std::vector<int> next(vertices_.size());
  for (size_t i = 0; i < vertices_.size(); ++i) next[i] = vertices_[i].p;
  for (const auto& [id, p] : parallelism) {
    const int vi = vertex_index(id);
    if (vi < 0) return InvalidArgumentError("rescale job " + spec_.name + ": unknown vertex \"" + id + "\"");
    const Vertex& v = vertices_[static_cast<size_t>(vi)];
    if (p < 1 || p > v.max_p) {
      return InvalidArgumentError("rescale job " + spec_.name + ": vertex \"" + id + "\": parallelism " +
                                  std::to_string(p) + " outside [1, " + std::to_string(v.max_p) + "]");
    }
    next[static_cast<size_t>(vi)] = p;
  }
  bool changed = false;
  for (size_t i = 0; i < vertices_.size(); ++i) changed = changed || next[i] != vertices_[i].p;
  if (!changed) return 0.0;

  if (options.while_held) {
    if (!held_) return FailedPreconditionError("rescale job " + spec_.name + ": not held");
    if (fast_) DropFast();
    for (size_t i = 0; i < vertices_.size(); ++i) vertices_[i].p = next[i];
    RebuildLayout();
    return 0.0;
  }
  if (fast_) DropFast();  // the new tasks' counters and windows start from zero
  const RestoreSource from = options.restore_from.value_or(spec_.restart.rescale_from);
  double downtime = 0;
  if (!options.free) {
    const double state = StateBytes();
    downtime = spec_.restart.base_downtime_seconds + state / spec_.restart.restore_bandwidth_bytes_per_second;
    if (from == RestoreSource::kSavepoint) {
      // Stop-with-savepoint: the savepoint is taken first and becomes the restore point.
      downtime += spec_.checkpoint.base_duration_seconds + state / spec_.checkpoint.bandwidth_bytes_per_second;
      for (Source& s : sources_) {
        for (PartitionOffsets& po : s.parts) po.committed = po.read;
      }
    }
  }
  for (size_t i = 0; i < vertices_.size(); ++i) vertices_[i].p = next[i];
  RebuildLayout();
  ++num_rescales_;
  StartRestart(downtime, /*rewind=*/!options.free);
  return downtime;
}

double JobModel::Fail(std::optional<double> backoff_seconds) {
  const double backoff = backoff_seconds.value_or(spec_.restart.failure_backoff_seconds);
  const double downtime = backoff + spec_.restart.base_downtime_seconds +
                          StateBytes() / spec_.restart.restore_bandwidth_bytes_per_second;
  StartRestart(downtime, /*rewind=*/true);
  return downtime;
}

// ---- Ground truth ------------------------------------------------------------------------------

void JobModel::RecountPending() {
  for (size_t si = 0; si < sources_.size(); ++si) {
    const Source& s = sources_[si];
    double pending = 0;
    if (s.stop.empty()) {
      for (const PartitionOffsets& po : s.parts) pending += po.end - po.read;
    } else {
      for (size_t k = 0; k < s.parts.size(); ++k) pending += s.Readable(k);
    }
    pending_[si] = pending;
  }
}

bool JobModel::bounded() const {
  for (const Source& s : sources_) {
    if (s.stop.empty()) return false;
  }
  return !sources_.empty();
}

bool JobModel::finished() const {
  if (!bounded()) return false;
  for (const Source& s : sources_) {
    for (size_t k = 0; k < s.parts.size(); ++k) {
      if (s.parts[k].read < s.stop[k]) return false;
    }
  }
  return true;
}

double JobModel::LagSeconds() const {
  double lag = 0;
  for (size_t s = 0; s < sources_.size(); ++s) {
    const double pending = PendingRecords(static_cast<int>(s));
    if (pending <= 0) continue;
    lag = std::max(lag, pending / std::max(1.0, sources_[s].rate));
  }
  return lag;
}

const std::vector<PartitionOffsets>& JobModel::partitions(int source_index) const {
  MaterializePartitions();
  return sources_[static_cast<size_t>(source_index)].parts;
}

double JobModel::total_processed(int vertex_index) const {
  return vertices_[static_cast<size_t>(vertex_index)].total_processed;
}

std::vector<VertexDemand> JobModel::TrueDemand() const {
  std::vector<VertexDemand> d;
  TrueDemand(&d);
  return d;
}

void JobModel::TrueDemand(std::vector<VertexDemand>* out) const {
  std::vector<VertexDemand>& d = *out;
  d.assign(vertices_.size(), VertexDemand{});
  for (size_t vi = 0; vi < vertices_.size(); ++vi) {
    const Vertex& v = vertices_[vi];
    if (v.source >= 0) {
      d[vi].total = sources_[static_cast<size_t>(v.source)].rate;
      continue;
    }
    for (int ei : v.in_edges) {
      const EdgeRt& e = edges_[static_cast<size_t>(ei)];
      const double in = vertices_[static_cast<size_t>(e.from)].sel * d[static_cast<size_t>(e.from)].total;
      d[vi].total += in;
      if (e.ship == ShipStrategy::kHash) d[vi].hashed += in;
    }
  }
}

double JobModel::MaxHashShare(int vertex_index, int parallelism) const {
  const Vertex& v = vertices_[static_cast<size_t>(vertex_index)];
  double& cached = v.max_share_cache[static_cast<size_t>(parallelism)];
  if (cached >= 0) return cached;
  double m = 0;
  for (int i = 0; i < parallelism; ++i) {
    const KeyGroupRange r = KeyGroupRangeForSubtask(v.max_p, parallelism, i);
    m = std::max(m, v.key_prefix[static_cast<size_t>(r.last + 1)] - v.key_prefix[static_cast<size_t>(r.first)]);
  }
  cached = m;
  return m;
}

int JobModel::MinimalParallelism(int vertex_index, const VertexDemand& demand) const {
  const Vertex& v = vertices_[static_cast<size_t>(vertex_index)];
  if (demand.total == v.minimal_demand.total && demand.hashed == v.minimal_demand.hashed) {
    return v.minimal_p;
  }
  v.minimal_p = ComputeMinimalParallelism(vertex_index, demand);
  v.minimal_demand = demand;
  return v.minimal_p;
}

int JobModel::ComputeMinimalParallelism(int vertex_index, const VertexDemand& demand) const {
  const Vertex& v = vertices_[static_cast<size_t>(vertex_index)];
  if (demand.total <= 0) return 1;
  const int lower = std::max(1, static_cast<int>(std::ceil(demand.total / v.cap - 1e-9)));
  const double limit = v.cap * (1.0 + 1e-9);
  if (v.source >= 0) {
    const int parts = static_cast<int>(sources_[static_cast<size_t>(v.source)].parts.size());
    const int useful = std::min(parts, v.max_p);
    for (int p = std::min(lower, useful); p <= useful; ++p) {
      const int most = (parts + p - 1) / p;
      if (demand.total * most / parts <= limit) return p;
    }
    return useful;
  }
  for (int p = std::min(lower, v.max_p); p <= v.max_p; ++p) {
    const double hash_part = demand.hashed > 0 ? demand.hashed * MaxHashShare(vertex_index, p) : 0.0;
    if (hash_part + (demand.total - demand.hashed) / p <= limit) return p;
  }
  return v.max_p;
}

double JobModel::StateBytes() const {
  double total = 0;
  for (const Vertex& v : vertices_) {
    const VertexSpec& vs = spec_.vertices[static_cast<size_t>(v.spec_index)];
    total += vs.state_bytes + vs.state_retention_seconds * v.ewma_in * vs.state_bytes_per_record;
  }
  return total;
}

}  // namespace trimtab::sim
