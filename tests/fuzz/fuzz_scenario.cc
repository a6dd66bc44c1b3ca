// trimtab simulate scenario files (YAML or JSON): parse, or fail naming the field.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "sim/scenario.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  StatusOr<Json> doc = ParseYaml(fuzz::AsText(data, size), "scenario");
  if (!doc.ok()) return 0;
  static_cast<void>(sim::ParseScenario(*doc));
  return 0;
}
