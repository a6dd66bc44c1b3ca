// pipeline.jobvertex-parallelism-overrides as the simulated JobManager reads it.
#include "cluster/flink/cluster_settings.h"

#include <gtest/gtest.h>

namespace trimtab::sim::flink {
namespace {

const std::string kUpper = "ABCDEF0123456789ABCDEF0123456789";
const std::string kLower = "abcdef0123456789abcdef0123456789";
const std::string kOther = "00000000000000000000000000000001";

TEST(ParseJobVertexOverridesTest, IdsAreReturnedInLowerCase) {
  StatusOr<std::map<std::string, int>> parsed =
      ParseJobVertexOverrides(kUpper + ":3, " + kOther + ":2");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, (std::map<std::string, int>{{kLower, 3}, {kOther, 2}}));
  EXPECT_TRUE(ParseJobVertexOverrides("")->empty());
}

TEST(ParseJobVertexOverridesTest, IdsThatDifferOnlyInCaseAreOneVertexGivenTwice) {
  StatusOr<std::map<std::string, int>> parsed =
      ParseJobVertexOverrides(kUpper + ":1," + kLower + ":2");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(),
            "Flink configuration pipeline.jobvertex-parallelism-overrides: vertex \"" + kLower +
                "\" is given twice (vertex ids ignore case)");
  // The same id twice is caught by the common parser already.
  EXPECT_FALSE(ParseJobVertexOverrides(kLower + ":1," + kLower + ":2").ok());
}

TEST(ParseJobVertexOverridesTest, ErrorsNameTheKey) {
  StatusOr<std::map<std::string, int>> parsed = ParseJobVertexOverrides("source:2");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "Flink configuration pipeline.jobvertex-parallelism-overrides: \"source\" is not a "
            "job vertex id (32 hex digits)");
  parsed = ParseJobVertexOverrides(kLower + ":0");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("pipeline.jobvertex-parallelism-overrides"),
            std::string::npos);
}

}  // namespace
}  // namespace trimtab::sim::flink
