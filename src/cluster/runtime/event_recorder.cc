#include "cluster/runtime/event_recorder.h"

namespace trimtab::cluster::runtime {

kube::EventRecorderOptions LocalClusterEventOptions(const kube::KubeClient* client,
                                                    const Clock* clock) {
  return {.client = client,
          .clock = clock,
          .component = "",           // every event names its source
          .reporting_component = "",  // = source.component
          .reporting_instance = "",   // = source.host
          .naming = kube::EventNaming::kObjectTimestamp,
          .dedup_interval = std::chrono::minutes(10),
          .find_previous_in_api_server = false,
          .max_queue = 4096,
          .log_events = false,
          .warn_on_failure = false};
}

}  // namespace trimtab::cluster::runtime
