// ParseJson: any bytes give a document or an error; a document dumps and parses back equal.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  std::vector<std::string> duplicates;
  StatusOr<Json> doc = ParseJson(fuzz::AsText(data, size), "input", {.duplicate_fields = &duplicates});
  if (!doc.ok()) return 0;
  const std::string text = doc->dump();
  StatusOr<Json> again = ParseJson(text, "dump");
  if (!again.ok() || *again != *doc) fuzz::Fail("ParseJson(dump(doc)) != doc");
  Json copy = *doc;  // recursive copy at up to kMaxJsonDepth
  if (copy != *doc) fuzz::Fail("copy != doc");
  return 0;
}
