#include "core/flink/delayed_scale_down.h"

#include <algorithm>

namespace trimtab::core::flink {

VertexDelayedScaleDown& TriggerScaleDown(std::map<VertexId, VertexDelayedScaleDown>* delayed,
                                         const VertexId& vertex, TimePoint now, int parallelism,
                                         bool outside_utilization_bound) {
  auto [it, inserted] = delayed->try_emplace(vertex);
  VertexDelayedScaleDown& d = it->second;
  if (inserted) d.first_trigger_time = now;
  while (!d.recommendations.empty() && d.recommendations.back().parallelism <= parallelism) {
    d.recommendations.pop_back();
  }
  d.recommendations.push_back({now, parallelism, outside_utilization_bound});
  return d;
}

DelayedScaleDownRecommendation MaxRecommendation(VertexDelayedScaleDown* d,
                                                 TimePoint window_start) {
  auto& recs = d->recommendations;
  recs.erase(std::remove_if(recs.begin(), recs.end(),
                            [&](const DelayedScaleDownRecommendation& r) {
                              return r.time < window_start;
                            }),
             recs.end());
  // Strictly decreasing parallelism: the oldest remaining one is the highest.
  return recs.front();
}

}  // namespace trimtab::core::flink
