#include "adapters/kube/controller.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace trimtab::kube {
namespace {

using namespace std::chrono_literals;

TimePoint Start() { return TimePoint{} + std::chrono::hours(1000); }

// A Reconciler that answers from a script (Done once it runs out) and records every pass the
// loop reports.
class ScriptedReconciler final : public Reconciler {
 public:
  struct Pass {
    std::string key;
    ReconcileResult::Kind kind;
    std::string error;
    int requeues_before;
  };

  void Script(std::vector<std::function<ReconcileResult()>> steps) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : steps) script_.push_back(std::move(s));
  }

  ReconcileResult Reconcile(const std::string&) override {
    std::function<ReconcileResult()> step;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (script_.empty()) return ReconcileResult::Done();
      step = std::move(script_.front());
      script_.pop_front();
    }
    return step();
  }

  void OnPass(const PassReport& pass) {
    std::lock_guard<std::mutex> lock(mu_);
    passes_.push_back({pass.key, pass.result.kind, pass.result.error, pass.requeues_before});
    cv_.notify_all();
  }

  // The passes so far once there are at least `n` (fails the test after 5 s of real time).
  std::vector<Pass> WaitForPasses(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    EXPECT_TRUE(cv_.wait_for(lock, 5s, [&] { return passes_.size() >= n; }))
        << "only " << passes_.size() << " of " << n << " passes";
    return passes_;
  }
  size_t PassCount() {
    std::lock_guard<std::mutex> lock(mu_);
    return passes_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<ReconcileResult()>> script_;
  std::vector<Pass> passes_;
};

struct Harness {
  ManualClock clock{Start()};
  ScriptedReconciler reconciler;
  Controller controller{
      ControllerOptions{.name = "test-controller",
                        .clock = &clock,
                        .workers = 2,
                        .rate_limiter = std::make_unique<ExponentialBackoffLimiter>(1s, 60s),
                        .on_pass = [this](const PassReport& p) { reconciler.OnPass(p); }},
      &reconciler};
  Harness() { controller.Start(); }
};

// Real time for the loop to show it did not run a pass it should not have.
void Settle() { std::this_thread::sleep_for(100ms); }

TEST(ControllerTest, DoneForgetsTheKeyUntilItIsEnqueuedAgain) {
  Harness h;
  h.controller.Enqueue("ns/a");
  ASSERT_EQ(h.reconciler.WaitForPasses(1)[0].key, "ns/a");
  h.clock.Advance(std::chrono::hours(1));
  Settle();
  EXPECT_EQ(h.reconciler.PassCount(), 1u);
  h.controller.Enqueue("ns/a");
  EXPECT_EQ(h.reconciler.WaitForPasses(2)[1].requeues_before, 0);
}

TEST(ControllerTest, AfterRequeuesOnceTheClockHasMoved) {
  Harness h;
  h.reconciler.Script({[] { return ReconcileResult::After(10s); }});
  h.controller.Enqueue("ns/a");
  h.reconciler.WaitForPasses(1);
  h.clock.Advance(9s);
  Settle();
  EXPECT_EQ(h.reconciler.PassCount(), 1u);
  h.clock.Advance(1s);
  std::vector<ScriptedReconciler::Pass> passes = h.reconciler.WaitForPasses(2);
  EXPECT_EQ(passes[1].kind, ReconcileResult::Kind::kDone);
  EXPECT_EQ(passes[1].requeues_before, 0);
}

TEST(ControllerTest, RetryBacksOffPerKeyAndSuccessResetsTheBackOff) {
  Harness h;
  h.reconciler.Script({[] { return ReconcileResult::Retry("conflict"); },
                       [] { return ReconcileResult::Retry("conflict again"); }});
  h.controller.Enqueue("ns/a");
  EXPECT_EQ(h.reconciler.WaitForPasses(1)[0].error, "conflict");
  h.clock.Advance(1s);  // first back-off: 1 s
  EXPECT_EQ(h.reconciler.WaitForPasses(2)[1].requeues_before, 1);
  h.clock.Advance(1s);  // second back-off: 2 s
  Settle();
  EXPECT_EQ(h.reconciler.PassCount(), 2u);
  h.clock.Advance(1s);
  std::vector<ScriptedReconciler::Pass> passes = h.reconciler.WaitForPasses(3);
  EXPECT_EQ(passes[2].requeues_before, 2);
  EXPECT_EQ(passes[2].kind, ReconcileResult::Kind::kDone);
  h.controller.Enqueue("ns/a");
  EXPECT_EQ(h.reconciler.WaitForPasses(4)[3].requeues_before, 0);
}

TEST(ControllerTest, TerminalIsNotRetried) {
  Harness h;
  h.reconciler.Script({[] { return ReconcileResult::Terminal("spec.job.jarURI: missing"); }});
  h.controller.Enqueue("ns/a");
  EXPECT_EQ(h.reconciler.WaitForPasses(1)[0].kind, ReconcileResult::Kind::kTerminal);
  h.clock.Advance(std::chrono::hours(1));
  Settle();
  EXPECT_EQ(h.reconciler.PassCount(), 1u);
  h.controller.Enqueue("ns/a");  // the next change tries again, without back-off
  EXPECT_EQ(h.reconciler.WaitForPasses(2)[1].requeues_before, 0);
}

TEST(ControllerTest, AnExceptionIsARetry) {
  Harness h;
  h.reconciler.Script({[]() -> ReconcileResult { throw std::runtime_error("boom"); }});
  h.controller.Enqueue("ns/a");
  ScriptedReconciler::Pass first = h.reconciler.WaitForPasses(1)[0];
  EXPECT_EQ(first.kind, ReconcileResult::Kind::kRetry);
  EXPECT_EQ(first.error, "boom");
  h.clock.Advance(1s);
  EXPECT_EQ(h.reconciler.WaitForPasses(2)[1].requeues_before, 1);
}

TEST(ControllerTest, SyncFunctionsAndTheShortFormRunTheSameLoop) {
  ManualClock clock(Start());
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> keys;
  Controller c("short-form", &clock, 1, [&](const std::string& key) {
    std::lock_guard<std::mutex> lock(mu);
    keys.push_back(key);
    cv.notify_all();
    return ReconcileResult::Done();
  });
  c.Start();
  c.Enqueue("a");
  c.EnqueueAfter("b", 5s);
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return keys.size() == 1; }));
  }
  clock.Advance(5s);
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return keys.size() == 2; }));
  }
  c.Stop();
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.name(), "short-form");
}

TEST(ReconcileResultTest, EarliestPrefersFailuresThenTheSoonestWakeUp) {
  using R = ReconcileResult;
  EXPECT_EQ(R::Earliest(R::Done(), R::After(5s)).after, 5s);
  EXPECT_EQ(R::Earliest(R::After(3s), R::After(5s)).after, 3s);
  EXPECT_EQ(R::Earliest(R::After(3s), R::Done()).after, 3s);
  EXPECT_EQ(R::Earliest(R::Done(), R::Done()).kind, R::Kind::kDone);
  EXPECT_EQ(R::Earliest(R::After(1s), R::Retry("x")).kind, R::Kind::kRetry);
  EXPECT_EQ(R::Earliest(R::Terminal("t"), R::Retry("x")).kind, R::Kind::kRetry);
  EXPECT_EQ(R::Earliest(R::Terminal("t"), R::After(1s)).kind, R::Kind::kTerminal);
  EXPECT_TRUE(R::Retry("x").failed());
  EXPECT_TRUE(R::Terminal("x").failed());
  EXPECT_FALSE(R::After(1s).failed());
}

}  // namespace
}  // namespace trimtab::kube
