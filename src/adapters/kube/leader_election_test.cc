#include "adapters/kube/leader_election.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/fake_kube_server.h"

namespace trimtab::kube {
namespace {

using namespace std::chrono_literals;
using testing::FakeKubeServer;

constexpr char kLeasePath[] = "/apis/coordination.k8s.io/v1/namespaces/sys/leases/trimtab";

template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return pred();
}

// Runs an elector on a thread; stops and joins it on scope exit (also when an ASSERT fails).
class RunThread {
 public:
  RunThread(LeaderElector* elector, std::atomic<bool>* done = nullptr)
      : elector_(elector), thread_([elector, done] {
          elector->Run();
          if (done != nullptr) *done = true;
        }) {}
  ~RunThread() { Join(); }
  void Join() {
    if (!thread_.joinable()) return;
    elector_->Stop();
    thread_.join();
  }

 private:
  LeaderElector* elector_;
  std::thread thread_;
};

class LeaderElectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FakeKubeServer::Create();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = KubeClient::Create({.server = server_->base_url()}, {});
    ASSERT_TRUE(client.ok());
    client_ = std::move(client).value();
  }

  std::unique_ptr<LeaderElector> Make(const std::string& identity,
                                      LeaderElectionOptions extra = {}) {
    extra.lease_namespace = "sys";
    extra.lease_name = "trimtab";
    extra.identity = identity;
    extra.clock = &clock_;
    extra.jitter = false;
    extra.poll_interval = 1ms;
    auto elector = LeaderElector::Create(client_.get(), std::move(extra));
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    return elector.ok() ? std::move(elector).value() : nullptr;
  }

  Json LeaseSpec() const { return server_->Lookup(kLeasePath).value("spec", Json()); }

  ManualClock clock_{TimePoint{} + std::chrono::hours(24 * 365 * 54)};  // ~2024
  std::unique_ptr<FakeKubeServer> server_;
  std::unique_ptr<KubeClient> client_;
};

TEST(MicroTimeTest, Format) {
  const TimePoint t = FromUnixMillis(1714564800123) + std::chrono::microseconds(456);
  EXPECT_EQ(FormatMicroTime(t), "2024-05-01T12:00:00.123456Z");
  EXPECT_EQ(FormatMicroTime(FromUnixMillis(1714564800000)), "2024-05-01T12:00:00.000000Z");
}

TEST_F(LeaderElectionTest, ValidatesTimings) {
  auto make = [&](LeaderElectionOptions o) {
    o.lease_namespace = "sys";
    o.lease_name = "l";
    if (o.identity.empty()) o.identity = "a";
    return LeaderElector::Create(client_.get(), std::move(o)).status();
  };
  EXPECT_TRUE(make({}).ok());
  EXPECT_EQ(make({.lease_duration = 10s}).message(),
            "leader election sys/l: leaseDuration must be greater than renewDeadline");
  EXPECT_EQ(make({.renew_deadline = 2s, .retry_period = 2s}).message(),
            "leader election sys/l: renewDeadline must be greater than retryPeriod*1.2");
  EXPECT_FALSE(make({.retry_period = 0s}).ok());
  EXPECT_FALSE(LeaderElector::Create(client_.get(), {.lease_namespace = "sys", .lease_name = "l"})
                   .ok());  // no identity
}

TEST_F(LeaderElectionTest, AcquireRenewAndTakeOverAfterExpiry) {
  auto a = Make("a");
  auto b = Make("b");
  std::vector<std::string> b_saw;
  auto b_watcher = Make("b2", {.on_new_leader = [&](const std::string& id) { b_saw.push_back(id); }});

  const TimePoint t0 = clock_.Now();
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_TRUE(a->IsLeader());
  Json spec = LeaseSpec();
  EXPECT_EQ(spec["holderIdentity"], "a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_EQ(spec["acquireTime"], FormatMicroTime(t0));
  EXPECT_EQ(spec["renewTime"], FormatMicroTime(t0));

  EXPECT_FALSE(b->TryAcquireOrRenew());  // held and fresh
  EXPECT_FALSE(b->IsLeader());
  EXPECT_EQ(b->Leader(), "a");
  EXPECT_FALSE(b_watcher->TryAcquireOrRenew());
  EXPECT_EQ(b_saw, std::vector<std::string>{"a"});

  clock_.Advance(10s);
  ASSERT_TRUE(a->TryAcquireOrRenew());  // renew
  spec = LeaseSpec();
  EXPECT_EQ(spec["acquireTime"], FormatMicroTime(t0));
  EXPECT_EQ(spec["renewTime"], FormatMicroTime(t0 + 10s));
  EXPECT_FALSE(b->TryAcquireOrRenew());  // b sees the renewal: its expiry clock restarts

  clock_.Advance(14s);
  EXPECT_FALSE(b->TryAcquireOrRenew());  // 14 s since b saw a change: not expired yet
  clock_.Advance(2s);
  ASSERT_TRUE(b->TryAcquireOrRenew());  // a stopped renewing 16 s ago (by b's observation)
  spec = LeaseSpec();
  EXPECT_EQ(spec["holderIdentity"], "b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(spec["acquireTime"], FormatMicroTime(t0 + 26s));
  EXPECT_FALSE(a->TryAcquireOrRenew());  // a lost it
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a->Leader(), "b");
}

TEST_F(LeaderElectionTest, LostRaceOnConflict) {
  auto a = Make("a");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  server_->FailNext("PUT", kLeasePath, 409, "Conflict");
  clock_.Advance(2s);
  EXPECT_FALSE(a->TryAcquireOrRenew());
  EXPECT_TRUE(a->TryAcquireOrRenew());

  server_->FailNext("POST", "/apis/coordination.k8s.io", 409, "AlreadyExists");
  auto c = LeaderElector::Create(client_.get(), {.lease_namespace = "sys",
                                                 .lease_name = "other",
                                                 .identity = "c",
                                                 .clock = &clock_});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE((*c)->TryAcquireOrRenew());  // someone created it first
}

TEST_F(LeaderElectionTest, RunLeadsAndReleasesOnStop) {
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  auto a = Make("a", {.on_started_leading = [&] { ++started; },
                      .on_stopped_leading = [&] { ++stopped; }});
  RunThread runner(a.get());
  ASSERT_TRUE(Eventually([&] { return started.load() == 1; }));
  EXPECT_TRUE(a->IsLeader());

  // Renewals follow the clock.
  const TimePoint t0 = clock_.Now();
  ASSERT_TRUE(Eventually([&] { return a->WaitingForTest(); }));
  clock_.Advance(2s);
  ASSERT_TRUE(Eventually([&] { return LeaseSpec()["renewTime"] == FormatMicroTime(t0 + 2s); }));

  runner.Join();
  EXPECT_EQ(stopped.load(), 1);
  EXPECT_FALSE(a->IsLeader());
  const Json spec = LeaseSpec();
  EXPECT_EQ(spec["holderIdentity"], "");
  EXPECT_EQ(spec["leaseDurationSeconds"], 1);
  EXPECT_EQ(spec["leaseTransitions"], 0);

  auto b = Make("b");
  EXPECT_TRUE(b->TryAcquireOrRenew());  // released: no need to wait for expiry
  EXPECT_EQ(LeaseSpec()["leaseTransitions"], 1);
}

TEST_F(LeaderElectionTest, RunWaitsForTheLeaseThenLosesItWhenRenewalsFail) {
  auto holder = Make("holder");
  ASSERT_TRUE(holder->TryAcquireOrRenew());

  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  auto a = Make("a", {.on_started_leading = [&] { ++started; },
                      .on_stopped_leading = [&] { ++stopped; }});
  std::atomic<bool> done{false};
  RunThread runner(a.get(), &done);
  // "holder" never renews: a takes over once 15 s have passed since it saw the record.
  for (int i = 0; i < 400 && started.load() == 0; ++i) {
    clock_.Advance(1s);
    std::this_thread::sleep_for(2ms);
  }
  ASSERT_EQ(started.load(), 1);
  EXPECT_EQ(LeaseSpec()["holderIdentity"], "a");

  // Every lease request now fails: after renewDeadline (10 s) a gives up, without releasing.
  server_->FailNext("", kLeasePath, 500, "InternalError", 1000000);
  for (int i = 0; i < 400 && !done.load(); ++i) {
    clock_.Advance(1s);
    std::this_thread::sleep_for(2ms);
  }
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
  EXPECT_EQ(stopped.load(), 1);
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(LeaseSpec()["holderIdentity"], "a");  // not released: it could not even reach it
}

TEST_F(LeaderElectionTest, StopBeforeLeadingCallsNothing) {
  auto holder = Make("holder");
  ASSERT_TRUE(holder->TryAcquireOrRenew());
  std::atomic<int> calls{0};
  auto a = Make("a", {.on_started_leading = [&] { ++calls; },
                      .on_stopped_leading = [&] { ++calls; }});
  RunThread runner(a.get());
  ASSERT_TRUE(Eventually([&] { return a->Leader() == "holder"; }));
  runner.Join();
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(LeaseSpec()["holderIdentity"], "holder");
}

}  // namespace
}  // namespace trimtab::kube
