// The `_metadata` file of a simulated savepoint or checkpoint (docs/design/flink-pods.md
// "Files"): what a later job needs to restore from it. JSON:
//
//   {"format": "trimtab-flink-snapshot/v1", "jobId": "<32 hex>", "jobName": "wordcount",
//    "checkpointId": 12, "savepoint": true, "formatType": "CANONICAL", "timestamp": 1714557600000,
//    "stateBytes": 1.5e6,
//    "vertices": [{"id": "<32 hex>", "name": "Source: events", "parallelism": 4, "maxParallelism": 128}],
//    "sources": [{"vertexId": "<32 hex>", "topic": "default/wordcount/<32 hex>",
//                 "readOffsets": [1200.5, 1198.0]}]}
//
// Offsets are records since the topic was created (doubles: the model is a fluid model).
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::sim::flink {

struct SnapshotVertex {
  std::string id;  // JobVertexID (32 hex)
  std::string name;
  int parallelism = 1;
  int max_parallelism = 128;
};

struct SnapshotSource {
  std::string vertex_id;  // JobVertexID of the source vertex
  std::string topic;      // topic registry key
  std::vector<double> read_offsets;  // per partition
};

struct SnapshotMetadata {
  std::string job_id;
  std::string job_name;
  int64_t checkpoint_id = 0;
  bool savepoint = false;
  std::string format_type = "CANONICAL";  // savepoints: CANONICAL | NATIVE
  int64_t timestamp_ms = 0;               // completion time
  double state_bytes = 0;
  std::vector<SnapshotVertex> vertices;
  std::vector<SnapshotSource> sources;
};

inline constexpr char kMetadataFileName[] = "_metadata";

Json SnapshotMetadataToJson(const SnapshotMetadata& m);
// Errors name the field ("_metadata.sources[0].readOffsets: expected a list").
StatusOr<SnapshotMetadata> SnapshotMetadataFromJson(const Json& json, const std::string& what);

}  // namespace trimtab::sim::flink
