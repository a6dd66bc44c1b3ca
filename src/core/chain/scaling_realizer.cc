#include "core/chain/scaling_realizer.h"

#include <charconv>

namespace trimtab::core {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

ParallelismOverrides MergeParallelismOverrides(const ParallelismOverrides& user,
                                               const ParallelismOverrides& autoscaler,
                                               const std::set<VertexId>& excluded) {
  ParallelismOverrides merged = user;
  for (const auto& [vertex, p] : autoscaler) {
    if (excluded.contains(vertex) && user.contains(vertex)) continue;
    merged[vertex] = p;
  }
  return merged;
}

StatusOr<ParallelismOverrides> ParseParallelismOverrides(const std::string& text,
                                                         const std::string& path) {
  ParallelismOverrides out;
  std::string_view rest = text;
  size_t index = 0;
  while (!Trim(rest).empty()) {
    size_t comma = rest.find(',');
    std::string item = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::string where = path + " item " + std::to_string(index++);
    size_t colon = item.find(':');
    if (colon == std::string::npos) {
      return InvalidArgumentError(where + ": \"" + item + "\" is not <vertex>:<parallelism>");
    }
    std::string vertex = Trim(std::string_view(item).substr(0, colon));
    std::string number = Trim(std::string_view(item).substr(colon + 1));
    int p = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
    if (vertex.empty() || ec != std::errc() || end != number.data() + number.size() || p < 1) {
      return InvalidArgumentError(where + ": \"" + item +
                                  "\" needs a vertex id and a parallelism >= 1");
    }
    out[vertex] = p;
  }
  return out;
}

std::string FormatParallelismOverrides(const ParallelismOverrides& overrides) {
  std::string out;
  for (const auto& [vertex, p] : overrides) {
    if (!out.empty()) out += ',';
    out += vertex + ":" + std::to_string(p);
  }
  return out;
}

Status InMemoryScalingRealizer::RealizeParallelismOverrides(const std::string& job_key,
                                                            const ParallelismOverrides& overrides) {
  for (const auto& [vertex, p] : overrides) {
    if (p < 1) {
      return InvalidArgumentError("realize " + job_key + ": vertex " + vertex + " parallelism " +
                                  std::to_string(p) + " < 1");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++calls_;
  parallelism_[job_key] = overrides;
  return Status::Ok();
}

Status InMemoryScalingRealizer::RealizeConfigOverrides(
    const std::string& job_key, const std::map<std::string, std::string>& overrides) {
  std::lock_guard<std::mutex> lock(mu_);
  ++calls_;
  for (const auto& [k, v] : overrides) config_[job_key][k] = v;
  return Status::Ok();
}

ParallelismOverrides InMemoryScalingRealizer::ParallelismOf(const std::string& job_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = parallelism_.find(job_key);
  return it == parallelism_.end() ? ParallelismOverrides{} : it->second;
}

std::map<std::string, std::string> InMemoryScalingRealizer::ConfigOf(
    const std::string& job_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = config_.find(job_key);
  return it == config_.end() ? std::map<std::string, std::string>{} : it->second;
}

int InMemoryScalingRealizer::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

}  // namespace trimtab::core
