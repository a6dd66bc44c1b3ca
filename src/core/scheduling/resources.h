// Resources: the dense resource vector of the scheduling session, with Volcano's arithmetic and
// comparisons (pkg/scheduler/api/resource_info.go).
//
// Units (as Volcano's api.Resource holds them):
//   dimension 0 `cpu`     milli-cores (Quantity::MilliValue)
//   dimension 1 `memory`  bytes (Quantity::Value)
//   dimension 2 `pods`    a count (every pod requests 1; a node's allocatable pods is its limit)
//   dimension 3.. scalar resources (ephemeral-storage, nvidia.com/gpu, hugepages-..., ...) in
//                 milli-units, interned per session by ResourceNameTable.
// All values are doubles, as in Volcano. "Unlimited" (a queue capability that does not name a
// dimension, or names cpu/memory <= 0) is kUnlimited = DBL_MAX, Volcano's math.MaxFloat64.
//
// Volcano keeps scalars in a map, so "absent" and "zero" differ; here every dimension is
// present. Where Volcano skips absent dimensions the dense form compares a 0, which gives the
// same answer for every non-negative operand (the only kind a session produces).
//
// Comparisons: LessEqual allows a tolerance of 0.1 per dimension (Volcano's minResource);
// the "...OnRequested" variants only look at dimensions the request asks for (> 0), ignore the
// `pods` dimension, and use strict `>` without tolerance, as LessEqualWithDimensionAndResourcesName.
//
// Thread-safety: values; the name table is read-only once the session is built.
#pragma once

#include <array>
#include <cfloat>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::core::scheduling {

inline constexpr int kMaxResourceDims = 12;
inline constexpr int kCpu = 0;
inline constexpr int kMemory = 1;
inline constexpr int kPods = 2;
inline constexpr double kMinResource = 0.1;  // Volcano's comparison tolerance
inline constexpr double kUnlimited = DBL_MAX;

// The names of the dimensions of one session: cpu, memory, pods, then scalars in the order
// they were first seen. Interning happens while the snapshot is built, never in the hot loop.
class ResourceNameTable {
 public:
  ResourceNameTable();
  // The index of `name`, adding it when new; fails when the session has more than
  // kMaxResourceDims distinct resource names.
  StatusOr<int> Intern(std::string_view name);
  // -1 when unknown.
  int Find(std::string_view name) const;
  const std::string& Name(int dim) const { return names_[dim]; }
  int size() const { return static_cast<int>(names_.size()); }

 private:
  std::vector<std::string> names_;
};

class Resources {
 public:
  Resources() { v_.fill(0); }

  double& operator[](int dim) { return v_[dim]; }
  double operator[](int dim) const { return v_[dim]; }
  double cpu() const { return v_[kCpu]; }
  double memory() const { return v_[kMemory]; }

  static Resources Unlimited();

  Resources& Add(const Resources& o);
  // Plain subtraction (Volcano's sub / SubWithoutAssert): may go negative.
  Resources& Sub(const Resources& o);
  Resources& Multi(double ratio);
  // Per dimension min(this, o) (MinDimensionResource): an unlimited dimension of o leaves this
  // unchanged, a zero clamps to zero (dense vectors make the Infinity and Zero defaults agree).
  Resources& MinDimension(const Resources& o);
  // Per dimension max(this, o) (helpers.Max).
  Resources& MaxDimension(const Resources& o);
  // max(this - o, 0) per dimension (ExceededPart).
  static Resources ExceededPart(const Resources& left, const Resources& right);

  // No cpu, memory or scalar of at least 0.1 (`pods` ignored): a BestEffort request.
  bool IsEmpty() const;
  // Every dimension <= o within 0.1 (LessEqual(o, Zero)).
  bool LessEqual(const Resources& o) const;
  // Like LessEqual; appends the names of the dimensions that do not fit (LessEqualWithResourcesName).
  bool LessEqualNamed(const Resources& o, const ResourceNameTable& names,
                      std::vector<std::string>* failed) const;
  // this <= o (strict, no tolerance) on the dimensions `req` asks for, `pods` ignored
  // (LessEqualWithDimensionAndResourcesName). `failed` (optional) gets the names that exceed.
  bool LessEqualOnRequested(const Resources& o, const Resources& req,
                            const ResourceNameTable& names,
                            std::vector<std::string>* failed = nullptr) const;
  // Per dimension equality within 0.1 (Equal).
  bool Equal(const Resources& o) const;
  // Exact equality (DeepEqual).
  bool operator==(const Resources& o) const { return v_ == o.v_; }

  // "cpu 1000.00, memory 1073741824.00, pods 1.00" (Volcano's String(), named dims only).
  std::string ToString(const ResourceNameTable& names) const;

 private:
  std::array<double, kMaxResourceDims> v_;
};

// Reads a Kubernetes ResourceList ({"cpu": "500m", "memory": "1Gi"}) at `path` into `out`,
// interning new names. Count-quota names ("count/...", "requests.*", "limits.*") are skipped.
Status ResourcesFromJson(const Json& list, std::string_view path, ResourceNameTable* names,
                         Resources* out);
// The ResourceList form, as Volcano's ConvertRes2ResList writes queue status: cpu a milli
// quantity ("1500m", "2"), memory a BinarySI quantity of the bytes ("1Gi"), pods a count,
// other scalars milli quantities; cpu and memory always, the others when non-zero.
Json ResourcesToJson(const Resources& r, const ResourceNameTable& names);

}  // namespace trimtab::core::scheduling
