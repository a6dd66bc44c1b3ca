// ParseYaml / ParseYamlStream: any bytes give documents or an error; ToYaml of a document
// parses back to the same document.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  const std::string_view text = fuzz::AsText(data, size);
  StatusOr<std::vector<Json>> docs = ParseYamlStream(text, "input");
  StatusOr<Json> doc = ParseYaml(text, "input");
  if (!doc.ok()) return 0;
  const std::string yaml = ToYaml(*doc);
  StatusOr<Json> again = ParseYaml(yaml, "ToYaml");
  if (!again.ok()) fuzz::Fail("ToYaml output does not parse");
  if (again->dump() != doc->dump()) fuzz::Fail("ParseYaml(ToYaml(doc)) != doc");
  return 0;
}
