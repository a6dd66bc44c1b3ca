// example-cap: a complete shared-library executor plugin (see example_cap_plugin.h and
// docs/plugins.md). Nothing but include/trimtab/plugin.h and a JSON library is used; no exception
// leaves a function called by the host.
#include "plugins/example/example_cap_plugin.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

struct Instance {
  int max_parallelism = 1;
};

char* CopyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

void* Create(const char* config_json, char** error) {
  try {
    json config = json::parse(config_json);
    if (!config.is_object()) throw std::runtime_error("config: must be an object");
    for (const auto& [key, value] : config.items()) {
      if (key != "maxParallelism") throw std::runtime_error("config." + key + ": unknown field");
    }
    if (!config.contains("maxParallelism") || !config["maxParallelism"].is_number_integer()) {
      throw std::runtime_error("config.maxParallelism: required integer");
    }
    int max = config["maxParallelism"].get<int>();
    if (max < 1) throw std::runtime_error("config.maxParallelism: must be >= 1");
    return new Instance{max};
  } catch (const std::exception& e) {
    *error = CopyString(e.what());
    return nullptr;
  }
}

char* Execute(void* instance, const char* request_json) {
  try {
    const Instance& self = *static_cast<Instance*>(instance);
    json request = json::parse(request_json);
    json summaries = json::object();
    bool changed = false;
    for (auto& [vertex, summary] : request.at("summaries").items()) {
      int current = summary.at("currentParallelism").get<int>();
      int wanted = summary.at("newParallelism").get<int>();
      if (wanted > current && wanted > self.max_parallelism) {
        summary["newParallelism"] = std::max(current, self.max_parallelism);
        changed = true;
      }
      if (summary["newParallelism"].get<int>() != current) summaries[vertex] = summary;
    }
    const json& old_state = request.at("pluginState");
    int calls = old_state.is_object() ? old_state.value("calls", 0) : 0;
    json response = {{"pluginState", {{"calls", calls + 1}}}};
    if (summaries.empty()) {
      response["verdict"] = "veto";
      response["reason"] = "nothing left after capping at " + std::to_string(self.max_parallelism);
    } else if (changed) {
      response["verdict"] = "modify";
      response["summaries"] = summaries;
      response["reason"] = "capped at " + std::to_string(self.max_parallelism);
    } else {
      response["verdict"] = "approve";
      response["reason"] = "within " + std::to_string(self.max_parallelism);
    }
    return CopyString(response.dump());
  } catch (const std::exception&) {
    return nullptr;  // the host turns this into a veto naming the library
  }
}

void FreeString(char* s) { std::free(s); }

void Destroy(void* instance) { delete static_cast<Instance*>(instance); }

const trimtab_executor_plugin_v1 kExampleCap = {
    .name = "example-cap",
    .create = &Create,
    .execute = &Execute,
    .free_string = &FreeString,
    .destroy = &Destroy,
};

}  // namespace

extern "C" uint32_t trimtab_example_plugin_init(const trimtab_plugin_host_v1* host) {
  if (host != nullptr && host->abi_version == TRIMTAB_PLUGIN_ABI_VERSION) {
    host->register_executor(host->context, &kExampleCap);
  }
  return TRIMTAB_PLUGIN_ABI_VERSION;
}

TRIMTAB_PLUGIN_ENTRY(trimtab_example_plugin_init)
