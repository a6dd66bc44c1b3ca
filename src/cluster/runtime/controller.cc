#include "cluster/runtime/controller.h"

#include <spdlog/spdlog.h>

namespace trimtab::cluster::runtime {

Result Result::Earliest(const Result& a, const Result& b) {
  if (a.kind == Kind::kRetry) return a;
  if (b.kind == Kind::kRetry) return b;
  if (a.kind == Kind::kDone) return b;
  if (b.kind == Kind::kDone) return a;
  return a.after <= b.after ? a : b;
}

Controller::Controller(std::string name, Clock* clock, int workers, SyncFn sync)
    : name_(std::move(name)),
      queue_(kube::WorkQueueOptions{
          .clock = clock,
          // Per-key exponential back-off 5 ms .. 1000 s without the overall token bucket: the
          // local cluster is small and its API server local.
          .rate_limiter = std::make_unique<kube::ExponentialBackoffLimiter>(
              std::chrono::milliseconds(5), std::chrono::seconds(1000))}),
      workers_(workers),
      sync_(std::move(sync)) {}

Controller::~Controller() { Stop(); }

void Controller::Start() {
  if (!threads_.empty()) return;
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { Work(); });
}

void Controller::Stop() {
  queue_.ShutDown();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void Controller::Work() {
  while (std::optional<std::string> key = queue_.Get()) {
    Result r;
    try {
      r = sync_(*key);
    } catch (const std::exception& e) {
      r = Result::Retry(e.what());
    }
    switch (r.kind) {
      case Result::Kind::kDone:
        queue_.Forget(*key);
        break;
      case Result::Kind::kAfter:
        queue_.Forget(*key);
        queue_.AddAfter(*key, r.after);
        break;
      case Result::Kind::kRetry:
        spdlog::debug("{}: syncing {} failed (retrying): {}", name_, *key, r.error);
        queue_.AddRateLimited(*key);
        break;
    }
    queue_.Done(*key);
  }
}

}  // namespace trimtab::cluster::runtime
