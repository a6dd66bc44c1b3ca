// Job graphs with the shapes of Nexmark queries (reference notes flink-rest-and-sim.md §3.5),
// with per-subtask capacities set from the queries' relative per-record costs: one cost unit is
// q0's ~155,000 records/s per core (V1 suite, generator included), a vertex costing c units
// processes 155,000 / c records/s per subtask (one slot = one core).
//
//   q1   bid projection (stateless, one chained vertex)            1 vertex, cost 0.98
//   q2   bid filter auction % 123 = 0 (stateless, chained)          1 vertex, cost 0.88
//   q5   HOP(10 s, 2 s) count per auction -> max per window, join   source -HASH-> window
//        (window aggregation over HASH edges)                       -HASH-> max-join -> sink
//   q8   TUMBLE 10 s persons JOIN auctions (two sources)            persons, auctions -HASH-> join
//   q11  SESSION(10 s gap) count per bidder (hot bidders: skew)     source -HASH-> session -> sink
//
// Stateless queries chain into a single vertex; stateful ones add HASH edges. A source vertex
// includes the Kafka read and deserialization (1 cost unit).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "sim/job_spec.h"

namespace trimtab::sim {

struct LibraryJobOptions {
  int parallelism = 4;        // initial parallelism of every vertex
  int partitions = 16;        // partitions of every source
  int max_parallelism = 128;  // key groups
  double records_per_core = 155'000;  // one cost unit (q0's throughput per core)
};

// The names LibraryJob accepts, in order: q1, q2, q5, q8, q11.
std::vector<std::string> LibraryJobNames();

StatusOr<JobSpec> LibraryJob(std::string_view name, const LibraryJobOptions& options = {});

// Reads {library: q5, parallelism: 4, partitions: 16, maxParallelism: 128} at `path`, plus
// `stoppingOffsets: N`: every source is bounded at offset N of each partition.
StatusOr<JobSpec> ParseLibraryJob(const Json& json, const std::string& path);

}  // namespace trimtab::sim
