#include "adapters/kube/informer.h"

#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kube/api_errors.h"

namespace trimtab::kube {

Informer::Informer(const KubeClient* client, InformerOptions options)
    : client_(client), options_(std::move(options)), store_(options_.gvr) {}

Informer::~Informer() { Stop(); }

StatusOr<std::unique_ptr<Informer>> Informer::Create(const KubeClient* client,
                                                     InformerOptions options) {
  if (client == nullptr) return InvalidArgumentError("informer: client is required");
  if (options.clock == nullptr) return InvalidArgumentError("informer: clock is required");
  if (options.gvr.resource.empty() || options.gvr.version.empty()) {
    return InvalidArgumentError("informer: resource and version are required");
  }
  if (options.resync_period < Duration::zero() || options.page_size < 0 ||
      options.initial_backoff <= Duration::zero() || options.max_backoff < options.initial_backoff) {
    return InvalidArgumentError("informer " + options.gvr.String() +
                                ": resync, page size and backoff must be positive");
  }
  if (!options.label_selector.empty()) {
    StatusOr<LabelSelector> s = LabelSelector::Parse(options.label_selector);
    if (!s.ok()) return s.status().WithContext("informer " + options.gvr.String());
  }
  if (!options.field_selector.empty()) {
    StatusOr<FieldSelector> s = FieldSelector::Parse(options.field_selector);
    if (!s.ok()) return s.status().WithContext("informer " + options.gvr.String());
  }
  return std::unique_ptr<Informer>(new Informer(client, std::move(options)));
}

void Informer::AddEventHandler(EventHandler handler) { handlers_.push_back(std::move(handler)); }

void Informer::Dispatch(const std::function<void(const EventHandler&)>& call) {
  std::lock_guard<std::mutex> lock(handler_mu_);
  for (const EventHandler& h : handlers_) call(h);
}

bool Informer::HasSynced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return synced_;
}

bool Informer::WaitForSync(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return synced_cv_.wait_for(lock, timeout, [&] { return synced_ || stop_.stopped(); }) && synced_;
}

std::string Informer::LastResourceVersion() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resource_version_;
}

void Informer::Stop() {
  stop_.Stop();
  std::lock_guard<std::mutex> lock(mu_);
  if (watch_cancel_) watch_cancel_->Cancel();
  synced_cv_.notify_all();
}

Duration Informer::NextBackoff() {
  std::lock_guard<std::mutex> lock(mu_);
  const double factor = std::ldexp(1.0, std::min(failures_, 30));
  ++failures_;
  Duration d = std::chrono::duration_cast<Duration>(options_.initial_backoff * factor);
  if (d > options_.max_backoff) d = options_.max_backoff;
  if (options_.jitter) {
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    d += std::chrono::duration_cast<Duration>(d * dist(rng_));
  }
  return d;
}

bool Informer::Backoff(Duration d) {
  backing_off_ = true;
  const bool done = stop_.WaitFor(options_.clock, d, options_.poll_interval);
  backing_off_ = false;
  return done;
}

Status Informer::ListAndReplace() {
  ++lists_;
  ListOptions list{.label_selector = options_.label_selector,
                   .field_selector = options_.field_selector,
                   .limit = options_.page_size};
  std::map<std::string, ObjectPtr> fresh;
  std::string rv;
  while (true) {
    StatusOr<Json> page = client_->ListPage(options_.gvr, options_.namespace_name, list);
    if (!page.ok()) {
      if (IsExpired(page.status()) && !list.continue_token.empty()) {
        // The continue token outlived the server's history: start over without paging.
        fresh.clear();
        list.continue_token.clear();
        list.limit = 0;
        continue;
      }
      return page.status().WithContext("informer list " + options_.gvr.String());
    }
    if (auto items = page->find("items"); items != page->end() && items->is_array()) {
      for (Json& item : *items) {
        std::string key = ObjectKey(item);
        fresh[std::move(key)] = std::make_shared<const Json>(std::move(item));
      }
    }
    std::string next;
    if (auto meta = page->find("metadata"); meta != page->end() && meta->is_object()) {
      rv = meta->value("resourceVersion", rv);
      next = meta->value("continue", "");
    }
    if (next.empty()) break;
    list.continue_token = next;
  }
  std::map<std::string, ObjectPtr> old = store_.ReplaceAll(fresh);
  Dispatch([&](const EventHandler& h) {
    for (const auto& [key, object] : fresh) {
      const auto it = old.find(key);
      if (it == old.end()) {
        if (h.on_add) h.on_add(*object);
      } else if (ObjectResourceVersion(*it->second) != ObjectResourceVersion(*object)) {
        if (h.on_update) h.on_update(*it->second, *object);
      }
    }
    for (const auto& [key, object] : old) {
      if (fresh.count(key) == 0 && h.on_delete) h.on_delete(*object);
    }
  });
  std::lock_guard<std::mutex> lock(mu_);
  resource_version_ = rv;
  synced_ = true;
  synced_cv_.notify_all();
  return Status::Ok();
}

Status Informer::WatchOnce(bool* relist, bool* progress) {
  auto cancel = std::make_shared<http::Cancellation>();
  ListOptions options{.label_selector = options_.label_selector,
                      .field_selector = options_.field_selector,
                      .allow_watch_bookmarks = true};
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch_cancel_ = cancel;
    options.resource_version = resource_version_;
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    const double min_timeout = static_cast<double>(options_.min_watch_timeout.count());
    options.timeout_seconds = static_cast<int64_t>(min_timeout * (1.0 + dist(rng_)));
  }
  if (stop_.stopped()) return Status::Ok();
  ++watches_;
  Status event_error;
  const Status s = client_->Watch(
      options_.gvr, options_.namespace_name, options,
      [&](const WatchEvent& event) {
        Json& object = *event.object;
        const std::string rv = ObjectResourceVersion(object);
        if (event.type == "ADDED" || event.type == "MODIFIED") {
          // The store takes the decoded object as it is; handlers see the stored one.
          const ObjectPtr stored = std::make_shared<const Json>(std::move(object));
          const ObjectPtr previous = store_.Upsert(stored);
          Dispatch([&](const EventHandler& h) {
            if (previous) {
              if (h.on_update) h.on_update(*previous, *stored);
            } else if (h.on_add) {
              h.on_add(*stored);
            }
          });
        } else if (event.type == "DELETED") {
          ObjectPtr previous = store_.Remove(ObjectKey(object));
          Dispatch([&](const EventHandler& h) {
            if (h.on_delete) h.on_delete(object);
          });
        } else if (event.type == "BOOKMARK") {
          // Only the resourceVersion matters.
        } else if (event.type == "ERROR") {
          const ApiStatus api = ParseApiStatus(500, object.dump());
          if (api.code == 410) {
            *relist = true;
          } else {
            event_error = StatusFromApiStatus(api, "watch " + options_.gvr.String());
          }
          return false;
        } else {
          event_error = InternalError("watch " + options_.gvr.String() + ": unknown event type \"" +
                                      event.type + "\"");
          return false;
        }
        *progress = true;
        if (!rv.empty()) {
          std::lock_guard<std::mutex> lock(mu_);
          resource_version_ = rv;
        }
        return !stop_.stopped();
      },
      cancel);
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch_cancel_.reset();
  }
  if (IsExpired(s)) {
    *relist = true;
    return Status::Ok();
  }
  if (!s.ok()) return s;
  return event_error;
}

void Informer::ResyncLoop(TimePoint next) {
  while (stop_.WaitUntil(options_.clock, next, options_.poll_interval)) {
    for (const std::string& key : store_.Keys()) {
      ObjectPtr object = store_.GetShared(key);
      if (!object) continue;
      Dispatch([&](const EventHandler& h) {
        if (h.on_update) h.on_update(*object, *object);
      });
    }
    // One period after this resync was due; after a stall longer than a period (or a clock
    // jump), one period from now instead of a burst of the missed ones.
    next += options_.resync_period;
    if (const TimePoint now = options_.clock->Now(); next <= now) {
      next = now + options_.resync_period;
    }
  }
}

void Informer::Run() {
  std::thread resync;
  if (options_.resync_period > Duration::zero()) {
    // The schedule starts now, not when the thread first runs: a thread started late on a busy
    // machine would otherwise push every resync back by its delay.
    const TimePoint first = options_.clock->Now() + options_.resync_period;
    resync = std::thread([this, first] { ResyncLoop(first); });
  }
  bool need_list = true;
  while (!stop_.stopped()) {
    if (need_list) {
      const Status s = ListAndReplace();
      if (!s.ok()) {
        const Duration wait = NextBackoff();
        spdlog::warn("{}; retrying in {} ms", s.ToString(),
                     std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
        if (!Backoff(wait)) break;
        continue;
      }
      need_list = false;
    }
    bool relist = false;
    bool progress = false;
    const Status s = WatchOnce(&relist, &progress);
    if (stop_.stopped()) break;
    if (progress) {
      std::lock_guard<std::mutex> lock(mu_);
      failures_ = 0;
    }
    if (relist) {
      spdlog::info("informer {}: resourceVersion too old, relisting", options_.gvr.String());
      need_list = true;
      continue;
    }
    if (!s.ok()) {
      const Duration wait = NextBackoff();
      spdlog::warn("informer {}: {}; rewatching in {} ms", options_.gvr.String(), s.ToString(),
                   std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
      if (!Backoff(wait)) break;
    }
  }
  stop_.Stop();
  if (resync.joinable()) resync.join();
}

}  // namespace trimtab::kube
