// Label and field selectors: parse any text; a parsed selector matches without crashing and
// its structured (JSON) form, when the input is one, converts too.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/label_selector.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  const std::string_view text = fuzz::AsText(data, size);
  const LabelMap labels = {{"app", "web"}, {"tier", "a"}, {"x.io/k", ""}};
  const FieldMap fields = {{"metadata.name", "n"}, {"status.phase", "Running"}};
  if (StatusOr<LabelSelector> s = LabelSelector::Parse(text); s.ok()) {
    static_cast<void>(s->Matches(labels));
  }
  if (StatusOr<FieldSelector> f = FieldSelector::Parse(text); f.ok()) {
    static_cast<void>(f->Matches(fields));
  }
  if (StatusOr<Json> j = ParseJson(text, "input"); j.ok()) {
    if (StatusOr<LabelSelector> s = LabelSelector::FromJson(*j); s.ok()) {
      static_cast<void>(s->Matches(labels));
    }
  }
  return 0;
}
