#include "sim/job_library.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/job_model.h"

namespace trimtab::sim {
namespace {

TEST(JobLibrary, EveryJobBuildsAModel) {
  for (const std::string& name : LibraryJobNames()) {
    StatusOr<JobSpec> spec = LibraryJob(name);
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status().ToString();
    StatusOr<std::unique_ptr<JobModel>> m = JobModel::Create(*spec, 1);
    ASSERT_TRUE(m.ok()) << name << ": " << m.status().ToString();
    EXPECT_EQ((*m)->slots(), 4) << name;
    EXPECT_EQ((*m)->task_managers(), 2) << name;  // 2 slots per TaskManager
  }
}

TEST(JobLibrary, StatelessQueriesAreOneChainedVertex) {
  StatusOr<JobSpec> q1 = LibraryJob("q1");
  ASSERT_TRUE(q1.ok());
  ASSERT_EQ(q1->vertices.size(), 1u);
  EXPECT_NEAR(q1->vertices[0].capacity_per_subtask, 155'000 / 0.98, 1e-6);
  StatusOr<JobSpec> q2 = LibraryJob("q2");
  ASSERT_TRUE(q2.ok());
  EXPECT_NEAR(q2->vertices[0].selectivity, 1.0 / 123, 1e-12);
}

TEST(JobLibrary, Q5CostsAddUpToSevenUnitsPerBid) {
  StatusOr<JobSpec> q5 = LibraryJob("q5");
  ASSERT_TRUE(q5.ok());
  ASSERT_EQ(q5->vertices.size(), 4u);
  // Per-bid cost = sum over vertices of (records reaching it per bid) / capacity * 155000.
  double per_bid = 0, reach = 1;
  for (const VertexSpec& v : q5->vertices) {
    per_bid += reach * 155'000 / v.capacity_per_subtask;
    reach *= v.selectivity;
  }
  EXPECT_NEAR(per_bid, 7.0 + 0.01 * 0.1, 1e-9);  // q5's relative cost 7.0, plus the sink
  StatusOr<std::unique_ptr<JobModel>> m = JobModel::Create(*q5, 1);
  ASSERT_TRUE(m.ok());
  const core::JobTopology& t = (*m)->Topology();
  EXPECT_EQ(t.edges[0].ship_strategy, "HASH");
  EXPECT_EQ(t.edges[2].ship_strategy, "FORWARD");
  EXPECT_EQ(t.vertices[0].num_partitions, 16);
}

TEST(JobLibrary, Q8JoinsTwoSources) {
  StatusOr<JobSpec> q8 = LibraryJob("q8", {.parallelism = 2, .partitions = 8});
  ASSERT_TRUE(q8.ok());
  StatusOr<std::unique_ptr<JobModel>> m = JobModel::Create(*q8, 1);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ((*m)->num_sources(), 2);
  EXPECT_EQ((*m)->source_ids(), (std::vector<VertexId>{"persons", "auctions"}));
  (*m)->SetSourceRate(0, 40'000);
  (*m)->SetSourceRate(1, 40'000);
  for (int i = 0; i < 120; ++i) (*m)->Step(1);
  const JobMetrics s = (*m)->Snapshot();
  // 25 % persons + 75 % auctions of 40000/s reach the join.
  EXPECT_NEAR(s.vertices[2].records_in_per_second, 40'000, 1e-6);
  EXPECT_EQ(s.vertices[2].id, "window-join");
}

TEST(JobLibrary, StoppingOffsetsBoundEverySource) {
  StatusOr<Json> json = ParseYaml("{library: q8, partitions: 2, stoppingOffsets: 1000}", "t");
  ASSERT_TRUE(json.ok());
  StatusOr<JobSpec> spec = ParseLibraryJob(*json, "job");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  int sources = 0;
  for (const VertexSpec& v : spec->vertices) {
    if (v.partitions == 0) {
      EXPECT_TRUE(v.stopping_offsets.empty()) << v.id;
      continue;
    }
    ++sources;
    EXPECT_EQ(v.stopping_offsets, std::vector<double>{1000}) << v.id;
  }
  EXPECT_EQ(sources, 2);
  StatusOr<std::unique_ptr<JobModel>> m = JobModel::Create(*spec, 1);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE((*m)->bounded());
  json = ParseYaml("{library: q5, stoppingOffsets: -1}", "t");
  spec = ParseLibraryJob(*json, "job");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "job.stoppingOffsets: must be at least 0");
}

TEST(JobLibrary, ParseErrorsNameTheField) {
  StatusOr<Json> json = ParseYaml("{library: q9}", "t");
  ASSERT_TRUE(json.ok());
  StatusOr<JobSpec> spec = ParseLibraryJob(*json, "job");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "job.library: unknown library job \"q9\": supported: q1, q2, q5, q8, q11");
  json = ParseYaml("{library: q5, parallelism: 0}", "t");
  spec = ParseLibraryJob(*json, "job");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "job.parallelism: must be between 1 and 32768");
  json = ParseYaml("{library: q5, slots: 3}", "t");
  spec = ParseLibraryJob(*json, "job");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "job.slots: unknown field");
}

}  // namespace
}  // namespace trimtab::sim
