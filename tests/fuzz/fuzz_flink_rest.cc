// Replies of the Flink REST API as the operator reads them: checkpoint statistics, metric values
// (strings such as "NaN", numbers) and the source-partition metric names.
#include <nlohmann/json.hpp>

#include "adapters/flink/metrics_collector.h"
#include "adapters/flink/rest_client.h"
#include "common/json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  StatusOr<Json> doc = ParseJson(fuzz::AsText(data, size), "reply");
  if (!doc.ok()) return 0;
  static_cast<void>(flink::ParseCheckpointStats(*doc));
  std::vector<std::string> names;
  if (doc->is_array()) {
    for (const Json& item : *doc) {
      static_cast<void>(adapters::ParseMetricValue(item));
      if (item.is_object() && item.contains("value")) {
        static_cast<void>(adapters::ParseMetricValue(item["value"]));
      }
      if (item.is_object() && item.contains("id") && item["id"].is_string()) {
        names.push_back(item["id"].get<std::string>());
      }
      if (item.is_string()) names.push_back(item.get<std::string>());
    }
  }
  static_cast<void>(adapters::CountSourcePartitions(names));
  return 0;
}
