#include "cluster/apiserver/admission/version_conversion.h"

#include "cluster/apiserver/admission/event_conversion.h"
#include "cluster/apiserver/surface/hpa_conversion.h"

namespace trimtab::cluster {

const VersionConversion* BuiltinConversion(const ResourceType& type) {
  static const VersionConversion kHpaV1{"v2", &HpaV2ToV1, &HpaV1ToV2};
  static const VersionConversion kEventsV1{"v1", &CoreEventToEventsV1, &EventsV1ToCoreEvent, ""};
  if (type.is_crd) return nullptr;
  if (type.group == "events.k8s.io" && type.plural == "events") return &kEventsV1;
  if (type.group == "autoscaling" && type.version == "v1" &&
      type.plural == "horizontalpodautoscalers") {
    return &kHpaV1;
  }
  return nullptr;
}

}  // namespace trimtab::cluster
