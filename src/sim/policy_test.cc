#include "sim/policy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/job_library.h"
#include "sim/job_model.h"

namespace trimtab::sim {
namespace {

TEST(PolicyRegistry, DefaultHoldsStaticAndOracle) {
  PolicyRegistry r = DefaultPolicyRegistry();
  EXPECT_EQ(r.Names(), (std::vector<std::string>{"oracle", "static"}));
  const Status dup = r.Register("static", [](const Json&) { return StatusOr<std::unique_ptr<ScalingPolicy>>(MakeStaticPolicy()); });
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  auto unknown = r.Create("hpa", Json(), "policies[2]");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "policies[2]: unknown policy \"hpa\" (known: oracle, static)");
  auto bad = r.Create("oracle", Json{{"headroom", -1}}, "policies[1]");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "policies[1]: config.headroom: must be between 0 and 10");
  auto extra = r.Create("static", Json{{"x", 1}}, "policies[0]");
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().message(), "policies[0]: config.x: unknown field");
}

TEST(StaticPolicy, NeverChanges) {
  auto p = MakeStaticPolicy();
  EXPECT_FALSE(p->traits().needs_metrics);
  core::JobTopology t;
  StatusOr<PolicyDecision> d = p->Decide(PolicyInput{.now_seconds = 60, .topology = &t});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->parallelism.has_value());
}

TEST(OraclePolicy, FewestSubtasksForTrueDemandWithPartitionSkew) {
  StatusOr<JobSpec> q1 = LibraryJob("q1");  // one vertex, 16 partitions, 155000/0.98 per subtask
  ASSERT_TRUE(q1.ok());
  auto m = std::move(JobModel::Create(*q1, 1)).value();
  auto oracle = std::move(MakeOraclePolicy(Json())).value();
  EXPECT_TRUE(oracle->traits().free_restarts);
  EXPECT_TRUE(oracle->traits().every_step);

  const auto decide = [&](double rate) {
    m->SetSourceRate(0, rate);
    PolicyInput in{.now_seconds = 0, .topology = &m->Topology(), .truth = m.get()};
    StatusOr<PolicyDecision> d = oracle->Decide(in);
    EXPECT_TRUE(d.ok());
    return d->parallelism ? d->parallelism->at("bid-projection") : m->parallelism(0);
  };
  // 500000/s needs ceil(500000 / 158163) = 4 readers; 16 / 4 = 4 partitions each = 125000/s.
  EXPECT_EQ(decide(500'000), 4);
  // 700000/s: 5 readers would own up to 4 of 16 partitions = 175000/s > 158163; 6 own up to 3.
  EXPECT_EQ(decide(700'000), 6);
  EXPECT_EQ(decide(100'000), 1);
  // More than 16 partitions' worth: capped at the partition count.
  EXPECT_EQ(decide(5'000'000), 16);
  // 550000/s fits 4 readers (4 of 16 partitions = 137500/s); with 20 % headroom 660000/s needs
  // 5 -> 4 partitions = 165000/s > 158163, so 6.
  EXPECT_EQ(decide(550'000), 4);
  auto padded = std::move(MakeOraclePolicy(Json{{"headroom", 0.2}})).value();
  m->SetSourceRate(0, 550'000);
  PolicyInput in{.now_seconds = 0, .topology = &m->Topology(), .truth = m.get()};
  StatusOr<PolicyDecision> d = padded->Decide(in);
  ASSERT_TRUE(d.ok() && d->parallelism);
  EXPECT_EQ(d->parallelism->at("bid-projection"), 6);
  ASSERT_EQ(d->reasons.size(), 1u);
  EXPECT_EQ(d->reasons[0], "bid-projection: true demand 550000 records/s needs 6 subtasks (was 4)");
}

// The oracle skips steps whose rates and parallelism are those of the last quiet step; it must
// decide what an oracle asked for the first time does, also when it is reused for a new run.
TEST(OraclePolicy, RemembersOnlyWhatDecidesTheSame) {
  auto reused = std::move(MakeOraclePolicy(Json())).value();
  for (const char* library : {"q5", "q11"}) {
    StatusOr<JobSpec> spec = LibraryJob(library, {.parallelism = 2, .partitions = 12});
    ASSERT_TRUE(spec.ok());
    auto m = std::move(JobModel::Create(*spec, 3)).value();
    int changes = 0;
    for (int k = 0; k < 2'000; ++k) {
      // Held for a while, steps, and a rate that changes every step for a spell.
      const double rate =
          k < 300 ? 40'000 : k < 900 ? 90'000 + 1'000 * (k / 100) : 20'000.0 + 37 * k;
      m->SetSourceRate(0, k >= 1'500 ? 60'000 : rate);
      PolicyInput in{.now_seconds = 5.0 * k, .topology = &m->Topology(), .truth = m.get()};
      StatusOr<PolicyDecision> a = reused->Decide(in);
      StatusOr<PolicyDecision> b = std::move(MakeOraclePolicy(Json())).value()->Decide(in);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->parallelism, b->parallelism) << library << " step " << k;
      ASSERT_EQ(a->reasons, b->reasons) << library << " step " << k;
      if (a->parallelism && k % 3 != 0) {  // some decisions are not applied (asked again)
        ++changes;
        ASSERT_TRUE(m->Rescale(*a->parallelism, RescaleOptions{.free = true}).ok());
      }
      m->Step(5);
    }
    EXPECT_GE(changes, 3) << library;
  }
}

}  // namespace
}  // namespace trimtab::sim
