#include "cluster/apiserver/version_conversion.h"

#include "cluster/apiserver/hpa_conversion.h"

namespace trimtab::cluster {

const VersionConversion* BuiltinConversion(const ResourceType& type) {
  static const VersionConversion kHpaV1{"v2", &HpaV2ToV1, &HpaV1ToV2};
  if (type.is_crd) return nullptr;
  if (type.group == "autoscaling" && type.version == "v1" &&
      type.plural == "horizontalpodautoscalers") {
    return &kHpaV1;
  }
  return nullptr;
}

}  // namespace trimtab::cluster
