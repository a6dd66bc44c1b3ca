// The JSON wire form of one plugin call, shared by shared-library plugins (include/trimtab/
// plugin.h) and webhooks: the host sends a request, the plugin answers with a response.
// docs/plugins.md describes both documents field by field.
//
// Request:
//   {"plugin": "<instance name>", "context": {"jobKey", "namespace", "timeMillis",
//    "configuration": {k: v}, "metrics": EvaluatedMetrics, "topology": JobTopology,
//    "fleet": [{"jobKey", "namespace", "slots", "desiredSlots", "weight"}]},
//    "summaries": ScalingSummaries, "pluginState": <any JSON, null on the first call>}
// Response:
//   {"verdict": "approve"|"modify"|"veto", "summaries": {...} (required for modify),
//    "reason": "...", "pluginState": <any JSON> (optional; absent keeps the old state)}
//
// The CycleState does not cross the boundary.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"

namespace trimtab::core {

Json ToJson(const ExecutorContext& context);
StatusOr<ExecutorContext> ExecutorContextFromJson(const Json& j, const std::string& path);

Json MakePluginRequest(const std::string& plugin, const ExecutorContext& context,
                       const ScalingSummaries& summaries, const Json& plugin_state);

// A decoded response. `plugin_state` is set only when the response carried one.
struct PluginResponse {
  ExecutorResult result;
  std::optional<std::string> plugin_state_json;  // serialized, to keep Json out of this header
};

// Strict decoding: unknown fields, a missing verdict, a modify without summaries or a wrong type
// are errors naming the field path under `path`.
StatusOr<PluginResponse> PluginResponseFromJson(const Json& j, const std::string& path);
Json ToJson(const ExecutorResult& result);

}  // namespace trimtab::core
