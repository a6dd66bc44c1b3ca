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

}  // namespace trimtab::bench
