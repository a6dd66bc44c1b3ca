// ConfigMapStateStore: AutoscalerStateStore in one ConfigMap per resource, for the operator
// (upstream KubernetesAutoScalerStateStore, notes §C.11). Job keys are "<namespace>/<name>"; the
// state of `name` lives in the ConfigMap `autoscaler-<name>` of `namespace`, labelled
// component=autoscaler and app=<name>, owned by the resource (SetOwner) so that it is garbage
// collected with it. One data key per state type (core::StateTypeName), encoded as:
//
//   scalingHistory, scalingTracking, collectedMetrics,
//   decisionHistory                                    JSON -> gzip -> base64 (upstream: YAML)
//   parallelismOverrides                               Flink map "vid:p,vid:p" (JSON when the
//                                                      document is not such a map)
//   every other type                                   JSON text
//
// The format is documented in docs/autoscaler-operator.md.
//
// Write-back, as upstream:
//   1. The first access to a job reads its ConfigMap into a view; Put/Remove/ClearAll change only
//      the view; Flush(job) writes it. The ConfigMap is created by the first Flush that has
//      something to write, updated only when the encoded data changed, and deleted by a Flush
//      after everything was removed.
//   2. Writes use optimistic locking on metadata.resourceVersion: when the ConfigMap changed
//      since it was read (409), or appeared or vanished meanwhile, Flush fails with kConflict,
//      drops the view and never overwrites; the next access re-reads. Any other Flush error
//      drops the view too.
//   3. Values that cannot be decoded (bad base64, gzip or JSON, unknown keys are kept as they
//      are) are discarded with a warning and vanish at the next write.
//   4. Before a write, while len(scalingHistory) + len(scalingTracking) + len(collectedMetrics)
//      + len(decisionHistory) (encoded) exceeds `max_state_chars`, the oldest metric samples
//      (elements of the collectedMetrics array) are dropped.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto store, ConfigMapStateStore::Create({.client = kube.get()}));
//   store->SetOwner("ns/orders", {.api_version = "flink.apache.org/v1beta1",
//                                 .kind = "FlinkDeployment", .name = "orders", .uid = uid});
//   TRIMTAB_RETURN_IF_ERROR(store->Put("ns/orders", core::StateType::kDelayedScaleDown, doc));
//   Status s = store->Flush("ns/orders");   // kConflict: skip this cycle, state re-read next time
//
// Thread-safety: safe for concurrent use; calls for different jobs do not wait for each other's
// API requests.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "adapters/kube/kube_client.h"
#include "core/chain/state_store.h"

namespace trimtab::adapters {

inline constexpr const char kAutoscalerConfigMapPrefix[] = "autoscaler-";
inline constexpr size_t kDefaultMaxStateChars = 1'000'000;

struct ConfigMapStateStoreOptions {
  const kube::KubeClient* client = nullptr;  // required
  // Namespace ListJobKeys searches; "" = all namespaces.
  std::string list_namespace;
  // Cap on the encoded length of scalingHistory + scalingTracking + collectedMetrics.
  size_t max_state_chars = kDefaultMaxStateChars;
};

// The ConfigMap's owner (the FlinkDeployment or FlinkSessionJob).
struct StateOwner {
  std::string api_version;  // "flink.apache.org/v1beta1"
  std::string kind;         // "FlinkDeployment" | "FlinkSessionJob"
  std::string name;
  std::string uid;
};

class ConfigMapStateStore final : public core::AutoscalerStateStore {
 public:
  static StatusOr<std::unique_ptr<ConfigMapStateStore>> Create(ConfigMapStateStoreOptions options);

  Status Put(const std::string& job_key, core::StateType type, const Json& value) override;
  Status Get(const std::string& job_key, core::StateType type, Json* out) override;
  Status Remove(const std::string& job_key, core::StateType type) override;
  Status ClearAll(const std::string& job_key) override;
  Status Flush(const std::string& job_key) override;
  // Jobs whose ConfigMap exists and holds state (label component=autoscaler), sorted.
  StatusOr<std::vector<std::string>> ListJobKeys() override;

  // Owner reference written when the ConfigMap is created (and added to one that lacks it).
  void SetOwner(const std::string& job_key, StateOwner owner);
  // Drops the cached view; the next access re-reads the ConfigMap.
  void Invalidate(const std::string& job_key);

  // "autoscaler-<name>".
  static std::string ConfigMapName(std::string_view resource_name);

 private:
  struct Entry;  // one job: its view, owner and mutex (defined in the .cc file)

  explicit ConfigMapStateStore(ConfigMapStateStoreOptions options) : options_(std::move(options)) {}
  StatusOr<std::shared_ptr<Entry>> EntryOf(const std::string& job_key);
  // Reads the ConfigMap into `entry->view` unless loaded. REQUIRES: entry->mu held.
  Status Load(const std::string& job_key, Entry* entry);
  // Encodes the view's documents, applying the size cap (rule 4). REQUIRES: entry->mu held.
  StatusOr<std::map<std::string, std::string>> EncodeView(const std::string& job_key,
                                                          Entry* entry) const;
  Json NewConfigMap(const std::string& job_key, const Entry& entry) const;

  ConfigMapStateStoreOptions options_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;  // guarded by mu_
};

// The value codecs of the data keys (rules in the header comment), exposed for tests and tools.
StatusOr<std::string> EncodeStateValue(core::StateType type, const Json& value);
// Fails (kInvalidArgument naming the key) for values that cannot be decoded.
StatusOr<Json> DecodeStateValue(core::StateType type, std::string_view text);
// gzip (RFC 1952) then base64, and back. GunzipBase64 refuses output above 64 MiB.
StatusOr<std::string> GzipBase64(std::string_view text);
StatusOr<std::string> GunzipBase64(std::string_view text);

}  // namespace trimtab::adapters
