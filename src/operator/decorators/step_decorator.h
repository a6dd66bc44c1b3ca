// StepDecorator: one step of the pod decoration chain (DESIGN.md §3; FLIP-250's
// KubernetesStepDecorator with pre-created resources). Before the operator creates a Flink
// cluster, every decorator of the cluster's chain sees the JobManager and TaskManager pod
// templates and may
//
//   change them      labels, annotations, spec fields (both templates are JSON pod templates:
//                    {"metadata": {...}, "spec": {...}}, never null when a decorator runs)
//   pre-create       objects created BEFORE the JobManager Deployment (a PodGroup must exist
//                    before its first pod); once the Deployment exists the operator sets their
//                    ownerReference to it (controller, blockOwnerDeletion), so Kubernetes garbage
//                    collection removes them with the cluster
//   accompany        objects created AFTER the Deployment, owned by it from the start
//   reference        objects the decorator names but does not create (a Volcano Queue, a
//                    PriorityClass): the operator looks them up and warns when one is missing
//
// Decorators are pure: the context carries everything they may look at (no clients, no clock),
// so the same call serves the first deploy and every later refresh of the pre-created objects
// (the operator re-runs the chain on each observe pass and updates what changed, e.g. a
// PodGroup's minMember once the TaskManagers exist).
//
// Decorators are built by a factory from their typed configuration (decorator_registry.h) and
// chosen per cluster by scheduler name (decorator_chain.h).
//
// Thread-safety: Decorate is const and may run concurrently for different clusters.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::op::decorators {

// An object for the operator to create. `resource` is the plural REST name ("podgroups"); with
// the object's apiVersion it gives the collection path.
struct KubeObject {
  std::string resource;
  bool namespaced = true;
  Json object;  // apiVersion, kind, metadata (name, namespace, labels), spec
};

// An object a decorator names in what it creates and that should exist.
struct ObjectReference {
  std::string api_version;  // "scheduling.volcano.sh/v1beta1"
  std::string resource;     // "queues"
  bool namespaced = false;
  std::string kind;         // "Queue", for messages
  std::string name;
  std::string field;        // where the name comes from, for messages
};

// Requests of one pod's main container (0 = none requested).
struct PodRequests {
  double cpu = 0;            // cores
  int64_t memory_bytes = 0;
};

// What a decorator may look at.
struct DecoratorContext {
  std::string cluster_id;      // = the FlinkDeployment's name
  std::string namespace_name;
  bool session_cluster = false;
  std::string scheduler_name;  // the scheduler this decorator was chosen for
  bool job_manager = false;    // the JobManager pods use `scheduler_name`
  bool task_manager = false;   // the TaskManager pods use `scheduler_name`
  int job_manager_replicas = 1;
  PodRequests job_manager_requests;
  PodRequests task_manager_requests;
  // TaskManagers the cluster is meant to run (the job's slots / slots per TaskManager).
  int desired_task_managers = 0;
  // This cluster's TaskManager pods that exist now (0 before the first deploy).
  int existing_task_managers = 0;
  // Of those, the ones the scheduler has placed (spec.nodeName set). minMember counts these: a
  // TaskManager that waits for a node must not make the running gang unready (gang_size.h).
  int placed_task_managers = 0;
};

// The chain's working set; decorators change it in place.
struct DecoratedCluster {
  Json job_manager_pod_template = Json::object();
  Json task_manager_pod_template = Json::object();
  std::vector<KubeObject> pre_creation;
  std::vector<KubeObject> accompanying;
  std::vector<ObjectReference> references;
};

// Name and priority of a decorator in a chain: lower priority runs first, ties by name.
struct DecoratorIdentity {
  std::string name;
  int priority = 0;
};

class StepDecorator {
 public:
  explicit StepDecorator(DecoratorIdentity identity) : identity_(std::move(identity)) {}
  virtual ~StepDecorator() = default;

  const std::string& name() const { return identity_.name; }
  int priority() const { return identity_.priority; }

  // Decorates `cluster` for `context`. An error stops the chain: nothing of the cluster is
  // created, and the message (naming the field) becomes the FlinkDeployment's error.
  virtual Status Decorate(const DecoratorContext& context, DecoratedCluster* cluster) const = 0;

  // The Volcano queue the cluster's pods are charged to when this decorator puts them in one
  // (the queue-capacity executor plugin reads its headroom), nullopt otherwise.
  virtual std::optional<std::string> VolcanoQueue() const { return std::nullopt; }

 private:
  DecoratorIdentity identity_;
};

// Helpers for decorators: a pod template's metadata.<field> object (created when absent) and
// spec object.
Json& TemplateMetadataMap(Json& pod_template, const char* field);
Json& TemplateSpec(Json& pod_template);

}  // namespace trimtab::op::decorators
