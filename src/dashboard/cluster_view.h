// ClusterView: what the dashboard shows, as read from the API server at one moment: the objects
// of each kind it watches, as the API server returns them (JSON), and which kinds it could read.
// Built by ClusterWatch (cluster_watch.h) from its informer caches; read by the pure model
// builder (dashboard_model.h), which tests fill by hand.
//
// Thread-safety: a plain value.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::dashboard {

struct ClusterView {
  std::vector<Json> flink_deployments;  // flink.apache.org/v1beta1 flinkdeployments
  std::vector<Json> session_jobs;       // flink.apache.org/v1beta1 flinksessionjobs
  std::vector<Json> state_configmaps;   // v1 configmaps labelled component=autoscaler
  std::vector<Json> pod_groups;         // scheduling.volcano.sh/v1beta1 podgroups
  std::vector<Json> queues;             // scheduling.volcano.sh/v1beta1 queues
  std::vector<Json> hpas;               // autoscaling/v2 horizontalpodautoscalers
  // Kind ("podgroups", ...) -> whether its list has been read (false: not served, not allowed,
  // or not yet synced). Kinds absent from the map count as read.
  std::map<std::string, bool> readable;
};

}  // namespace trimtab::dashboard
