// The FlinkDeployment and FlinkSessionJob resources (flink.apache.org/v1beta1): metadata as the
// API server returned it, typed spec and status, and codecs for whole objects.
//
// Decoding never fails on unknown fields (upstream ignores them); wrong types fail with the field
// path ("spec.job.parallelism: expected an integer, got \"two\"").
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(FlinkDeployment fd, DecodeFlinkDeployment(object_json));
//   if (fd.IsSessionCluster()) ...
//   Json object = EncodeFlinkDeployment(fd);   // apiVersion, kind, metadata, spec, status
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/flink_spec.h"
#include "api/flink_status.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::api {

inline constexpr std::string_view kFlinkDeploymentKind = "FlinkDeployment";
inline constexpr std::string_view kFlinkSessionJobKind = "FlinkSessionJob";

// Read access to metadata fields ("" / 0 / empty when absent).
class ObjectMeta {
 public:
  ObjectMeta() : raw_(Json::object()) {}
  explicit ObjectMeta(Json raw) : raw_(std::move(raw)) {}

  const Json& raw() const { return raw_; }
  Json& mutable_raw() { return raw_; }

  std::string name() const { return Text("name"); }
  std::string namespace_name() const { return Text("namespace"); }
  std::string uid() const { return Text("uid"); }
  std::string resource_version() const { return Text("resourceVersion"); }
  std::string creation_timestamp() const { return Text("creationTimestamp"); }
  std::string deletion_timestamp() const { return Text("deletionTimestamp"); }
  int64_t generation() const;
  std::map<std::string, std::string> labels() const { return StringMap("labels"); }
  std::map<std::string, std::string> annotations() const { return StringMap("annotations"); }
  bool HasFinalizer(std::string_view finalizer) const;

 private:
  std::string Text(std::string_view field) const;
  std::map<std::string, std::string> StringMap(std::string_view field) const;
  Json raw_;
};

struct FlinkDeployment {
  ObjectMeta metadata;
  FlinkDeploymentSpec spec;
  FlinkDeploymentStatus status;

  bool IsSessionCluster() const { return !spec.job.has_value(); }
};

struct FlinkSessionJob {
  ObjectMeta metadata;
  FlinkSessionJobSpec spec;
  FlinkSessionJobStatus status;
};

StatusOr<FlinkDeployment> DecodeFlinkDeployment(const Json& object);
StatusOr<FlinkSessionJob> DecodeFlinkSessionJob(const Json& object);
Json EncodeFlinkDeployment(const FlinkDeployment& resource);
Json EncodeFlinkSessionJob(const FlinkSessionJob& resource);

}  // namespace trimtab::api
