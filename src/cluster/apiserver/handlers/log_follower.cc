#include "cluster/apiserver/handlers/log_follower.h"

#include <utility>

namespace trimtab::cluster {

LogFollower::~LogFollower() {
  std::vector<Followed> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    left.swap(followed_);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (Followed& f : left) f.stream->Close();
}

void LogFollower::Follow(std::shared_ptr<http::ResponseStream> stream, Fetch fetch, size_t sent) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) {
    stream->Close();
    return;
  }
  followed_.push_back(Followed{std::move(stream), std::move(fetch), sent});
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
}

void LogFollower::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, period_, [this] { return stopping_; });
    if (stopping_) break;
    std::vector<Followed> batch;
    batch.swap(followed_);
    lock.unlock();  // fetching reads the store and the runtime: never under mu_
    std::vector<Followed> keep;
    for (Followed& f : batch) {
      if (!f.stream->IsOpen()) continue;
      std::optional<Snapshot> now = f.fetch();
      if (now) {
        if (now->text.size() < f.sent) f.sent = 0;  // a new run of the container
        if (now->text.size() > f.sent) {
          f.stream->Write(now->text.substr(f.sent));
          f.sent = now->text.size();
        }
      }
      if (!now || now->finished) {
        f.stream->Close();
        continue;
      }
      keep.push_back(std::move(f));
    }
    lock.lock();
    for (Followed& f : keep) followed_.push_back(std::move(f));
  }
}

}  // namespace trimtab::cluster
