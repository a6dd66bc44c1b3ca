// Random scenarios for `autoscaling_bench --random N`: jobs and workloads drawn from a seed, so
// that the policies are also measured on loads nobody tuned them for. The same (seed, index)
// always gives the same scenario (sim/rng.h, no std:: distributions).
//
// A scenario: one of the library jobs (q1, q2, q5, q8, q11) at parallelism 1-8 reading 4-32
// partitions, 12 simulated hours, and one workload shape (steps, noisy steps, a ramp, a noisy
// daily curve, a spike, on/off, piecewise-linear) around a base rate that 1-3 subtasks of the
// job's bottleneck carry, moving between 0.1x and 6x of it, and never above 80 % of what the
// partitions deliver (a load the sources cannot read measures nothing about scaling). Hot keys
// (q5, q11) can still make a load impossible to carry.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "common/json.h"

namespace trimtab::bench {

// The scenario document (docs/simulate.md) of draw `index` from `seed`, named "random-<seed>-<index>",
// without `policies`.
Json RandomScenario(uint64_t seed, int index);

// `autoscaling_bench --random-graphs N`: the job graph is drawn too, so that the policies meet
// shapes and costs nobody wrote: a chain of a source (4-64 partitions, 100k-200k records/s per
// reader) and 1-4 operators (10k-200k records/s per subtask, selectivity 1, 0.5 or 0.1, key skew
// up to Zipf 0.8, HASH / REBALANCE / FORWARD edges, max parallelism 128 to 720), each operator
// holding no state, or 1 GB, 10 GB or 50 GB of fixed state (a 50-GB restore takes 250 s and so
// does its checkpoint). Decisions every 10 s, 30 s or 1 min; the workload shapes of
// RandomScenario around 0.5-3x what one subtask of the bottleneck carries, under 30 % of what the
// partitions deliver. Named "graph-<seed>-<index>", without `policies`.
Json RandomGraphScenario(uint64_t seed, int index);

// The largest fixed state (stateBytes) of any vertex of a scenario's job spec; 0 for none.
double LargestState(const Json& scenario);

}  // namespace trimtab::bench
