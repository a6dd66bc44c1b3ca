// The description of a simulated streaming job: its vertices (per-subtask capacity,
// selectivity, key skew, source partitions, state), its edges (ship strategy), checkpointing,
// restart costs and TaskManager shape. JobModel::Create turns a JobSpec into a running model.
//
// File format (YAML or JSON; every field of docs/simulate.md "job"):
//
//   name: q5
//   vertices:
//     - {id: source, partitions: 16, parallelism: 4, capacityPerSubtask: 150000}
//     - {id: window, parallelism: 8, capacityPerSubtask: 25000, selectivity: 0.05,
//        keySkew: 0.3, stateRetention: 10s, stateBytesPerRecord: 100}
//   edges:
//     - {from: source, to: window, ship: hash}
//
// A source with `stoppingOffsets` is bounded (Kafka's stopping offsets): the job finishes once
// every source has read up to them (JobModel::finished()).
//
// Thread-safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/scaling_types.h"

namespace trimtab::sim {

using core::VertexId;

// How records of an edge are distributed over the consumer's subtasks.
enum class ShipStrategy {
  kForward,    // subtask i feeds subtask i; behaves as kRebalance when parallelisms differ
  kRebalance,  // round-robin: every consumer subtask gets 1/p of the producer output
  kHash,       // by key group: consumer subtask i gets the key share of its key-group range
};

// Flink's plan name: "FORWARD", "REBALANCE", "HASH".
std::string_view ShipStrategyName(ShipStrategy s);

struct VertexSpec {
  VertexId id;
  std::string name;                     // defaults to id
  int parallelism = 1;
  int max_parallelism = 0;              // key groups; 0 = Flink's default for `parallelism`
  double capacity_per_subtask = 0;      // records/s one subtask processes at 100 % busy
  double selectivity = 1.0;             // output records per input record
  double key_skew = 0;                  // Zipf exponent of key popularity over key groups
  // Sources (vertices without inputs) only.
  int partitions = 0;                   // Kafka partitions / splits; required for sources
  double rate_factor = 1.0;             // multiplier on the workload rate this source sees
  double initial_backlog = 0;           // records pending at t = 0, spread evenly over partitions
  // A bounded source (a Kafka source with stopping offsets, `setBounded(...)`): empty for an
  // unbounded source; one value for every partition; else one per partition. Offsets count
  // records from the start of the partition. The source finishes once it has read every
  // partition up to its stopping offset (waiting for records that are not produced yet).
  std::vector<double> stopping_offsets;
  // State (drives checkpoint duration, restore time and heap use).
  double state_bytes = 0;               // fixed state
  double state_retention_seconds = 0;   // windowed state holds this many seconds of input ...
  double state_bytes_per_record = 0;    // ... at this many bytes per record
};

struct EdgeSpec {
  VertexId from;
  VertexId to;
  ShipStrategy ship = ShipStrategy::kRebalance;
};

struct CheckpointSpec {
  double interval_seconds = 60;               // time between checkpoint triggers
  double base_duration_seconds = 0.5;         // duration with no state
  double bandwidth_bytes_per_second = 200e6;  // upload speed of state
};

// Where a rescale restores from.
enum class RestoreSource {
  kCheckpoint,  // latest completed checkpoint: sources rewind, the gap is read again
  kSavepoint,   // stop-with-savepoint first: no rewind, but the savepoint adds downtime
};

struct RestartSpec {
  double base_downtime_seconds = 10;                  // cancel + deploy + schedule
  double restore_bandwidth_bytes_per_second = 200e6;  // state download / restore speed
  RestoreSource rescale_from = RestoreSource::kCheckpoint;
  double failure_backoff_seconds = 1;                 // restart-strategy delay after a failure
};

struct TaskManagerSpec {
  int slots = 1;                       // task slots per TaskManager
  double cpu_cores = 1;                // cores per TaskManager
  double heap_bytes = 2e9;             // JVM heap max per TaskManager
  double base_heap_bytes = 300e6;      // heap used by an idle TaskManager
  double heap_per_busy_slot_bytes = 400e6;  // extra heap of a fully busy slot
  bool state_on_heap = true;           // HashMap state backend (true) or RocksDB (false)
};

struct JobSpec {
  std::string name = "job";
  std::vector<VertexSpec> vertices;  // after ValidateJobSpec: topological order
  std::vector<EdgeSpec> edges;
  CheckpointSpec checkpoint;
  RestartSpec restart;
  TaskManagerSpec task_manager;
};

// Parses a job object; errors name the field path under `path`.
StatusOr<JobSpec> ParseJobSpec(const Json& json, const std::string& path);

// Checks ranges and the graph (unique ids, known edge ends, no cycles, sources have partitions,
// parallelism <= max parallelism), fills defaults (name, max parallelism) and orders vertices
// topologically (stable: ties keep file order).
Status ValidateJobSpec(JobSpec& spec);

}  // namespace trimtab::sim
