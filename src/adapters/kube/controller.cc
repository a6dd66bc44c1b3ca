#include "adapters/kube/controller.h"

#include <exception>

#include <spdlog/spdlog.h>

namespace trimtab::kube {

ReconcileResult ReconcileResult::Earliest(const ReconcileResult& a, const ReconcileResult& b) {
  if (a.kind == Kind::kRetry) return a;
  if (b.kind == Kind::kRetry) return b;
  if (a.kind == Kind::kTerminal) return a;
  if (b.kind == Kind::kTerminal) return b;
  if (a.kind == Kind::kDone) return b;
  if (b.kind == Kind::kDone) return a;
  return a.after <= b.after ? a : b;
}

namespace {

WorkQueueOptions QueueOptions(ControllerOptions& o) {
  if (!o.clock) o.clock = RealClock::Default();
  if (o.workers < 1) o.workers = 1;
  if (!o.rate_limiter) {
    o.rate_limiter = std::make_unique<ExponentialBackoffLimiter>(std::chrono::milliseconds(5),
                                                                 std::chrono::seconds(1000));
  }
  return WorkQueueOptions{.clock = o.clock,
                          .rate_limiter = std::move(o.rate_limiter),
                          .metrics = o.metrics,
                          .name = o.queue_name.empty() ? o.name : o.queue_name};
}

}  // namespace

Controller::Controller(ControllerOptions options, SyncFn sync)
    : options_(std::move(options)), sync_(std::move(sync)), queue_(QueueOptions(options_)) {}

Controller::Controller(ControllerOptions options, Reconciler* reconciler)
    : Controller(std::move(options),
                 [reconciler](const std::string& key) { return reconciler->Reconcile(key); }) {}

Controller::Controller(std::string name, Clock* clock, int workers, SyncFn sync)
    : Controller(ControllerOptions{.name = std::move(name), .clock = clock, .workers = workers},
                 std::move(sync)) {}

Controller::~Controller() { Stop(); }

void Controller::Start() {
  if (!threads_.empty()) return;
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this] { Work(); });
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
    const int requeues = queue_.NumRequeues(*key);
    const auto started = std::chrono::steady_clock::now();
    ReconcileResult r;
    try {
      r = sync_(*key);
    } catch (const std::exception& e) {
      r = ReconcileResult::Retry(e.what());
    }
    const auto elapsed = std::chrono::steady_clock::now() - started;
    switch (r.kind) {
      case ReconcileResult::Kind::kDone:
        queue_.Forget(*key);
        break;
      case ReconcileResult::Kind::kAfter:
        queue_.Forget(*key);
        queue_.AddAfter(*key, r.after);
        break;
      case ReconcileResult::Kind::kRetry:
        queue_.AddRateLimited(*key);
        break;
      case ReconcileResult::Kind::kTerminal:
        queue_.Forget(*key);
        break;
    }
    if (options_.on_pass) {
      options_.on_pass(
          PassReport{.key = *key, .result = r, .requeues_before = requeues, .elapsed = elapsed});
    } else if (r.kind == ReconcileResult::Kind::kRetry) {
      spdlog::debug("{}: syncing {} failed (retrying): {}", options_.name, *key, r.error);
    } else if (r.kind == ReconcileResult::Kind::kTerminal) {
      spdlog::debug("{}: syncing {} failed (not retried): {}", options_.name, *key, r.error);
    }
    queue_.Done(*key);
  }
}

}  // namespace trimtab::kube
