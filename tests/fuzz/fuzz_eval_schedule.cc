// trimtab eval schedule documents (YAML or JSON): decode and, when valid, run the session.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "core/scheduling/eval.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  StatusOr<Json> doc = ParseYaml(fuzz::AsText(data, size), "eval document");
  if (!doc.ok()) return 0;
  auto eval = core::scheduling::EvalDocumentFromJson(*doc);
  if (!eval.ok()) return 0;
  static_cast<void>(core::scheduling::RunEval(*eval));
  return 0;
}
