// Test plugin "bad-output": misbehaves in the way its config asks, so the host's handling of each
// failure can be tested. Config {"mode": M}:
//   refuse             create() fails with an error message
//   garbage            execute() returns text that is not JSON
//   wrong-shape        execute() returns {"verdict": "maybe"}
//   missing-summaries  execute() returns {"verdict": "modify"}
//   null               execute() returns NULL
#include <cstdlib>
#include <cstring>
#include <string>

#include "trimtab/plugin.h"

namespace {

char* Copy(const char* s) {
  char* out = static_cast<char*>(std::malloc(std::strlen(s) + 1));
  std::strcpy(out, s);
  return out;
}

void* Create(const char* config_json, char** error) {
  std::string config(config_json);
  for (const char* mode : {"garbage", "wrong-shape", "missing-summaries", "null"}) {
    if (config.find(std::string("\"") + mode + "\"") != std::string::npos) {
      return new std::string(mode);
    }
  }
  *error = Copy("config.mode: unknown or refused mode");
  return nullptr;
}

char* Execute(void* instance, const char* request_json) {
  const std::string& mode = *static_cast<std::string*>(instance);
  if (mode == "garbage") return Copy("this is {not json");
  if (mode == "wrong-shape") return Copy(R"({"verdict": "maybe"})");
  if (mode == "missing-summaries") return Copy(R"({"verdict": "modify"})");
  return nullptr;
}

void FreeString(char* s) { std::free(s); }
void Destroy(void* instance) { delete static_cast<std::string*>(instance); }

const trimtab_executor_plugin_v1 kBadOutput = {"bad-output", &Create, &Execute, &FreeString,
                                               &Destroy};

uint32_t Init(const trimtab_plugin_host_v1* host) {
  if (host != nullptr) host->register_executor(host->context, &kBadOutput);
  return TRIMTAB_PLUGIN_ABI_VERSION;
}

}  // namespace

TRIMTAB_PLUGIN_ENTRY(Init)
