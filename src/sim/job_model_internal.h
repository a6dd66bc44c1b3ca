// Private to job_model*.cc: the per-vertex, per-source and per-edge runtime records of
// JobModel, shared by the stepping code (job_model.cc) and the metric snapshot
// (job_model_snapshot.cc).
#pragma once

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
  std::vector<int> order;               // partition indices grouped by owner subtask
  std::vector<int> owner_begin;         // owner i's partitions: order[owner_begin[i]..[i+1])
};

struct JobModel::EdgeRt {
  int from = 0;
  int to = 0;
  ShipStrategy ship = ShipStrategy::kRebalance;
  bool pointwise = false;  // forward with equal parallelism
};

}  // namespace trimtab::sim
