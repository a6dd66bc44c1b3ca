// trimtab eval flink documents (YAML or JSON): the whole evaluation, or an error.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "core/flink/eval_flink.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  StatusOr<Json> doc = ParseYaml(fuzz::AsText(data, size), "eval document");
  if (!doc.ok()) return 0;
  if (auto out = core::flink::EvaluateFlinkDocument(*doc); out.ok()) static_cast<void>(out->dump());
  return 0;
}
