// How Flink spreads keys and Kafka partitions over subtasks, as the simulator needs it
// (reference notes flink-rest-and-sim.md §4.2, §4.3).
//
//   key group k of maxP goes to subtask floor(k * p / maxP); subtask i of p owns the contiguous
//   range [ceil(i * maxP / p), floor(((i + 1) * maxP - 1) / p)]. When p does not divide maxP the
//   subtasks own ceil or floor of maxP / p groups, which shows up as load skew.
//   Kafka split owner: start = ((topic.hashCode() * 31) & 0x7FFFFFFF) mod readers,
//   owner(partition) = (start + partition) mod readers.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace trimtab::sim {

struct KeyGroupRange {
  int first = 0;  // inclusive
  int last = -1;  // inclusive; last < first means empty
  int size() const { return last >= first ? last - first + 1 : 0; }
};

// REQUIRES: 0 < parallelism <= max_parallelism, 0 <= index < parallelism.
KeyGroupRange KeyGroupRangeForSubtask(int max_parallelism, int parallelism, int index);
int SubtaskForKeyGroup(int max_parallelism, int parallelism, int key_group);

// Flink's default max parallelism for an operator first started with `parallelism`:
// min(max(roundUpToPowerOfTwo(p + p / 2), 128), 32768).
int DefaultMaxParallelism(int parallelism);

// Java String.hashCode() of an ASCII/UTF-8 byte string (bytes taken as chars).
int32_t JavaStringHash(std::string_view s);
// The reader that owns `partition` of `topic` among `readers` (Kafka source split assignment).
int KafkaPartitionOwner(std::string_view topic, int partition, int readers);

// Share of the key space in each key group (sums to 1). skew = 0 gives uniform keys; skew > 0
// gives Zipf-like hot keys: the key group of rank r (a seeded random permutation) gets weight
// proportional to 1 / (r + 1)^skew.
std::vector<double> KeyGroupWeights(int max_parallelism, double skew, uint64_t seed);

// Fraction of the keyed input that each of `parallelism` subtasks receives.
std::vector<double> SubtaskKeyShares(const std::vector<double>& key_group_weights,
                                     int parallelism);

}  // namespace trimtab::sim
