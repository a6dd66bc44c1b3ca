#include "cluster/flink/async_operations.h"

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

namespace {

std::string Base64(std::string_view in) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  while (i + 2 < in.size()) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                       static_cast<uint8_t>(in[i + 2]);
    out += kChars[(v >> 18) & 63];
    out += kChars[(v >> 12) & 63];
    out += kChars[(v >> 6) & 63];
    out += kChars[v & 63];
    i += 3;
  }
  if (i < in.size()) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kChars[(v >> 18) & 63];
    out += kChars[(v >> 12) & 63];
    out += i + 1 < in.size() ? kChars[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

bool AsyncOperations::Register(Kind kind, const std::string& job_id, const std::string& trigger_id, TimePoint) {
  return ops_.emplace(std::make_tuple(kind, job_id, trigger_id), Operation{}).second;
}

bool AsyncOperations::Contains(Kind kind, const std::string& job_id, const std::string& trigger_id) const {
  return ops_.count(std::make_tuple(kind, job_id, trigger_id)) > 0;
}

void AsyncOperations::Complete(Kind kind, const std::string& job_id, const std::string& trigger_id, Json operation,
                               TimePoint now) {
  auto it = ops_.find(std::make_tuple(kind, job_id, trigger_id));
  if (it == ops_.end() || it->second.done) return;
  it->second.done = true;
  it->second.operation = std::move(operation);
  it->second.completed_at = now;
}

std::optional<Json> AsyncOperations::Result(Kind kind, const std::string& job_id,
                                            const std::string& trigger_id) const {
  auto it = ops_.find(std::make_tuple(kind, job_id, trigger_id));
  if (it == ops_.end()) return std::nullopt;
  Json body;
  body["status"] = {{"id", it->second.done ? "COMPLETED" : "IN_PROGRESS"}};
  body["operation"] = it->second.done ? it->second.operation : Json(nullptr);
  return body;
}

void AsyncOperations::Expire(TimePoint now, Duration retention) {
  for (auto it = ops_.begin(); it != ops_.end();) {
    if (it->second.done && now - it->second.completed_at >= retention) {
      it = ops_.erase(it);
    } else {
      ++it;
    }
  }
}

Json FailureCause(const std::string& exception_class, const std::string& message) {
  const std::string text = exception_class + ": " + message;
  return Json{{"class", exception_class},
              {"stack-trace", text + "\n\tat trimtab.sim.flink(simulated JobManager)\n"},
              {"serialized-throwable", Base64(text)}};
}

}  // namespace trimtab::sim::flink
