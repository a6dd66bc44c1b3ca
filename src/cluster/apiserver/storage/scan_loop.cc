#include "cluster/apiserver/storage/scan_loop.h"

#include <spdlog/spdlog.h>

namespace trimtab::cluster {

ScanLoop::ScanLoop(Store* store, ScanLoopOptions options, Filter filter, Pass pass)
    : store_(store), options_(std::move(options)), filter_(std::move(filter)),
      pass_(std::move(pass)) {}

ScanLoop::~ScanLoop() { Stop(); }

Status ScanLoop::Start() {
  auto id = store_->Watch("/", store_->Revision(), [this](std::shared_ptr<const StoreEvent> e) {
    if (filter_(*e)) Trigger();
  });
  if (!id.ok()) return id.status().WithContext(options_.name);
  watch_id_ = *id;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void ScanLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (watch_id_) store_->Unwatch(watch_id_);
  if (thread_.joinable()) thread_.join();
}

void ScanLoop::Trigger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    dirty_ = true;
  }
  cv_.notify_all();
}

void ScanLoop::RunPassForTest() {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t target = started_ + 1;  // the first pass that starts after this call
  dirty_ = true;
  cv_.notify_all();
  cv_.wait(lock, [&] { return passes_ >= target || stopping_; });
}

void ScanLoop::Loop() {
  bool retry = false;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto wait = retry ? options_.retry_delay : options_.period;
      cv_.wait_for(lock, wait, [&] { return dirty_ || stopping_; });
      if (stopping_) return;
      if (dirty_) {
        lock.unlock();
        std::this_thread::sleep_for(options_.debounce);  // let a burst of writes land
        lock.lock();
      }
      dirty_ = false;
      ++started_;
    }
    try {
      retry = pass_();
    } catch (const std::exception& e) {
      spdlog::error("{}: pass failed: {}", options_.name, e.what());
      retry = true;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++passes_;
    }
    cv_.notify_all();
  }
}

}  // namespace trimtab::cluster
