#include "sim/key_groups.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/rng.h"

namespace trimtab::sim {

KeyGroupRange KeyGroupRangeForSubtask(int max_parallelism, int parallelism, int index) {
  const int64_t max_p = max_parallelism;
  const int64_t p = parallelism;
  KeyGroupRange r;
  r.first = static_cast<int>((index * max_p + p - 1) / p);
  r.last = static_cast<int>(((index + 1) * max_p - 1) / p);
  return r;
}

int SubtaskForKeyGroup(int max_parallelism, int parallelism, int key_group) {
  return static_cast<int>(static_cast<int64_t>(key_group) * parallelism / max_parallelism);
}

int DefaultMaxParallelism(int parallelism) {
  const int64_t want = static_cast<int64_t>(parallelism) + parallelism / 2;
  int64_t pow2 = 1;
  while (pow2 < want) pow2 <<= 1;
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(pow2, 128), 32768));
}

int32_t JavaStringHash(std::string_view s) {
  uint32_t h = 0;
  for (char c : s) h = 31 * h + static_cast<uint32_t>(static_cast<unsigned char>(c));
  return static_cast<int32_t>(h);
}

int KafkaPartitionOwner(std::string_view topic, int partition, int readers) {
  const uint32_t mixed = static_cast<uint32_t>(JavaStringHash(topic)) * 31u;
  const int start = static_cast<int>((mixed & 0x7FFFFFFFu) % static_cast<uint32_t>(readers));
  return (start + partition) % readers;
}

std::vector<double> KeyGroupWeights(int max_parallelism, double skew, uint64_t seed) {
  std::vector<double> weights(static_cast<size_t>(max_parallelism),
                              1.0 / static_cast<double>(max_parallelism));
  if (skew <= 0) return weights;
  // Ranks: a Fisher-Yates permutation from the seed, so hot groups land anywhere.
  std::vector<int> rank(weights.size());
  std::iota(rank.begin(), rank.end(), 0);
  Xoshiro256 rng(seed);
  for (size_t i = rank.size(); i > 1; --i) {
    std::swap(rank[i - 1], rank[rng.Below(i)]);
  }
  double total = 0;
  for (size_t g = 0; g < weights.size(); ++g) {
    weights[g] = 1.0 / std::pow(static_cast<double>(rank[g] + 1), skew);
    total += weights[g];
  }
  for (double& w : weights) w /= total;
  return weights;
}

std::vector<double> SubtaskKeyShares(const std::vector<double>& key_group_weights,
                                     int parallelism) {
  const int max_p = static_cast<int>(key_group_weights.size());
  std::vector<double> shares(static_cast<size_t>(parallelism), 0.0);
  for (int i = 0; i < parallelism; ++i) {
    const KeyGroupRange r = KeyGroupRangeForSubtask(max_p, parallelism, i);
    for (int g = r.first; g <= r.last; ++g) shares[static_cast<size_t>(i)] += key_group_weights[static_cast<size_t>(g)];
  }
  return shares;
}

}  // namespace trimtab::sim
