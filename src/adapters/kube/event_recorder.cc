#include "adapters/kube/event_recorder.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kube/object.h"

namespace trimtab::kube {
namespace {

constexpr int kUpdateAttempts = 3;  // conflicts while bumping an Event
constexpr int kNameAttempts = 16;   // name collisions while creating one
constexpr size_t kMaxWritten = 4096;  // Events remembered without the API server lookup

// 64-bit FNV-1a over length-prefixed parts, as 16 hex digits (a valid label value).
std::string HashParts(std::initializer_list<std::string_view> parts) {
  uint64_t h = 1469598103934665603ULL;
  auto feed = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 1099511628211ULL;
    }
  };
  for (std::string_view part : parts) {
    feed(std::to_string(part.size()));
    feed(":");
    feed(part);
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

int32_t JavaHash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;  // UTF-8 bytes; exact for ASCII
  return static_cast<int32_t>(h);
}

std::string StringField(const Json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// lastTimestamp (or firstTimestamp) of an Event; epoch when absent or malformed.
TimePoint LastSeen(const Json& event) {
  for (const char* field : {"lastTimestamp", "firstTimestamp"}) {
    StatusOr<TimePoint> t = ParseRfc3339(StringField(event, field));
    if (t.ok()) return *t;
  }
  return TimePoint{};
}

bool About(const Json& event, const EventObjectReference& object) {
  auto it = event.find("involvedObject");
  if (it == event.end() || !it->is_object()) return false;
  if (!object.uid.empty()) return StringField(*it, "uid") == object.uid;
  return StringField(*it, "kind") == object.kind && StringField(*it, "name") == object.name;
}

// Events of a cluster-scoped object (a Node) go to "default", as client-go writes them.
std::string EventNamespace(const EventObjectReference& object) {
  return object.namespace_name.empty() ? "default" : object.namespace_name;
}

std::string Context(const EventObjectReference& object, const EventToRecord& event) {
  return "event " + (event.reason.empty() ? "" : event.reason + " ") + "about " + object.kind + " " +
         (object.namespace_name.empty() ? "" : object.namespace_name + "/") + object.name;
}

// client-go's "<object>.<nanoseconds in hex>"; the low bits are randomised so that events of one
// instant (a clock that does not move, as in tests) still get distinct names.
std::string TimestampName(const std::string& object_name, TimePoint at) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t nanos = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count());
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016llx",
                static_cast<unsigned long long>(nanos ^ (rng() & 0xfffff)));
  return object_name + "." + buf;
}

}  // namespace

EventObjectReference EventObjectReferenceOf(const Json& object, std::string field_path) {
  return {.api_version = StringField(object, "apiVersion"),
          .kind = StringField(object, "kind"),
          .namespace_name = ObjectNamespace(object),
          .name = ObjectName(object),
          .uid = ObjectUid(object),
          .resource_version = ObjectResourceVersion(object),
          .field_path = std::move(field_path)};
}

EventRecorder::EventRecorder(EventRecorderOptions options) : options_(std::move(options)) {}

EventRecorder::~EventRecorder() { Stop(); }

std::string EventRecorder::IdentityHash(const EventObjectReference& object,
                                        const EventToRecord& event) {
  const std::string& key = event.key.empty() ? event.message : event.key;
  return HashParts({object.uid.empty() ? object.kind + "/" + object.name : object.uid, event.type,
                    event.reason, key, event.component, event.host, object.field_path});
}

std::string EventRecorder::ComponentHashName(const EventObjectReference& object,
                                             const EventToRecord& event) {
  std::string identity = event.key.empty() ? event.reason + event.message : event.key;
  identity += event.type;
  identity += object.kind + object.name + object.uid;
  std::string prefix = event.component;  // lower case: event names are DNS subdomains
  for (char& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return prefix + "." + std::to_string(JavaHash(identity) & 0x7fffffff);
}

TimePoint EventRecorder::Now() const {
  return (options_.clock != nullptr ? options_.clock : RealClock::Default())->Now();
}

Json EventRecorder::NewEvent(const EventObjectReference& object, const EventToRecord& event,
                             const std::string& hash, TimePoint now) const {
  const std::string stamp = FormatRfc3339(now);
  Json involved = {{"apiVersion", object.api_version}, {"kind", object.kind}};
  if (!object.namespace_name.empty()) involved["namespace"] = object.namespace_name;
  involved["name"] = object.name;
  if (!object.uid.empty()) involved["uid"] = object.uid;
  if (!object.resource_version.empty()) involved["resourceVersion"] = object.resource_version;
  if (!object.field_path.empty()) involved["fieldPath"] = object.field_path;
  Json source = {{"component", event.component}};
  if (!event.host.empty()) source["host"] = event.host;
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"namespace", EventNamespace(object)}, {"labels", {{kEventKeyLabel, hash}}}}},
          {"involvedObject", std::move(involved)},
          {"type", event.type},
          {"reason", event.reason},
          {"message", event.message},
          {"source", std::move(source)},
          {"firstTimestamp", stamp},
          {"lastTimestamp", stamp},
          {"count", 1},
          {"reportingComponent", options_.reporting_component.empty()
                                     ? event.component
                                     : options_.reporting_component},
          {"reportingInstance",
           options_.reporting_instance.empty() ? event.host : options_.reporting_instance}};
}

StatusOr<Json> EventRecorder::Create(const EventObjectReference& object, const EventToRecord& event,
                                     const std::string& hash, TimePoint now) const {
  Json body = NewEvent(object, event, hash, now);
  const std::string ns = EventNamespace(object);
  if (options_.naming == EventNaming::kComponentHash) {
    body["metadata"]["name"] = ComponentHashName(object, event);
    return options_.client->Create(EventsResource(), ns, body);
  }
  for (int attempt = 0;; ++attempt) {
    body["metadata"]["name"] = TimestampName(object.name, now);
    StatusOr<Json> created = options_.client->Create(EventsResource(), ns, body);
    if (created.ok() || created.status().code() != StatusCode::kAlreadyExists ||
        attempt + 1 >= kNameAttempts) {
      return created;
    }
  }
}

StatusOr<Json> EventRecorder::Bump(Json existing, const EventToRecord& event,
                                   TimePoint now) const {
  int64_t count = 1;
  if (auto it = existing.find("count"); it != existing.end() && it->is_number_integer()) {
    count = it->get<int64_t>();
  }
  existing["count"] = count + 1;
  existing["lastTimestamp"] = FormatRfc3339(now);
  existing["message"] = event.message;
  return options_.client->Update(EventsResource(), existing);
}

StatusOr<Json> EventRecorder::Record(const EventObjectReference& object,
                                     const EventToRecord& event,
                                     std::optional<Duration> dedup_interval) const {
  return RecordAt(object, event, dedup_interval, Now());
}

StatusOr<Json> EventRecorder::RecordAt(const EventObjectReference& object,
                                       const EventToRecord& given,
                                       std::optional<Duration> dedup_interval,
                                       TimePoint now) const {
  if (options_.client == nullptr) return InvalidArgumentError("event recorder: no client");
  if (object.name.empty()) {
    return InvalidArgumentError("event " + given.reason + ": the involved object needs a name");
  }
  if (given.reason.empty()) {
    return InvalidArgumentError(Context(object, given) + ": reason is empty");
  }
  const std::string hash = IdentityHash(object, given);
  EventToRecord event = given;
  if (event.component.empty()) event.component = options_.component;
  StatusOr<Json> stored = options_.naming == EventNaming::kComponentHash
                              ? RecordByComponentHash(object, event, hash, now)
                              : RecordByTimestamp(object, event, hash, dedup_interval, now);
  if (!stored.ok()) return stored.status().WithContext(Context(object, event));
  return stored;
}

StatusOr<Json> EventRecorder::RecordByComponentHash(const EventObjectReference& object,
                                                    const EventToRecord& event,
                                                    const std::string& hash, TimePoint now) const {
  const std::string name = ComponentHashName(object, event);
  for (int attempt = 0; attempt < kUpdateAttempts; ++attempt) {
    StatusOr<Json> existing = options_.client->Get(EventsResource(), EventNamespace(object), name);
    StatusOr<Json> stored = existing.ok() ? Bump(*existing, event, now)
                            : existing.status().code() == StatusCode::kNotFound
                                ? Create(object, event, hash, now)
                                : existing;
    if (stored.ok()) return stored;
    const StatusCode code = stored.status().code();
    if (code != StatusCode::kConflict && code != StatusCode::kAlreadyExists &&
        code != StatusCode::kNotFound) {
      return stored.status();
    }
    // Someone else wrote, created or removed it meanwhile: read again.
  }
  return ConflictError("the event kept changing concurrently (" +
                       std::to_string(kUpdateAttempts) + " attempts)");
}

StatusOr<Json> EventRecorder::RecordByTimestamp(const EventObjectReference& object,
                                                const EventToRecord& event,
                                                const std::string& hash,
                                                std::optional<Duration> interval,
                                                TimePoint now) const {
  if (!interval) return Create(object, event, hash, now);

  if (!options_.find_previous_in_api_server) {
    std::optional<Written> previous;
    {
      std::lock_guard<std::mutex> lock(written_mu_);
      auto it = written_.find(hash);
      if (it != written_.end() && now - it->second.last < *interval) previous = it->second;
    }
    if (previous) {
      // One merge patch, the count kept here: this recorder is the Event's only writer.
      const Json patch = {{"count", previous->count + 1},
                          {"lastTimestamp", FormatRfc3339(now)},
                          {"message", event.message}};
      StatusOr<Json> stored = options_.client->Patch(EventsResource(), previous->ns,
                                                     previous->name, PatchType::kMerge,
                                                     patch.dump());
      if (stored.ok()) {
        std::lock_guard<std::mutex> lock(written_mu_);
        written_[hash] = Written{.ns = previous->ns, .name = previous->name,
                                 .count = previous->count + 1, .last = now};
        return stored;
      }
      if (stored.status().code() != StatusCode::kNotFound) return stored;
      // The Event was deleted: write a new one.
    }
    StatusOr<Json> created = Create(object, event, hash, now);
    if (created.ok()) {
      std::lock_guard<std::mutex> lock(written_mu_);
      if (written_.size() >= kMaxWritten) written_.clear();
      written_[hash] = Written{.ns = EventNamespace(object), .name = ObjectName(*created),
                               .count = 1, .last = now};
    }
    return created;
  }

  for (int attempt = 0; attempt < kUpdateAttempts; ++attempt) {
    StatusOr<LabelSelector> selector =
        LabelSelector::Parse(std::string(kEventKeyLabel) + "=" + hash);
    if (!selector.ok()) return selector.status();
    StatusOr<std::vector<Json>> same =
        options_.client->List(EventsResource(), EventNamespace(object), {.labels = *selector});
    if (!same.ok()) return same.status();
    const Json* latest = nullptr;
    for (const Json& e : *same) {
      if (!About(e, object) || StringField(e, "reason") != event.reason ||
          StringField(e, "type") != event.type) {
        continue;
      }
      if (latest == nullptr || LastSeen(e) > LastSeen(*latest)) latest = &e;
    }
    if (latest == nullptr || now - LastSeen(*latest) >= *interval) {
      return Create(object, event, hash, now);
    }
    StatusOr<Json> stored = Bump(*latest, event, now);
    if (stored.ok()) return stored;
    if (stored.status().code() != StatusCode::kConflict &&
        stored.status().code() != StatusCode::kNotFound) {
      return stored.status();
    }
    // Someone else bumped or removed it: read again.
  }
  return ConflictError("the event kept changing concurrently (" +
                       std::to_string(kUpdateAttempts) + " attempts)");
}

void EventRecorder::Post(EventObjectReference object, EventToRecord event) {
  if (options_.log_events) {
    spdlog::log(event.type == "Warning" ? spdlog::level::warn : spdlog::level::info,
                "event {}/{} {} {}: {}", object.namespace_name, object.name, event.type,
                event.reason, event.message);
  }
  if (options_.client == nullptr) return;
  Pending p{std::move(object), std::move(event), Now()};
  if (options_.max_queue == 0) {
    Write(p);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= options_.max_queue) {
      spdlog::warn("events: queue full, dropping {} {} for {}", p.event.type, p.event.reason,
                   p.object.name);
      return;
    }
    queue_.push_back(std::move(p));
  }
  cv_.notify_all();
}

void EventRecorder::Record(const Json& object, const EventSource& source, const std::string& type,
                           const std::string& reason, const std::string& message,
                           const std::string& field_path) {
  Post(EventObjectReferenceOf(object, field_path), {.type = type,
                                                    .reason = reason,
                                                    .message = message,
                                                    .component = source.component,
                                                    .host = source.host});
}

void EventRecorder::Write(const Pending& p) {
  StatusOr<Json> stored = RecordAt(p.object, p.event, options_.dedup_interval, p.at);
  if (!stored.ok()) LogFailure(p.object, p.event, stored.status());
}

void EventRecorder::LogFailure(const EventObjectReference& object, const EventToRecord& event,
                               const Status& status) {
  const spdlog::level::level_enum level =
      options_.warn_on_failure ? spdlog::level::warn : spdlog::level::debug;
  if (status.code() != StatusCode::kPermissionDenied) {
    spdlog::log(level, "cannot record event: {}", status.ToString());
    return;
  }
  const int64_t now_ms = ToUnixMillis(Now());
  int64_t last = denied_logged_ms_.load();
  const int64_t interval_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(kPermissionDeniedLogInterval).count();
  if (last >= 0 && now_ms - last < interval_ms) {
    ++denied_unlogged_;
    return;
  }
  if (!denied_logged_ms_.compare_exchange_strong(last, now_ms)) {
    ++denied_unlogged_;  // another thread logs this interval
    return;
  }
  const int64_t dropped = denied_unlogged_.exchange(0);
  spdlog::log(level,
              "cannot record event {} on {}/{}: {} (events may not be written; {} more dropped "
              "since the last warning)",
              event.reason, object.namespace_name, object.name, status.ToString(), dropped);
}

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

StatusOr<std::vector<Json>> EventRecorder::EventsFor(const EventObjectReference& object) const {
  if (options_.client == nullptr) return InvalidArgumentError("event recorder: no client");
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> all,
                           options_.client->List(EventsResource(), EventNamespace(object), {}));
  std::vector<Json> out;
  for (Json& e : all) {
    if (About(e, object)) out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const Json& a, const Json& b) {
    StatusOr<TimePoint> ta = ParseRfc3339(StringField(a, "firstTimestamp"));
    StatusOr<TimePoint> tb = ParseRfc3339(StringField(b, "firstTimestamp"));
    return (ta.ok() ? *ta : TimePoint{}) < (tb.ok() ? *tb : TimePoint{});
  });
  return out;
}

}  // namespace trimtab::kube
