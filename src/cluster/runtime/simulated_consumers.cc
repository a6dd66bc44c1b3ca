#include "cluster/runtime/simulated_consumers.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kube/api_errors.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "common/label_selector.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "simulated-consumers";

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

StatusOr<double> Number(const Json& annotations, const char* key, double fallback, bool integer) {
  const Json& v = At(annotations, {key});
  if (!v.is_string()) return fallback;
  const std::string text = v.get<std::string>();
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(text.c_str(), &end);
  const bool whole = !integer || parsed == std::floor(parsed);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(parsed) ||
      parsed < 0 || !whole) {
    return InvalidArgumentError("metadata.annotations[" + std::string(key) + "]: \"" + text +
                                "\" is not a non-negative " + (integer ? "integer" : "number"));
  }
  return parsed;
}

}  // namespace

StatusOr<std::optional<ConsumerTopicSpec>> ConsumerTopicSpecOf(const Json& deployment) {
  const Json& annotations = At(deployment, {"metadata", "annotations"});
  const std::string topic = Str(annotations, {kTopicAnnotation});
  if (topic.empty()) return std::optional<ConsumerTopicSpec>();
  ConsumerTopicSpec spec;
  spec.topic = topic;
  spec.group = Str(annotations, {kConsumerGroupAnnotation}, Str(deployment, {"metadata", "name"}));
  TRIMTAB_ASSIGN_OR_RETURN(double partitions, Number(annotations, kTopicPartitionsAnnotation, 1, true));
  if (partitions < 1 || partitions > 10000) {
    return InvalidArgumentError(std::string("metadata.annotations[") + kTopicPartitionsAnnotation +
                                "]: must be between 1 and 10000");
  }
  spec.partitions = static_cast<int>(partitions);
  TRIMTAB_ASSIGN_OR_RETURN(spec.produce_rate, Number(annotations, kTopicProduceRateAnnotation, 0, false));
  TRIMTAB_ASSIGN_OR_RETURN(spec.rate_per_pod, Number(annotations, kConsumeRatePerPodAnnotation, 0, false));
  return std::optional<ConsumerTopicSpec>(std::move(spec));
}

// ---- ConsumerTopicModel --------------------------------------------------------------------

ConsumerTopicModel::ConsumerTopicModel(ConsumerTopicSpec spec, TimePoint start)
    : spec_(std::move(spec)), partitions_(static_cast<size_t>(spec_.partitions)), time_(start) {}

std::vector<std::pair<std::string, double>> ConsumerTopicModel::Assignment() const {
  const int p = spec_.partitions;
  std::vector<std::pair<std::string, double>> out(static_cast<size_t>(p), {"", 0.0});
  const int n = std::min<int>(static_cast<int>(consumers_.size()), p);
  if (n == 0) return out;
  // Range assignor: consumer i gets p/n partitions, the first p%n one more, contiguous.
  int next = 0;
  for (int i = 0; i < n; ++i) {
    const int count = p / n + (i < p % n ? 1 : 0);
    for (int k = 0; k < count; ++k, ++next) {
      out[static_cast<size_t>(next)] = {consumers_[static_cast<size_t>(i)],
                                        spec_.rate_per_pod / count};
    }
  }
  return out;
}

std::vector<ConsumerTopicModel::Partition> ConsumerTopicModel::At(TimePoint now) const {
  std::vector<Partition> out = partitions_;
  const double dt = std::max(0.0, Seconds(now - time_));
  if (dt == 0) return out;
  const double produced = spec_.produce_rate / spec_.partitions;
  const auto assignment = Assignment();
  for (size_t j = 0; j < out.size(); ++j) {
    out[j].end += produced * dt;
    out[j].lag = std::max(0.0, out[j].lag + (produced - assignment[j].second) * dt);
  }
  return out;
}

void ConsumerTopicModel::SetSpec(const ConsumerTopicSpec& spec, TimePoint now) {
  partitions_ = At(now);
  time_ = std::max(time_, now);
  // More partitions start empty; fewer (Kafka cannot shrink a topic) keep the first ones.
  partitions_.resize(static_cast<size_t>(spec.partitions));
  spec_ = spec;
}

void ConsumerTopicModel::SetConsumers(std::vector<std::string> pods, TimePoint now) {
  partitions_ = At(now);
  time_ = std::max(time_, now);
  std::sort(pods.begin(), pods.end());
  consumers_ = std::move(pods);
}

metrics::TopicSample ConsumerTopicModel::Sample(TimePoint now) const {
  metrics::TopicSample s;
  s.topic = spec_.topic;
  s.consumer_group = spec_.group;
  s.records_in_per_second = spec_.produce_rate;
  const auto assignment = Assignment();
  const std::vector<Partition> parts = At(now);
  for (size_t j = 0; j < parts.size(); ++j) {
    s.partitions.push_back({static_cast<int>(j), parts[j].end, parts[j].end - parts[j].lag,
                            assignment[j].first});
  }
  return s;
}

// ---- SimulatedConsumers --------------------------------------------------------------------

SimulatedConsumers::SimulatedConsumers(InformerSet* informers, EventRecorder* events, Clock* clock)
    : informers_(informers), events_(events), clock_(clock) {
  informers_->Get(DeploymentsGvr())
      ->AddEventHandler({.on_add = [this](const Json& d) { Sync(kube::ObjectKey(d)); },
                         .on_update = [this](const Json&, const Json& d) { Sync(kube::ObjectKey(d)); },
                         .on_delete = [this](const Json& d) { Sync(kube::ObjectKey(d)); }});
  auto on_pod = [this](const Json& pod) { SyncNamespace(Str(pod, {"metadata", "namespace"})); };
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = on_pod,
       .on_update = [on_pod](const Json&, const Json& pod) { on_pod(pod); },
       .on_delete = on_pod});
}

void SimulatedConsumers::SyncNamespace(const std::string& ns) {
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, model] : models_) {
      if (key.starts_with(ns + "/")) keys.push_back(key);
    }
  }
  for (const std::string& key : keys) Sync(key);
}

void SimulatedConsumers::Sync(const std::string& key) {
  const TimePoint now = clock_->Now();
  auto deployment = informers_->Store(DeploymentsGvr()).GetByKey(key);
  StatusOr<std::optional<ConsumerTopicSpec>> spec = std::optional<ConsumerTopicSpec>();
  if (deployment && !IsDeleting(*deployment)) spec = ConsumerTopicSpecOf(*deployment);
  std::lock_guard<std::mutex> lock(mu_);
  if (!spec.ok()) {
    const std::string message(spec.status().message());
    if (reported_[key] != message) {
      reported_[key] = message;
      events_->Record(*deployment, {.component = kComponent}, "Warning", "InvalidSimulatedTopic",
                      message);
      spdlog::warn("simulated consumers {}: {}", key, message);
    }
    models_.erase(key);
    return;
  }
  reported_.erase(key);
  if (!*spec) {
    models_.erase(key);
    return;
  }
  // The consumers: the Deployment's Running pods.
  std::vector<std::string> pods;
  auto selector = LabelSelector::FromJson(At(*deployment, {"spec", "selector"}));
  if (selector.ok() && !selector->Empty()) {
    auto listed = informers_->Store(PodsGvr()).List(
        PodsGvr(), Str(*deployment, {"metadata", "namespace"}), {.labels = *selector});
    if (listed.ok()) {
      for (const Json& pod : *listed) {
        if (Str(pod, {"status", "phase"}) == "Running" && !IsDeleting(pod)) {
          pods.push_back(Str(pod, {"metadata", "name"}));
        }
      }
    }
  }
  auto it = models_.find(key);
  if (it == models_.end()) it = models_.emplace(key, ConsumerTopicModel(**spec, now)).first;
  if (!(it->second.spec() == **spec)) it->second.SetSpec(**spec, now);
  it->second.SetConsumers(std::move(pods), now);
}

std::vector<metrics::TopicSample> SimulatedConsumers::Topics(const std::string& ns, TimePoint now) {
  std::vector<metrics::TopicSample> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, model] : models_) {
    if (!key.starts_with(ns + "/")) continue;
    metrics::TopicSample s = model.Sample(now);
    const std::string name = key.substr(ns.size() + 1);
    s.labels["deployment"] = name;
    s.owner_resource = "deployments.apps";
    s.owner_name = name;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace trimtab::cluster::runtime
