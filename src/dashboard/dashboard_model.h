// The dashboard's JSON model: pure functions from a ClusterView to the documents the page fetches
// (docs/dashboard.md). No I/O; the HTTP handlers (dashboard_handler.h) serve what these return.
//
//   BuildOverview   every FlinkDeployment and FlinkSessionJob with its state, lifecycle, the
//                   autoscaler's latest decision and counts of vetoed / blocked changes; the
//                   Volcano queues and PodGroups; the HorizontalPodAutoscalers
//   BuildJobDetail  one job: the chart points of its stored decision history (vertex names,
//                   not ids), every kept decision log, the latest decision log
//
// Everything the page shows comes from these documents as data; the page puts strings into the
// DOM as text only (assets/app.js), so names and reasons may hold any characters.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "common/clock.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"
#include "dashboard/cluster_view.h"

namespace trimtab::dashboard {

inline constexpr char kFlinkDeploymentKind[] = "FlinkDeployment";
inline constexpr char kFlinkSessionJobKind[] = "FlinkSessionJob";

Json BuildOverview(const ClusterView& view, TimePoint now);

// kNotFound when the view has no such job; kInvalidArgument for another kind.
StatusOr<Json> BuildJobDetail(const ClusterView& view, std::string_view kind,
                              std::string_view namespace_name, std::string_view name);

}  // namespace trimtab::dashboard
