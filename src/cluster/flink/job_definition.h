// JobDefinition: the simulated program a Flink job runs (a sim::JobSpec) and the workload
// driving its sources, and how both are read from text (docs/design/flink-pods.md "The
// simulated job"; docs/flink-sim.md "Choosing the job and the workload").
//
//   job text:      a job spec (YAML/JSON as docs/simulate.md "job"), a library object
//                  `{library: q5, parallelism: 4, partitions: 16}`, or a bare library name `q5`
//   workload text: one rate profile for every source (`{type: constant, rate: 5000}`, `5000`),
//                  or a map source vertex id -> profile with an optional `default`
//
// Vertices written without `parallelism` / `maxParallelism` take the cluster's
// parallelism.default / pipeline.max-parallelism, as operators without setParallelism() do.
//
// Thread-safety: pure functions; definitions are values (profiles are immutable and shared).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "sim/job_spec.h"
#include "sim/rate_profile.h"

namespace trimtab::sim::flink {

// Source vertex id (in the job spec) -> records/s offered to it (before its rateFactor).
using Workload = std::map<VertexId, std::shared_ptr<const RateProfile>>;

// What Flink knows about the program when it builds the job graph.
struct ProgramInfo {
  std::string jar;          // jar path or name ("local:///opt/flink/examples/streaming/StateMachineExample.jar")
  std::string entry_class;  // may be empty
  std::vector<std::string> args;
  std::string job_name;     // pipeline.name, else derived from the jar
  int parallelism = 0;      // parallelism.default (0: unset, the cluster default)
  int max_parallelism = -1; // pipeline.max-parallelism (-1: Flink's rule)
};

struct JobDefinition {
  JobSpec spec;  // validated, topological order
  Workload workload;
  std::string job_origin;       // where the graph came from ("annotation trimtab.dev/job on ...")
  std::string workload_origin;  // where the workload came from
};

// A piece of text and where it came from (for error messages and docs).
struct SourcedText {
  std::string text;
  std::string origin;  // "annotation trimtab.dev/job on flinkdeployments default/wc"
};

// Parses a job text; errors are prefixed with `origin`.
StatusOr<JobSpec> ParseJobText(const SourcedText& job, const ProgramInfo& program);
// Parses a workload text against `spec`'s sources.
StatusOr<Workload> ParseWorkloadText(const SourcedText& workload, const JobSpec& spec);
// Same, from an already parsed document (e.g. an entry of a --workload file).
StatusOr<Workload> ParseWorkloadJson(const Json& workload, const std::string& path, const JobSpec& spec);
StatusOr<JobSpec> ParseJobJson(const Json& job, const std::string& path, const ProgramInfo& program);

// The job graph chosen by jar name: StateMachineExample -> a keyed state machine,
// TopSpeedWindowing -> a windowed aggregation, anything else -> source -> map -> sink.
JobSpec DefaultJobForProgram(const ProgramInfo& program);
// A constant input of half the job's initial capacity on every source.
Workload DefaultWorkload(const JobSpec& spec);

// Builds the definition: `job` / `workload` when given, else the defaults above.
StatusOr<JobDefinition> BuildJobDefinition(const std::optional<SourcedText>& job,
                                           const std::optional<SourcedText>& workload,
                                           const ProgramInfo& program);

// The simple class name of the entry class, else the jar's file name without ".jar".
std::string ProgramDisplayName(const ProgramInfo& program);

}  // namespace trimtab::sim::flink
