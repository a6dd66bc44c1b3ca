#include "api/reconciled_spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::api {
namespace {

TEST(ReconciledSpecTest, SerializesSpecThenResourceMetadata) {
  FlinkDeploymentSpec spec;
  spec.image = "flink:1.20";
  spec.flink_version = FlinkVersion::kV1_20;
  spec.job = JobSpec{.jar_uri = "local:///a.jar", .parallelism = 2};
  const std::string text =
      SerializeSpecWithMeta(EncodeFlinkDeploymentSpec(spec), {.first_deployment = true});
  EXPECT_EQ(text,
            R"({"spec":{"flinkVersion":"v1_20","image":"flink:1.20","job":{"args":[],)"
            R"("jarURI":"local:///a.jar","parallelism":2,"state":"running",)"
            R"("upgradeMode":"stateless"}},"resource_metadata":{"apiVersion":)"
            R"("flink.apache.org/v1beta1","firstDeployment":true}})");
  StatusOr<SpecWithMeta> parsed = ParseSpecWithMeta(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_TRUE(parsed->meta.has_value());
  EXPECT_TRUE(parsed->meta->first_deployment);
  EXPECT_EQ(parsed->meta->api_version, "flink.apache.org/v1beta1");
  StatusOr<FlinkDeploymentSpec> typed = ParseRecordedDeploymentSpec(text);
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(*typed, spec);
  // Deterministic: the same spec serialises to the same bytes.
  EXPECT_EQ(text, SerializeSpecWithMeta(EncodeFlinkDeploymentSpec(*typed), {.first_deployment = true}));
}

TEST(ReconciledSpecTest, LegacyFormatIsTheBareSpec) {
  StatusOr<SpecWithMeta> parsed = ParseSpecWithMeta(
      R"({"apiVersion":"flink.apache.org/v1beta1","image":"flink:1.17","job":{"state":"suspended"}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_FALSE(parsed->meta.has_value());
  EXPECT_FALSE(parsed->spec.contains("apiVersion"));
  EXPECT_EQ(parsed->spec["image"], "flink:1.17");
  EXPECT_EQ(RecordedJobState(R"({"job":{"state":"suspended"}})"), JobState::kSuspended);
  EXPECT_EQ(RecordedJobState(R"({"spec":{"job":{}},"resource_metadata":{}})"), JobState::kRunning);
  EXPECT_EQ(RecordedJobState(R"({"spec":{},"resource_metadata":{}})"), std::nullopt);
}

TEST(ReconciledSpecTest, Errors) {
  EXPECT_EQ(ParseSpecWithMeta("").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ParseSpecWithMeta("[1]").status().code(), StatusCode::kInvalidArgument);
  StatusOr<FlinkDeploymentSpec> bad =
      ParseRecordedDeploymentSpec(R"({"spec":{"job":{"upgradeMode":"x"}},"resource_metadata":{}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("lastReconciledSpec.spec.job.upgradeMode"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace trimtab::api
