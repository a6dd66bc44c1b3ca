#include "core/source_partitions.h"

#include <set>
#include <tuple>

#include "common/regex.h"

namespace trimtab::core {

int CountSourcePartitions(const std::vector<std::string>& names) {
  // RE2: metric names come from the Flink REST API, i.e. from the network (issue 27).
  static const Regex kKafka = *Regex::Compile(
      R"(^.*\.KafkaSourceReader\.(kafkaCluster\.(.+)\.)?topic\.(.+)\.partition\.(\d+)\.currentOffset$)");
  static const Regex kPulsar =
      *Regex::Compile(R"(^.*\.PulsarConsumer\.(.+)-partition-(\d+)\..*\.numMsgsReceived$)");
  std::set<std::tuple<std::string, std::string, std::string>> partitions;
  std::vector<std::string> m;
  for (const std::string& n : names) {
    if (kKafka.FullMatch(n, &m)) {
      partitions.emplace(m[1], m[2], m[3]);
    } else if (kPulsar.FullMatch(n, &m)) {
      partitions.emplace("pulsar", m[0], m[1]);
    }
  }
  return static_cast<int>(partitions.size());
}

}  // namespace trimtab::core
