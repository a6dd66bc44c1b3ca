// status.reconciliationStatus.lastReconciledSpec / lastStableSpec: the spec the operator last
// acted on, as a JSON string (notes flink-autoscaler-and-operator.md §A.7):
//
//   {"spec":{...full spec...},"resource_metadata":{"apiVersion":"flink.apache.org/v1beta1",
//    "firstDeployment":true}}
//
// The legacy format (no "resource_metadata") is the bare spec object, possibly with a stray
// top-level "apiVersion" that is dropped. Stability is string equality of the two fields, so the
// serialisation is deterministic (spec keys sorted, metadata written last as upstream does).
//
// Usage:
//   std::string text = SerializeSpecWithMeta(EncodeFlinkDeploymentSpec(spec), {.first_deployment = true});
//   TRIMTAB_ASSIGN_OR_RETURN(SpecWithMeta parsed, ParseSpecWithMeta(text));
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/flink_enums.h"
#include "api/flink_spec.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::api {

struct ReconciliationMeta {
  std::string api_version = std::string(kFlinkApiVersion);
  // True while nothing was successfully deployed before this spec (see §A.7).
  bool first_deployment = false;
  friend bool operator==(const ReconciliationMeta&, const ReconciliationMeta&) = default;
};

struct SpecWithMeta {
  Json spec;                               // the spec object
  std::optional<ReconciliationMeta> meta;  // absent in the legacy format
};

std::string SerializeSpecWithMeta(const Json& spec, const ReconciliationMeta& meta);
StatusOr<SpecWithMeta> ParseSpecWithMeta(std::string_view text);

// Typed views of a recorded spec ("" text -> kNotFound).
StatusOr<FlinkDeploymentSpec> ParseRecordedDeploymentSpec(std::string_view text);
StatusOr<FlinkSessionJobSpec> ParseRecordedSessionJobSpec(std::string_view text);

// spec.job.state of a recorded spec (nullopt when there is no job or the text does not parse).
std::optional<JobState> RecordedJobState(std::string_view text);

}  // namespace trimtab::api
