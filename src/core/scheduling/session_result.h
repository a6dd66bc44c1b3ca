// SessionResult: what one scheduling session decided, for the caller to carry out (the local
// cluster's scheduling loop binds and evicts through the API; `trimtab eval schedule` prints it).
//
//   binds        pods to bind, in the order the session committed them
//   pipelined    pods placed on resources that are still being released (no side effect;
//                Volcano forgets them at session end and places them again next session)
//   evictions    running pods to delete so that a starving job can run
//   pod_groups   every PodGroup of the session with its new status (phase, conditions, counts);
//                `changed` when it differs from the input's status (write it back then)
//   queues       every Queue with status.allocated and its PodGroups counted per phase
//   unschedulable  pending pods that were not placed, with the reason for PodScheduled=False
//   log          the decision record: what each action and plugin saw and did
//
// Thread-safety: a value type.
#pragma once

#include <string>
#include <vector>

// Json is held by value: the complete type is needed.
#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::core::scheduling {

struct PodRef {
  std::string ns, name, uid;
  friend bool operator==(const PodRef&, const PodRef&) = default;
};

struct Bind {
  PodRef pod;
  std::string node;
};

struct Eviction {
  PodRef pod;
  std::string node;
  std::string action;         // preempt | reclaim | gangpreempt | gangreclaim
  std::string preemptor_job;  // "ns/podgroup" of the job the room is made for
  std::string message;        // "preempted by ns/pg (job priority 1000 > 10)"
};

struct Condition {
  std::string type, status, reason, message;
  std::string transition_id;         // the session that stamped it (empty if unchanged)
  std::string last_transition_time;  // RFC 3339 of SessionOptions::now (when stamped)
  friend bool operator==(const Condition&, const Condition&) = default;
};

// A PodGroup event the scheduler records (Volcano's RecordPodGroupEvent), e.g.
// type Normal, reason Unschedulable, "queue resource quota insufficient: insufficient cpu".
struct PodGroupEvent {
  std::string type, reason, message;
};

struct PodGroupOutcome {
  std::string ns, name, uid;
  std::string queue;
  std::string previous_phase, phase;
  std::vector<Condition> conditions;  // the full new status.conditions
  std::vector<PodGroupEvent> events;
  int running = 0, succeeded = 0, failed = 0;
  bool changed = false;
};

struct QueueOutcome {
  std::string name;
  std::string state;  // Open | Closed | Closing | Unknown (status.state; Open when unset)
  Json allocated;     // ResourceList, quantity strings (status.allocated)
  Json deserved;      // ResourceList from proportion/capacity; {} when no plugin computed one
  int pending = 0, inqueue = 0, running = 0, unknown = 0, completed = 0;
  bool changed = false;  // allocated or a count differs from the input's status
};

struct Unschedulable {
  PodRef pod;
  std::string reason;   // Unschedulable | Schedulable (placed but gang not complete)
  std::string message;  // "0/4 nodes are unavailable: 4 Insufficient cpu."
  // status.nominatedNodeName to set: the node a pod was pipelined onto after evictions made
  // room for it (allocate tries that node first next session). Empty otherwise.
  std::string nominated_node;
};

// An object the session left out, and why (a PodGroup whose queue does not exist, pods of a
// PodGroup that does not exist, a node that is not Ready).
struct Skipped {
  std::string kind;  // Node | Pod | PodGroup
  std::string ns, name;
  std::string reason;
};

struct SessionResult {
  std::vector<Bind> binds;
  std::vector<PodRef> pipelined;
  std::vector<Eviction> evictions;
  std::vector<PodGroupOutcome> pod_groups;  // by namespace, name
  std::vector<QueueOutcome> queues;         // by name
  std::vector<Unschedulable> unschedulable;
  std::vector<Skipped> skipped;
  std::vector<std::string> log;
};

}  // namespace trimtab::core::scheduling
