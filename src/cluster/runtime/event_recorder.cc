#include "cluster/runtime/event_recorder.h"

#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

template <typename Involved>
std::string AggregationKey(const Involved& involved, const EventSource& source,
                           const std::string& type, const std::string& reason,
                           const std::string& message) {
  return involved.uid + "|" + involved.field_path + "|" + source.component + "|" + source.host +
         "|" + type + "|" + reason + "|" + message;
}

// "<object>.<hex nanoseconds>" like client-go; the low bits are randomised so that events of
// one instant (a clock that does not move, as in tests) still get distinct names.
std::string EventName(const std::string& object_name, TimePoint at) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t nanos = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count());
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016llx",
                static_cast<unsigned long long>(nanos ^ (rng() & 0xfffff)));
  return object_name + "." + buf;
}

}  // namespace

EventRecorder::EventRecorder(const kube::KubeClient* client, Clock* clock,
                             EventRecorderOptions options)
    : client_(client), clock_(clock), options_(options) {}

EventRecorder::~EventRecorder() { Stop(); }

void EventRecorder::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void EventRecorder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventRecorder::Record(const Json& object, const EventSource& source, const std::string& type,
                           const std::string& reason, const std::string& message,
                           const std::string& field_path) {
  Involved involved{.kind = Str(object, {"kind"}),
                    .name = Str(object, {"metadata", "name"}),
                    .ns = Str(object, {"metadata", "namespace"}),
                    .uid = Str(object, {"metadata", "uid"}),
                    .api_version = Str(object, {"apiVersion"}),
                    .resource_version = Str(object, {"metadata", "resourceVersion"}),
                    .field_path = field_path};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= options_.max_queue) {
      spdlog::warn("events: queue full, dropping {} {} for {}", type, reason, involved.name);
      return;
    }
    queue_.push_back(Pending{std::move(involved), source, type, reason, message, clock_->Now()});
  }
  cv_.notify_all();
}

void EventRecorder::FlushForTest() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return queue_.empty() && !writing_; });
}

void EventRecorder::Loop() {
  auto stop_deadline = std::chrono::steady_clock::time_point::max();
  while (true) {
    Pending next;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_ && stop_deadline == std::chrono::steady_clock::time_point::max()) {
        stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      }
      if (queue_.empty() || std::chrono::steady_clock::now() > stop_deadline) {
        if (stopping_) {
          queue_.clear();
          writing_ = false;
          cv_.notify_all();
          return;
        }
        continue;
      }
      next = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
    }
    Write(next);
    {
      std::lock_guard<std::mutex> lock(mu_);
      writing_ = false;
    }
    cv_.notify_all();
  }
}

void EventRecorder::Write(const Pending& e) {
  const std::string key = AggregationKey(e.involved, e.source, e.type, e.reason, e.message);
  const std::string at = FormatRfc3339(e.at);
  auto it = seen_.find(key);
  if (it != seen_.end() && e.at - it->second.last <= options_.aggregation_window) {
    Seen& s = it->second;
    Json patch = {{"count", s.count + 1}, {"lastTimestamp", at}};
    auto r = client_->Patch(EventsGvr(), s.ns, s.name, kube::PatchType::kMerge, patch.dump());
    if (r.ok()) {
      s.count += 1;
      s.last = e.at;
      return;
    }
    if (r.status().code() != StatusCode::kNotFound) {
      spdlog::debug("events: updating {}/{} failed: {}", s.ns, s.name, r.status().ToString());
      return;
    }
    seen_.erase(it);  // the Event was deleted: write a new one
  }
  std::string ns = e.involved.ns.empty() ? "default" : e.involved.ns;
  Json involved = {{"kind", e.involved.kind},
                   {"name", e.involved.name},
                   {"uid", e.involved.uid},
                   {"apiVersion", e.involved.api_version},
                   {"resourceVersion", e.involved.resource_version}};
  if (!e.involved.ns.empty()) involved["namespace"] = e.involved.ns;
  if (!e.involved.field_path.empty()) involved["fieldPath"] = e.involved.field_path;
  Json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", EventName(e.involved.name, e.at)}, {"namespace", ns}}},
                {"involvedObject", involved},
                {"reason", e.reason},
                {"message", e.message},
                {"source", Json::object()},
                {"firstTimestamp", at},
                {"lastTimestamp", at},
                {"count", 1},
                {"type", e.type},
                {"eventTime", nullptr},
                {"reportingComponent", e.source.component},
                {"reportingInstance", e.source.host}};
  event["source"]["component"] = e.source.component;
  if (!e.source.host.empty()) event["source"]["host"] = e.source.host;
  auto created = client_->Create(EventsGvr(), ns, event);
  if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists) {
    event["metadata"]["name"] = EventName(e.involved.name, e.at);
    created = client_->Create(EventsGvr(), ns, event);
  }
  if (!created.ok()) {
    spdlog::debug("events: creating {} {} failed: {}", e.reason, e.involved.name,
                  created.status().ToString());
    return;
  }
  if (seen_.size() > 4096) seen_.clear();
  seen_[key] = Seen{ns, Str(*created, {"metadata", "name"}), 1, e.at};
}

}  // namespace trimtab::cluster::runtime
