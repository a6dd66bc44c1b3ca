// ResourceRegistry: every kind the local API server serves, built-in and CRD-defined, with what
// the server needs to know about it (names, scope, verbs, subresources, schema, printer columns,
// strategic-merge keys). Discovery, OpenAPI, validation, Table output and request routing are all
// derived from it, so a CRD becomes servable the moment it is registered.
//
// Ownership: the API server owns one registry. Thread-safety: all methods are safe for
// concurrent use; Find/List return copies and FindShared an immutable snapshot of the type, so
// callers never hold references into the registry's map.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

// ResourceType holds a Json by value, so this header needs the complete type.
#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::cluster {

// One additionalPrinterColumns entry (CRD) or built-in column (`kubectl get` Table output).
struct PrinterColumn {
  std::string name;         // "Job Status"
  std::string type;         // string, integer, number, boolean, date
  std::string format;       // optional: name, int32, ...
  std::string description;
  std::string json_path;    // ".status.jobStatus.state" (CRD form, no braces)
  int32_t priority = 0;     // 0 = shown by default, >0 = only with -o wide
};

// The scale subresource mapping (CRD spec.versions[].subresources.scale).
struct ScaleSubresource {
  std::string spec_replicas_path = ".spec.replicas";
  std::string status_replicas_path = ".status.replicas";
  std::string label_selector_path;  // optional, e.g. ".status.selector"
};

struct ResourceType {
  std::string group;        // "" for the core group
  std::string version;      // "v1", "v1beta1"
  std::string kind;         // "FlinkDeployment"
  std::string list_kind;    // "FlinkDeploymentList"
  std::string plural;       // "flinkdeployments"
  std::string singular;     // "flinkdeployment"
  std::vector<std::string> short_names;  // {"flinkdep"}
  std::vector<std::string> categories;   // {"all"}
  bool namespaced = true;
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                    "list",   "patch",  "update",           "watch"};
  bool status_subresource = false;
  std::optional<ScaleSubresource> scale_subresource;
  bool storage_version = true;  // the version objects are stored in (CRDs: spec.versions[].storage)
  bool served = true;
  bool is_crd = false;
  // Served by the metrics APIs (metrics_apis.h) like an APIService-backed group: listed in
  // discovery, never stored, no OpenAPI.
  bool aggregated = false;
  // The OpenAPI v3 schema of the whole object (CRD: spec.versions[].schema.openAPIV3Schema).
  // Built-in kinds carry a schema sufficient for discovery/OpenAPI and kubectl's validation.
  Json schema;
  std::vector<PrinterColumn> printer_columns;
  // Strategic merge patch: for built-in kinds, JSON path of a list field (dot-separated, list
  // items written as "[]": "spec.template.spec.containers") -> merge key ("name").
  // Lists not listed here are replaced by a patch. For CRDs (merge patch semantics) only
  // server-side apply reads it: the lists of x-kubernetes-list-type map (the
  // x-kubernetes-list-map-keys joined by ',') and set (""), and ObjectMeta's (crd.cc).
  std::map<std::string, std::string> merge_keys;

  // "apps/v1" or "v1".
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
};

// Listener called (outside the registry lock) whenever the set of types changes, so discovery
// documents and caches can be rebuilt.
using RegistryListener = std::function<void()>;

class ResourceRegistry {
 public:
  // Adds or replaces the type with the same group/version/plural.
  void Put(ResourceType type);
  // Removes every version of group/plural (a deleted CRD).
  void RemoveGroupResource(const std::string& group, const std::string& plural);

  std::optional<ResourceType> Find(const std::string& group, const std::string& version,
                                   const std::string& plural) const;
  // Like Find, without copying: the type as registered (nullptr when absent). A later Put
  // replaces the registry's pointer and leaves this one as it was. Request handling uses it: a
  // copy carries the whole OpenAPI schema.
  std::shared_ptr<const ResourceType> FindShared(const std::string& group,
                                                 const std::string& version,
                                                 const std::string& plural) const;
  // Whether Find would find the type, without copying it (request routing asks this for every
  // request; a copy carries the whole schema).
  bool Contains(const std::string& group, const std::string& version,
                const std::string& plural) const;
  std::optional<ResourceType> FindByKind(const std::string& group, const std::string& version,
                                         const std::string& kind) const;
  std::vector<ResourceType> List() const;
  // Increases on every change; discovery ETags are derived from it.
  uint64_t revision() const;

  void AddListener(RegistryListener listener);

 private:
  void Notify();

  mutable std::mutex mu_;
  // key: group/version/plural; guarded by mu_. Never modified in place (FindShared).
  std::map<std::string, std::shared_ptr<const ResourceType>> types_;
  uint64_t revision_ = 0;                      // guarded by mu_
  std::vector<RegistryListener> listeners_;    // guarded by mu_
};

}  // namespace trimtab::cluster
