// ParseYaml / ParseYamlStream: any bytes give documents or an error, in bounded time; ToYaml of
// a document reads back as the same document.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  const std::string_view text = fuzz::AsText(data, size);
  StatusOr<std::vector<Json>> docs = ParseYamlStream(text, "input");
  StatusOr<Json> doc = ParseYaml(text, "input");
  if (!doc.ok()) return 0;
  StatusOr<Json> back = ParseYaml(ToYaml(*doc), "ToYaml");
  if (!back.ok()) fuzz::Fail("ToYaml wrote a document that does not read back");
  if (*back != *doc) fuzz::Fail("ToYaml wrote a document that reads back different");
  return 0;
}
