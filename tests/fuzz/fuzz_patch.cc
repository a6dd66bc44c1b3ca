// Patches: input is "<document>\0<patch>" (both JSON). JSON patch, merge patch and strategic
// merge patch (as for a Deployment) give a result or an error, never a crash.
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"
#include "cluster/apiserver/storage/patch.h"
#include "cluster/apiserver/surface/strategic_merge.h"
#include "common/json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  static const cluster::ResourceType* deployment = [] {
    for (const cluster::ResourceType& t : cluster::BuiltinTypes()) {
      if (t.kind == "Deployment") return new cluster::ResourceType(t);
    }
    return new cluster::ResourceType();
  }();
  const auto [doc_text, patch_text] = fuzz::SplitAtNul(fuzz::AsText(data, size));
  StatusOr<Json> doc = ParseJson(doc_text, "document");
  StatusOr<Json> patch = ParseJson(patch_text, "patch");
  if (!doc.ok() || !patch.ok()) return 0;
  if (StatusOr<Json> r = cluster::ApplyJsonPatch(*doc, *patch); r.ok()) static_cast<void>(r->dump());
  static_cast<void>(cluster::ApplyMergePatch(*doc, *patch).dump());
  if (StatusOr<Json> r = cluster::StrategicMergePatch(*deployment, *doc, *patch); r.ok()) {
    static_cast<void>(r->dump());
  }
  if (patch->is_string()) static_cast<void>(cluster::ParseJsonPointer(patch->get<std::string>()));
  return 0;
}
