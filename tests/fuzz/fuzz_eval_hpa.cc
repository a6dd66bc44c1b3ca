// trimtab eval hpa documents (YAML or JSON): decode and, when valid, decide.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "core/hpa/eval.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  StatusOr<Json> doc = ParseYaml(fuzz::AsText(data, size), "eval document");
  if (!doc.ok()) return 0;
  auto eval = core::hpa::EvalDocumentFromJson(*doc);
  if (!eval.ok()) return 0;
  static_cast<void>(core::hpa::RunEval(*eval));
  return 0;
}
