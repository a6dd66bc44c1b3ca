#include "operator/autoscaler/decision_history.h"

#include <cmath>
#include <optional>

#include "core/flink/autoscaler_json.h"

namespace trimtab::op {
namespace {

// The stored list under `key` with only object entries, newest `limit` of them.
Json Kept(const Json& history, const char* key, size_t limit) {
  Json out = Json::array();
  if (!history.is_object()) return out;
  auto it = history.find(key);
  if (it == history.end() || !it->is_array()) return out;
  for (const Json& entry : *it) {
    if (entry.is_object()) out.push_back(entry);
  }
  if (out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  return out;
}

std::optional<double> Value(const core::MetricMap& metrics, const char* name, bool average) {
  const core::EvaluatedMetric* m = metrics.Find(name);
  if (m == nullptr) return std::nullopt;
  std::optional<double> v = average ? m->average : m->current;
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

}  // namespace

bool IsKeptDecision(const std::string& outcome) {
  return outcome == "Scaled" || outcome == "Vetoed" || outcome == "Blocked";
}

Json AppendToHistory(const Json& history, const HistoryPass& pass) {
  const std::string time = core::flink::FormatTime(pass.time);
  Json names = Json::object();
  Json vertices = Json::object();
  for (const core::VertexInfo& v : pass.topology->vertices) {
    std::string name = v.name.size() > kMaxHistoryVertexName
                           ? v.name.substr(0, kMaxHistoryVertexName)
                           : v.name;
    names[v.id] = std::move(name);
    Json point = {{"parallelism", v.parallelism}};
    if (pass.evaluated != nullptr) {
      auto m = pass.evaluated->vertices.find(v.id);
      if (m != pass.evaluated->vertices.end()) {
        if (auto r = Value(m->second, core::kMetricTargetDataRate, true)) point["inputRate"] = *r;
        if (auto c = Value(m->second, core::kMetricTrueProcessingRate, true)) point["capacity"] = *c;
        if (auto l = Value(m->second, core::kMetricLag, false)) point["lag"] = *l;
      }
    }
    vertices[v.id] = std::move(point);
  }
  Json points = Kept(history, "points", kMaxHistoryPoints - 1);
  points.push_back({{"time", time}, {"outcome", pass.outcome}, {"vertices", std::move(vertices)}});
  Json decisions = Kept(history, "decisions", kMaxHistoryDecisions);
  if (IsKeptDecision(pass.outcome) && pass.decision_log != nullptr &&
      pass.decision_log->is_object()) {
    Json log = *pass.decision_log;
    log["decision"] = pass.outcome;
    if (!log.contains("time")) log["time"] = time;
    decisions.push_back(std::move(log));
    if (decisions.size() > kMaxHistoryDecisions) decisions.erase(decisions.begin());
  }
  return {{"vertexNames", std::move(names)},
          {"points", std::move(points)},
          {"decisions", std::move(decisions)}};
}

}  // namespace trimtab::op
