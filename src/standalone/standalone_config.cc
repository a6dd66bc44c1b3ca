#include "standalone/standalone_config.h"

#include <set>

#include <nlohmann/json.hpp>

#include "api/flink_spec.h"
#include "common/flink_values.h"

namespace trimtab::standalone {
namespace {

bool IsJobId(const std::string& id) {
  if (id.size() != 32) return false;
  for (char c : id) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Status CheckRestUrl(const std::string& field, const std::string& url) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return InvalidArgumentError(field + ": expected an http:// or https:// URL of a JobManager's "
                                "REST endpoint, got \"" + url + "\"");
  }
  return Status::Ok();
}

Status ReadDuration(JsonReader& r, std::string_view field, std::chrono::milliseconds* out) {
  const Json* value = r.Get(field);
  if (value == nullptr) return Status::Ok();
  if (!value->is_string()) {
    return InvalidArgumentError(r.FieldPath(field) + ": expected a duration such as \"10 s\"");
  }
  TRIMTAB_ASSIGN_OR_RETURN(*out,
                           ParseFlinkDurationMillis(r.FieldPath(field), value->get<std::string>()));
  if (out->count() <= 0) return InvalidArgumentError(r.FieldPath(field) + ": must be positive");
  return Status::Ok();
}

Status ReadConfiguration(JsonReader& r, std::map<std::string, std::string>* out) {
  const Json* value = r.Get("configuration");
  if (value == nullptr) return Status::Ok();
  TRIMTAB_ASSIGN_OR_RETURN(api::FlinkConfiguration flat,
                           api::FlattenFlinkConfiguration(*value, r.FieldPath("configuration")));
  for (auto& [k, v] : flat) (*out)[k] = std::move(v);
  return Status::Ok();
}

}  // namespace

StatusOr<StateStoreConfig> ParseStateStore(const std::string& field, const std::string& value) {
  StateStoreConfig c;
  if (value == "memory") {
    c.type = StateStoreConfig::Type::kMemory;
  } else if (value.rfind("sqlite:", 0) == 0 && value.size() > 7) {
    c.type = StateStoreConfig::Type::kSqlite;
    c.path = value.substr(7);
  } else if (value.rfind("postgresql://", 0) == 0 || value.rfind("postgres://", 0) == 0) {
    c.type = StateStoreConfig::Type::kPostgresql;
    c.connection = value;
  } else if (value.rfind("postgresql:", 0) == 0 && value.size() > 11) {
    c.type = StateStoreConfig::Type::kPostgresql;
    c.connection = value.substr(11);
  } else {
    return InvalidArgumentError(field + ": expected sqlite:<file>, postgresql:<connection string>, "
                                "postgresql://<URI> or memory, got \"" + value + "\"");
  }
  return c;
}

std::string DescribeStateStore(const StateStoreConfig& c) {
  switch (c.type) {
    case StateStoreConfig::Type::kMemory:
      return "memory (lost when the process ends)";
    case StateStoreConfig::Type::kSqlite:
      return "sqlite:" + c.path;
    case StateStoreConfig::Type::kPostgresql:
      break;
  }
  // Never print a password: keep only the keywords that locate the server.
  std::string shown;
  if (c.connection.find("://") != std::string::npos) {
    const size_t at = c.connection.find('@');
    const size_t scheme = c.connection.find("://") + 3;
    shown = c.connection.substr(0, scheme) +
            (at == std::string::npos ? c.connection.substr(scheme) : c.connection.substr(at + 1));
  } else {
    std::string token;
    for (size_t i = 0; i <= c.connection.size(); ++i) {
      if (i == c.connection.size() || c.connection[i] == ' ') {
        if (!token.empty() && token.rfind("password", 0) != 0) {
          shown += (shown.empty() ? "" : " ") + token;
        }
        token.clear();
      } else {
        token += c.connection[i];
      }
    }
  }
  return "postgresql:" + shown;
}

std::string DefaultClusterName(const std::string& rest_url) {
  std::string s = rest_url;
  if (const size_t scheme = s.find("://"); scheme != std::string::npos) s = s.substr(scheme + 3);
  if (const size_t slash = s.find('/'); slash != std::string::npos) s = s.substr(0, slash);
  return s;
}

Status AddCluster(const std::string& field, const std::string& rest_url,
                  StandaloneConfig* config) {
  TRIMTAB_RETURN_IF_ERROR(CheckRestUrl(field, rest_url));
  StandaloneCluster c;
  c.rest_url = rest_url;
  while (!c.rest_url.empty() && c.rest_url.back() == '/') c.rest_url.pop_back();
  config->clusters.push_back(std::move(c));
  return Status::Ok();
}

Status ParseStandaloneConfig(const Json& doc, const std::string& what, StandaloneConfig* config) {
  JsonReader r(doc, "");
  if (Status s = r.ExpectObject(); !s.ok()) {
    return InvalidArgumentError(what + ": expected an object (docs/autoscale.md)");
  }
  auto in_file = [&](Status s) {
    return s.ok() ? s : InvalidArgumentError(what + ": " + std::string(s.message()));
  };
  TRIMTAB_RETURN_IF_ERROR(in_file(ReadDuration(r, "controlLoopInterval",
                                               &config->control_loop_interval)));
  TRIMTAB_RETURN_IF_ERROR(in_file(ReadDuration(r, "restTimeout", &config->rest_timeout)));
  std::string store;
  TRIMTAB_RETURN_IF_ERROR(in_file(r.OptionalString("stateStore", &store)));
  if (!store.empty()) {
    StatusOr<StateStoreConfig> parsed = ParseStateStore("stateStore", store);
    if (!parsed.ok()) return in_file(parsed.status());
    config->state_store = *parsed;
  }
  TRIMTAB_RETURN_IF_ERROR(in_file(r.OptionalString("decisionLog", &config->decision_log)));
  if (const Json* chain = r.Get("executorChain"); chain != nullptr) {
    if (!chain->is_object()) {
      return InvalidArgumentError(what + ": executorChain: expected an object with plugins, "
                                  "libraries and pluginDirectory (docs/plugins.md)");
    }
    config->executor_chain = *chain;
  }
  TRIMTAB_RETURN_IF_ERROR(in_file(r.OptionalString("pluginDirectory", &config->plugin_directory)));
  TRIMTAB_RETURN_IF_ERROR(
      in_file(r.OptionalEnum("autoscalerDefaults", {"trimtab", "flink"}, &config->autoscaler_defaults)));
  TRIMTAB_RETURN_IF_ERROR(in_file(r.OptionalString("prometheusUrl", &config->prometheus_url)));
  TRIMTAB_RETURN_IF_ERROR(in_file(ReadConfiguration(r, &config->configuration)));
  if (const Json* clusters = r.Get("clusters"); clusters != nullptr) {
    if (!clusters->is_array()) {
      return InvalidArgumentError(what + ": clusters: expected a list of {restUrl, name, jobs, "
                                  "configuration}");
    }
    for (size_t i = 0; i < clusters->size(); ++i) {
      JsonReader c((*clusters)[i], "clusters[" + std::to_string(i) + "]");
      TRIMTAB_RETURN_IF_ERROR(in_file(c.ExpectObject()));
      std::string url;
      TRIMTAB_RETURN_IF_ERROR(in_file(c.RequiredString("restUrl", &url)));
      TRIMTAB_RETURN_IF_ERROR(in_file(AddCluster(c.FieldPath("restUrl"), url, config)));
      StandaloneCluster& cluster = config->clusters.back();
      TRIMTAB_RETURN_IF_ERROR(in_file(c.OptionalString("name", &cluster.name)));
      if (const Json* jobs = c.Get("jobs"); jobs != nullptr) {
        if (!jobs->is_array()) {
          return InvalidArgumentError(what + ": " + c.FieldPath("jobs") +
                                      ": expected a list of job ids");
        }
        for (size_t j = 0; j < jobs->size(); ++j) {
          const Json& id = (*jobs)[j];
          const std::string path = c.FieldPath("jobs") + "[" + std::to_string(j) + "]";
          if (!id.is_string() || !IsJobId(id.get<std::string>())) {
            return InvalidArgumentError(what + ": " + path + ": expected a job id of 32 hex digits");
          }
          cluster.job_ids.push_back(id.get<std::string>());
        }
      }
      TRIMTAB_RETURN_IF_ERROR(in_file(ReadConfiguration(c, &cluster.configuration)));
      TRIMTAB_RETURN_IF_ERROR(in_file(c.NoUnknownFields()));
    }
  }
  return in_file(r.NoUnknownFields());
}

Status ValidateStandaloneConfig(StandaloneConfig* config) {
  if (config->clusters.empty()) {
    return InvalidArgumentError("no Flink cluster to autoscale: give --rest-url or clusters in "
                                "--config (docs/autoscale.md)");
  }
  if (config->autoscaler_defaults != "trimtab" && config->autoscaler_defaults != "flink") {
    return InvalidArgumentError("autoscalerDefaults: expected trimtab or flink, got \"" +
                                config->autoscaler_defaults + "\"");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < config->clusters.size(); ++i) {
    StandaloneCluster& c = config->clusters[i];
    if (c.name.empty()) c.name = DefaultClusterName(c.rest_url);
    const std::string field = "clusters[" + std::to_string(i) + "].name";
    if (c.name.empty() || c.name.find('/') != std::string::npos) {
      return InvalidArgumentError(field + ": must be non-empty and contain no '/', got \"" +
                                  c.name + "\"");
    }
    if (!names.insert(c.name).second) {
      return InvalidArgumentError(field + ": \"" + c.name + "\" names two clusters; their jobs' "
                                  "state would mix (give each a name)");
    }
  }
  return Status::Ok();
}

}  // namespace trimtab::standalone
