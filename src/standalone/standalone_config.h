// The configuration of `trimtab autoscale`, the standalone autoscaler (docs/autoscale.md): which
// Flink clusters and jobs to autoscale, where the state lives, the executor chain, and the Flink
// configuration every job starts from. Read from a YAML or JSON file; the command's flags set the
// same fields. Every error names the field.
//
//   controlLoopInterval: 10 s          # upstream autoscaler.standalone.control-loop.interval
//   restTimeout: 10 s                  # each Flink REST call
//   stateStore: sqlite:autoscaler.db   # | postgresql:<libpq connection string or URI> | memory
//   decisionLog: decisions.jsonl       # one JSON line per job and pass ("-": stdout)
//   executorChain: {plugins: [...]}    # docs/plugins.md
//   pluginDirectory: /opt/trimtab/plugins
//   autoscalerDefaults: trimtab        # | flink: the defaults of job.autoscaler.* options
//   prometheusUrl: http://prometheus:9090
//   configuration:                     # the lowest layer of every job's configuration
//     job.autoscaler.enabled: "true"
//   clusters:
//     - restUrl: http://session-jm:8081
//       name: sessions                 # state key prefix; default host:port of restUrl
//       jobs: []                       # none: every job the cluster runs (session discovery)
//       configuration: {...}           # over the top-level configuration
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

// StandaloneConfig holds a Json by value, which needs the complete type.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::standalone {

struct StateStoreConfig {
  enum class Type { kSqlite, kPostgresql, kMemory };
  Type type = Type::kSqlite;
  std::string path = "trimtab-autoscaler.db";  // kSqlite
  std::string connection;                      // kPostgresql: libpq connection string or URI
};

// "sqlite:<path>", "postgresql:<connection string>", "postgresql://..." (a URI as it is) or
// "memory". `field` names the flag or field in errors.
StatusOr<StateStoreConfig> ParseStateStore(const std::string& field, const std::string& value);
// The inverse, for logs: a PostgreSQL connection is shown without its password.
std::string DescribeStateStore(const StateStoreConfig& config);

struct StandaloneCluster {
  std::string rest_url;  // http(s)://host:port of the JobManager's REST endpoint
  // Prefix of the cluster's job keys in the state store ("<name>/<job id>"), unique; no '/'.
  std::string name;
  std::vector<std::string> job_ids;  // 32 hex each; empty = every job the cluster lists
  std::map<std::string, std::string> configuration;
};

struct StandaloneConfig {
  std::chrono::milliseconds control_loop_interval{10'000};
  std::chrono::milliseconds rest_timeout{10'000};
  StateStoreConfig state_store;
  std::string decision_log;  // "" = none, "-" = stdout, else a file appended to
  Json executor_chain;       // null = no plugins
  std::string plugin_directory;
  std::string autoscaler_defaults = "trimtab";
  std::string prometheus_url;
  std::map<std::string, std::string> configuration;
  std::vector<StandaloneCluster> clusters;
};

// Reads the document (the whole file) into `*config`, over the values already there, so flags
// may fill fields the file leaves out. `what` names the file.
Status ParseStandaloneConfig(const Json& doc, const std::string& what, StandaloneConfig* config);

// Adds a cluster for `rest_url` with the default name (host:port) and no job list.
Status AddCluster(const std::string& field, const std::string& rest_url, StandaloneConfig* config);

// Checks what a run needs: at least one cluster, unique names, defaults value. Fills default
// names.
Status ValidateStandaloneConfig(StandaloneConfig* config);

// "host:port" of a REST URL ("http://jm.prod:8081/" -> "jm.prod:8081").
std::string DefaultClusterName(const std::string& rest_url);

}  // namespace trimtab::standalone
