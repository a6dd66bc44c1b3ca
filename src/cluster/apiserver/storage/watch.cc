#include "cluster/apiserver/storage/watch.h"

#include <cstdlib>
#include <random>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {

using SteadyClock = std::chrono::steady_clock;

class WatchHub::Session {
 public:
  Session(WatchRequest request, std::shared_ptr<http::ResponseStream> stream, Store* store)
      : req(std::move(request)), stream_(std::move(stream)), store_(store) {}

  // Writes one encoded event; closes the watch when the client is gone.
  bool Send(const std::string& line) {
    if (stream_->Write(line)) return true;
    Close();
    return false;
  }

  void SetWatchId(uint64_t id) {
    bool close_now;
    {
      std::lock_guard<std::mutex> lock(mu_);
      watch_id_ = id;
      close_now = closed_;
    }
    if (close_now) store_->Unwatch(id);
  }

  // Ends the watch: no more events, final chunk to the client. Idempotent; never called with the
  // store lock or the hub queue lock held.
  void Close() {
    uint64_t id;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      closed_ = true;
      id = watch_id_;
    }
    if (id) store_->Unwatch(id);
    stream_->Close();
  }

  bool closed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }

  // Encodes an event for this watcher (Tables: one row, headers only in the first event).
  std::string Encode(std::string_view type, const Json& object) {
    Json payload;
    if (req.table) {
      payload = ToTable(req.type, {object}, req.table_rows, std::chrono::system_clock::now());
      if (table_headers_sent) payload.erase("columnDefinitions");
      table_headers_sent = true;
    }
    Json event = {{"type", std::string(type)}, {"object", req.table ? payload : object}};
    return event.dump() + "\n";
  }
  // What Encode gives for a plain watcher, from the object's dump: the same bytes (keys in
  // sorted order, "object" before "type").
  static std::string EncodeDumped(std::string_view type, const std::string& object_dump) {
    std::string out;
    out.reserve(object_dump.size() + type.size() + 24);
    out.append("{\"object\":").append(object_dump).append(",\"type\":\"").append(type).append(
        "\"}\n");
    return out;
  }

  std::string Bookmark(int64_t revision, bool initial_events_end) const {
    Json meta = {{"resourceVersion", std::to_string(revision)}};
    if (initial_events_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    Json event = {{"type", "BOOKMARK"},
                  {"object", {{"kind", req.type.kind},
                              {"apiVersion", req.type.GroupVersion()},
                              {"metadata", meta}}}};
    return event.dump() + "\n";
  }

  const WatchRequest req;
  SteadyClock::time_point deadline;
  int64_t last_revision = 0;        // dispatcher thread only (after start)
  bool table_headers_sent = false;  // start thread, then dispatcher thread

 private:
  std::shared_ptr<http::ResponseStream> stream_;
  Store* store_;
  mutable std::mutex mu_;
  uint64_t watch_id_ = 0;  // guarded by mu_
  bool closed_ = false;    // guarded by mu_
};

namespace {

std::string ErrorEvent(const ApiError& error) {
  Json event = {{"type", "ERROR"}, {"object", error.ToStatus()}};
  return event.dump() + "\n";
}

std::chrono::seconds RandomTimeout(std::chrono::seconds min) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int64_t> dist(min.count(), 2 * min.count() - 1);
  return std::chrono::seconds(min.count() > 0 ? dist(rng) : 0);
}

}  // namespace

WatchHub::WatchHub(ObjectService* objects, WatchHubOptions options)
    : objects_(objects), options_(options) {
  next_bookmark_ = SteadyClock::now() + options_.bookmark_interval;
  // The fan-out encodes stored objects, down to the deepest a client may store.
  auto thread = DeepStackThread::Start([this] { Loop(); });
  if (!thread.ok()) {
    spdlog::critical("watch: cannot start the fan-out thread: {}", thread.status().message());
    std::abort();  // as std::thread would (it throws, and nothing here can go on without it)
  }
  thread_ = std::move(thread).value();
}

WatchHub::~WatchHub() { Stop(); }

void WatchHub::Stop() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (auto& w : sessions_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
    sessions_.clear();
  }
  for (auto& s : live) s->Close();
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.clear();
}

size_t WatchHub::ActiveForTest() const {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  size_t n = 0;
  for (const auto& w : sessions_) {
    auto s = w.lock();
    if (s && !s->closed()) ++n;
  }
  return n;
}

void WatchHub::Enqueue(std::shared_ptr<Session> session,
                       std::shared_ptr<const StoreEvent> event) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (stopping_) return;
    queue_.emplace_back(std::move(session), std::move(event));
  }
  queue_cv_.notify_one();
}

void WatchHub::Start(WatchRequest request, std::shared_ptr<http::ResponseStream> stream) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (stopping_) {
      stream->Close();
      return;
    }
  }
  auto session = std::make_shared<Session>(std::move(request), stream, objects_->store());
  const WatchRequest& req = session->req;
  std::weak_ptr<Session> weak = session;
  stream->OnClose([weak] {
    if (auto s = weak.lock()) s->Close();
  });
  session->deadline = SteadyClock::now() + (req.timeout.count() > 0
                                                 ? req.timeout
                                                 : RandomTimeout(options_.min_default_timeout));
  int64_t after = 0;
  const std::string& rv = req.resource_version;
  if (req.send_initial_events || rv.empty() || rv == "0") {
    ListOptions list_options{.labels = req.labels, .fields = req.fields};
    auto list = objects_->List(req.type, req.ns, list_options);
    if (!list.ok()) {
      session->Send(ErrorEvent(list.error()));
      return session->Close();
    }
    for (const auto& item : list->items) {
      if (!session->Send(session->Encode("ADDED", item))) return;
    }
    after = list->revision;
    if (req.send_initial_events && req.bookmarks && !req.table) {
      if (!session->Send(session->Bookmark(after, /*initial_events_end=*/true))) return;
    }
  } else {
    char* end = nullptr;
    after = std::strtoll(rv.c_str(), &end, 10);
    if (end == rv.c_str() || *end != '\0' || after < 0) {
      session->Send(ErrorEvent(BadRequest("resourceVersion: Invalid value: \"" + rv +
                                          "\": must be a non-negative integer")));
      return session->Close();
    }
  }
  session->last_revision = after;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    std::erase_if(sessions_, [](const std::weak_ptr<Session>& w) { return w.expired(); });
    sessions_.push_back(session);
  }
  auto id = objects_->store()->Watch(
      CollectionPrefix(req.type, req.ns), after,
      [this, session](std::shared_ptr<const StoreEvent> e) { Enqueue(session, std::move(e)); });
  if (!id.ok()) {
    ApiError error = IsCompacted(id.status()) ? Gone(id.status().message())
                                              : FromStatus(id.status(), req.type, "");
    session->Send(ErrorEvent(error));
    return session->Close();
  }
  session->SetWatchId(*id);
}

void WatchHub::Loop() {
  std::deque<std::pair<std::shared_ptr<Session>, std::shared_ptr<const StoreEvent>>> batch;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait_for(lock, std::chrono::milliseconds(100),
                         [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      batch.swap(queue_);
    }
    for (auto& [session, event] : batch) Dispatch(session, event);
    batch.clear();
    Housekeeping();
  }
}

void WatchHub::Dispatch(const std::shared_ptr<Session>& session,
                        const std::shared_ptr<const StoreEvent>& event) {
  if (session->closed()) return;
  const ResourceType& type = session->req.type;
  const KeyValue& kv = event->kv;
  // Decoded per version: a served version may differ from the stored one (version_conversion.h).
  if (kv.mod_revision != decoded_revision_ || kv.key != decoded_key_ ||
      (decoded_ && decoded_->value("apiVersion", "") != type.GroupVersion())) {
    decoded_ = objects_->DecodeShared(kv, type);
    decoded_revision_ = kv.mod_revision;
    decoded_key_ = kv.key;
    decoded_dump_.clear();
  }
  session->last_revision = std::max(session->last_revision, kv.mod_revision);
  if (!decoded_) return;
  const Json* object = decoded_.get();
  Json converted;
  if (object->value("apiVersion", "") != type.GroupVersion()) {
    converted = *object;
    converted["apiVersion"] = type.GroupVersion();
    converted["kind"] = type.kind;
    object = &converted;
  }
  const WatchRequest& req = session->req;
  bool filtered = !req.labels.Empty() || !req.fields.Empty();
  std::string_view event_type;
  if (event->type == StoreEvent::Type::kDelete) {
    if (!filtered || objects_->Matches(type, *object, req.labels, req.fields)) {
      event_type = "DELETED";
    }
  } else if (!filtered) {
    event_type = event->created ? "ADDED" : "MODIFIED";
  } else {
    bool now_matches = objects_->Matches(type, *object, req.labels, req.fields);
    bool before_matches = false;
    if (!event->created) {
      before_matches = now_matches;
      if (event->prev_value) {
        Json prev = Json::parse(*event->prev_value, nullptr, false);
        if (prev.is_object()) before_matches = objects_->Matches(type, prev, req.labels, req.fields);
      }
    }
    if (now_matches) {
      event_type = before_matches ? "MODIFIED" : "ADDED";
    } else if (before_matches) {
      event_type = "DELETED";
    }
  }
  if (event_type.empty()) return;
  if (!req.table && object == decoded_.get()) {
    if (decoded_dump_.empty()) decoded_dump_ = decoded_->dump();
    session->Send(Session::EncodeDumped(event_type, decoded_dump_));
    return;
  }
  session->Send(session->Encode(event_type, *object));
}

void WatchHub::Housekeeping() {
  auto now = SteadyClock::now();
  bool bookmark_due = now >= next_bookmark_;
  int64_t revision = 0;
  if (bookmark_due) {
    next_bookmark_ = now + options_.bookmark_interval;
    // Every event up to `revision` is queued by now (the store queues before a write returns).
    revision = objects_->store()->Revision();
    std::deque<std::pair<std::shared_ptr<Session>, std::shared_ptr<const StoreEvent>>> rest;
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      rest.swap(queue_);
    }
    for (auto& [session, event] : rest) Dispatch(session, event);
  }
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    std::erase_if(sessions_, [&](const std::weak_ptr<Session>& w) {
      auto s = w.lock();
      if (!s || s->closed()) return true;
      live.push_back(std::move(s));
      return false;
    });
  }
  for (auto& s : live) {
    if (now >= s->deadline) {
      s->Close();
      continue;
    }
    if (bookmark_due && s->req.bookmarks && !s->req.table) {
      s->last_revision = std::max(s->last_revision, revision);
      s->Send(s->Bookmark(s->last_revision, false));
    }
  }
}

}  // namespace trimtab::cluster
