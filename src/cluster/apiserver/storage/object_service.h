// ObjectService: the Kubernetes object semantics of the local API server on top of the
// revisioned Store. HTTP handlers and the in-process controllers (garbage collector, namespace
// lifecycle) both go through it, so every write follows the same rules:
//
//   create  namespace must exist and not be terminating (404 / 403); name or generateName;
//           uid, creationTimestamp, generation=1 (kinds with generation); status reset for kinds
//           with a status subresource; schema validation (422) and pruning (CRs); kind-specific
//           defaults (namespaces, pods, CRDs -> registry; builtin_defaults.h) and Service
//           clusterIP allocation (service_ips.h)
//   update  metadata.resourceVersion in the body must match (409) or be empty (unconditional);
//           uid/creationTimestamp/deletionTimestamp are immutable; the main endpoint keeps the
//           stored status of kinds with a status subresource, /status changes only status,
//           kSubresourceBinding (pods/binding) writes spec and status together;
//           generation bumps when anything outside metadata/status changes; a no-op writes
//           nothing; clearing the last finalizer of a deleting object removes it
//   delete  preconditions (409); Foreground/Orphan add their finalizers; objects with
//           finalizers (or a bound pod's grace period) get deletionTimestamp instead
//   list    label/field selectors, limit/continue pinned to the list's revision (410 when the
//           revision was compacted), resourceVersion / resourceVersionMatch
//
// Objects are stored as JSON without metadata.resourceVersion; it is set from the store revision
// on every read, so resourceVersion is always the revision of the last write to that object.
// Decoded objects are kept in a DecodedCache (decoded_cache.h) keyed by key and revision, so a
// read of a revision already decoded (by a GET, a LIST or the watch fan-out) skips the parse.
//
// Thread-safety: all methods are safe for concurrent use (the Store serialises writes;
// read-modify-write loops retry on conflicts).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/apiserver/api_errors.h"
#include "cluster/apiserver/storage/decoded_cache.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "cluster/store/store.h"
#include "common/clock.h"
#include "common/feature_gates.h"
#include "common/json.h"
#include "common/label_selector.h"

namespace trimtab::cluster {

struct WriteOptions {
  bool dry_run = false;
  // "Strict" rejects unknown fields (400), "Ignore" drops them silently, anything else ("Warn",
  // the default) drops them and reports them in *warnings.
  std::string field_validation;
  std::vector<std::string>* warnings = nullptr;  // may be null
  // managedFields (managed_fields.h): who writes ("" = "unknown"), and the subresource its
  // entry names when it differs from the one written ("scale" for writes through /scale).
  std::string field_manager;
  std::string manager_subresource;
  // The object carries the managedFields of a server-side apply already: keep them.
  bool apply = false;
};

struct DeleteOptions {
  std::string propagation;  // "", "Background", "Foreground", "Orphan"
  std::optional<int64_t> grace_period_seconds;
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
};

struct DeleteOutcome {
  Json object;           // the last state (deleted) or the object marked for deletion
  bool deleted = false;  // removed from storage now (false: deletionTimestamp set, finalizers left)
};

struct ListOptions {
  LabelSelector labels;
  FieldSelector fields;
  int64_t limit = 0;  // 0 = all
  std::string continue_token;
  std::string resource_version;        // "", "0" or a revision
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  // Internal callers only: a cheap test on an object's stored JSON text; objects that fail it
  // are skipped without being decoded. It must hold for every object the caller wants (a
  // superset test, e.g. "the text mentions deletionTimestamp"). Unset: every object.
  std::function<bool(std::string_view stored)> stored_text_filter;
};

struct ListOutput {
  std::vector<Json> items;
  int64_t revision = 0;
  std::string continue_token;  // "" when complete
  std::optional<int64_t> remaining;
};

// Modify() subresource of the pods/binding handler: the spec (nodeName) and the status
// (PodScheduled condition) change in one write.
inline constexpr std::string_view kSubresourceBinding = "binding";

class ClusterIpAllocator;
struct VersionConversion;

class ObjectService {
 public:
  ObjectService(Store* store, ResourceRegistry* registry, Clock* clock)
      : store_(store), registry_(registry), clock_(clock) {}

  // Services get clusterIPs from `allocator` (may be null: clusterIPs are then stored as sent).
  // Call before serving requests. `allocator` must outlive the service.
  void SetClusterIpAllocator(ClusterIpAllocator* allocator) { cluster_ips_ = allocator; }
  // The feature gates validation follows (HPAScaleToZero). Call before serving requests.
  void SetFeatureGates(FeatureGates gates) { gates_ = std::move(gates); }

  Store* store() const { return store_; }
  ResourceRegistry* registry() const { return registry_; }
  Clock* clock() const { return clock_; }

  ApiResult<Json> Get(const ResourceType& type, std::string_view ns, std::string_view name) const;
  ApiResult<ListOutput> List(const ResourceType& type, std::string_view ns,
                             const ListOptions& options) const;
  ApiResult<Json> Create(const ResourceType& type, std::string_view ns, Json object,
                         const WriteOptions& options);
  // PUT: `object` replaces the stored object (subresource "" / "status" / "finalize").
  ApiResult<Json> Update(const ResourceType& type, std::string_view ns, std::string_view name,
                         Json object, std::string_view subresource, const WriteOptions& options);
  // Read-modify-write. `mutate` gets the current object (with resourceVersion) and returns the
  // desired one; a desired resourceVersion other than the current one is a 409, an empty one
  // means "unconditional". Conflicting concurrent writes re-run `mutate` on the new state.
  using Mutator = std::function<ApiResult<Json>(const Json& current)>;
  ApiResult<Json> Modify(const ResourceType& type, std::string_view ns, std::string_view name,
                         const Mutator& mutate, std::string_view subresource,
                         const WriteOptions& options);
  ApiResult<DeleteOutcome> Delete(const ResourceType& type, std::string_view ns,
                                  std::string_view name, const DeleteOptions& options);

  // Parses a stored value and sets resourceVersion (and apiVersion/kind of `type`).
  std::optional<Json> Decode(const KeyValue& kv, const ResourceType& type) const;
  // The same, shared and immutable: from the decoded-object cache when this revision was decoded
  // as this version before; null when the value is not a JSON object.
  std::shared_ptr<const Json> DecodeShared(const KeyValue& kv, const ResourceType& type) const;
  // How many decoded objects the cache keeps (the most recently read ones).
  static constexpr size_t kDecodedCacheEntries = 8192;
  const DecodedCache& decoded_cache_for_test() const { return decoded_; }
  // The type objects under a storage key are read as (the storage version of group/plural).
  std::optional<ResourceType> TypeForKey(std::string_view key) const;
  bool Matches(const ResourceType& type, const Json& object, const LabelSelector& labels,
               const FieldSelector& fields) const;

 private:
  enum class WriteResult { kDone, kRetry };
  ApiResult<Json> PrepareCreate(const ResourceType& type, std::string_view ns, Json object,
                                const WriteOptions& options);
  // Computes and writes the update of `current` to `desired`. Sets *retry on a write race.
  ApiResult<Json> WriteUpdate(const ResourceType& type, std::string_view ns,
                              std::string_view name, const Json& current, Json desired,
                              std::string_view subresource, const WriteOptions& options,
                              bool* retry);
  // `old` is the stored object of an update (null on create); `spec_rules` runs the kind's own
  // validation (HPAs: hpa_rules.h), which a status write skips.
  ApiResult<Json> Validate(const ResourceType& type, Json object, const WriteOptions& options,
                           const Json* old = nullptr, bool spec_rules = true);
  ApiResult<bool> CheckNamespace(const ResourceType& type, std::string_view ns,
                                 std::string_view name) const;
  // A served version stored in another one (version_conversion.h): the storage version's type,
  // and `object` converted to it after the served version's schema check (unknown fields per
  // options.field_validation).
  ApiResult<ResourceType> StorageTypeOf(const ResourceType& type,
                                        const VersionConversion& conversion) const;
  ApiResult<Json> ToStorageVersion(const ResourceType& type, const VersionConversion& conversion,
                                   const Json& object, const WriteOptions& options);
  // Bookkeeping once an object has left storage (frees a Service's clusterIP, drops the decoded
  // object from the cache).
  void OnRemoved(const ResourceType& type, const std::string& key, const Json& object);

  Store* store_;
  ResourceRegistry* registry_;
  Clock* clock_;
  ClusterIpAllocator* cluster_ips_ = nullptr;
  FeatureGates gates_;
  mutable DecodedCache decoded_{kDecodedCacheEntries};
};

// Serialises an object for storage (without metadata.resourceVersion).
std::string EncodeForStorage(const Json& object);

}  // namespace trimtab::cluster
