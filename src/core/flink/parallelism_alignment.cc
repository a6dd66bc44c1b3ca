#include "core/flink/parallelism_alignment.h"

#include <algorithm>

namespace trimtab::core::flink {

AlignmentResult AlignParallelism(const AlignmentInput& in, AlignmentMode mode) {
  AlignmentResult out;
  out.parallelism = in.proposed;
  if (in.num_partitions <= 0 && !in.has_hash_input) return out;
  if (mode == AlignmentMode::kOff) return out;
  out.applied = true;
  const int n = in.num_partitions > 0 ? in.num_partitions : in.max_parallelism;
  const int upper_bound = std::min(in.max_parallelism, in.upper);
  const int cap = std::min(n, upper_bound);
  const bool scale_up = in.proposed > in.current;
  const int scan_to = scale_up ? cap : std::min(in.current, cap);
  const bool load_reducing = mode == AlignmentMode::kBalanced ||
                             mode == AlignmentMode::kLegacyMaximizeUtilisation;
  for (int p = in.proposed; p <= scan_to; ++p) {
    if (n % p == 0 || (load_reducing && n / p < n / in.proposed)) {
      out.parallelism = p;
      return out;
    }
  }
  if (mode == AlignmentMode::kBalanced || mode == AlignmentMode::kEvenlySpread) return out;

  // Legacy relaxed downward search: the smallest p whose per-subtask load does not exceed the
  // proposal's.
  int p = in.proposed;
  for (; p > 0; --p) {
    if (n / p > n / in.proposed) {
      if (n % p != 0) ++p;
      break;
    }
  }
  p = std::max(p, in.lower);
  auto message = [&](int actual) {
    return "expected parallelism: " + std::to_string(in.proposed) + ", actual parallelism " +
           std::to_string(actual) + ". Scaling limited due to numKeyGroupsOrPartitions : " +
           std::to_string(n) + "，upperBoundForAlignment(maxParallelism or parallelismUpperLimit): " +
           std::to_string(upper_bound) + ", parallelismLowerLimit: " + std::to_string(in.lower) +
           ".";
  };
  if ((scale_up && p <= in.current) || (!scale_up && p >= in.current)) {
    out.parallelism = in.current;
    out.limited = message(in.current);
    return out;
  }
  if (p != in.proposed) out.limited = message(p);
  out.parallelism = p;
  return out;
}

}  // namespace trimtab::core::flink
