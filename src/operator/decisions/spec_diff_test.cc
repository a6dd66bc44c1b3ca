#include "operator/decisions/spec_diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/flink_spec.h"

namespace trimtab::op {
namespace {

using api::DiffType;

api::FlinkDeploymentSpec Base() {
  api::FlinkDeploymentSpec s;
  s.image = "flink:1.20";
  s.flink_version = api::FlinkVersion::kV1_20;
  s.service_account = "flink";
  s.flink_configuration = {{"taskmanager.numberOfTaskSlots", "2"}};
  s.job = api::JobSpec{.jar_uri = "local:///a.jar", .parallelism = 2};
  s.task_manager = api::TaskManagerSpec{};
  return s;
}

SpecDiff Diff(const api::FlinkDeploymentSpec& a, const api::FlinkDeploymentSpec& b,
              api::DeploymentMode mode = api::DeploymentMode::kNative) {
  return DiffSpecs(api::EncodeFlinkDeploymentSpec(a), api::EncodeFlinkDeploymentSpec(b), mode);
}

struct Case {
  const char* name;
  void (*change)(api::FlinkDeploymentSpec*);
  DiffType native;
  DiffType standalone;
};

TEST(SpecDiffTest, FieldClasses) {
  const Case cases[] = {
      {"nothing", [](api::FlinkDeploymentSpec*) {}, DiffType::kIgnore, DiffType::kIgnore},
      {"image", [](api::FlinkDeploymentSpec* s) { s->image = "flink:2.0"; }, DiffType::kUpgrade, DiffType::kUpgrade},
      {"parallelism", [](api::FlinkDeploymentSpec* s) { s->job->parallelism = 4; }, DiffType::kUpgrade, DiffType::kScale},
      {"tm replicas", [](api::FlinkDeploymentSpec* s) { s->task_manager->replicas = 3; }, DiffType::kUpgrade, DiffType::kScale},
      {"upgradeMode", [](api::FlinkDeploymentSpec* s) { s->job->upgrade_mode = api::UpgradeMode::kSavepoint; }, DiffType::kIgnore, DiffType::kIgnore},
      {"savepoint nonce", [](api::FlinkDeploymentSpec* s) { s->job->savepoint_trigger_nonce = 1; }, DiffType::kIgnore, DiffType::kIgnore},
      {"initial savepoint", [](api::FlinkDeploymentSpec* s) { s->job->initial_savepoint_path = "x"; }, DiffType::kIgnore, DiffType::kIgnore},
      {"redeploy nonce", [](api::FlinkDeploymentSpec* s) { s->job->savepoint_redeploy_nonce = 1; }, DiffType::kSavepointRedeploy, DiffType::kSavepointRedeploy},
      {"state", [](api::FlinkDeploymentSpec* s) { s->job->state = api::JobState::kSuspended; }, DiffType::kUpgrade, DiffType::kUpgrade},
      {"restart nonce", [](api::FlinkDeploymentSpec* s) { s->restart_nonce = 7; }, DiffType::kUpgrade, DiffType::kUpgrade},
      {"autoscaler key", [](api::FlinkDeploymentSpec* s) { s->flink_configuration["job.autoscaler.enabled"] = "true"; }, DiffType::kIgnore, DiffType::kIgnore},
      {"operator key", [](api::FlinkDeploymentSpec* s) { s->flink_configuration["kubernetes.operator.reconcile.interval"] = "1 s"; }, DiffType::kIgnore, DiffType::kIgnore},
      {"parallelism.default", [](api::FlinkDeploymentSpec* s) { s->flink_configuration["parallelism.default"] = "9"; }, DiffType::kIgnore, DiffType::kIgnore},
      {"overrides", [](api::FlinkDeploymentSpec* s) { s->flink_configuration["pipeline.jobvertex-parallelism-overrides"] = "a:1"; }, DiffType::kScale, DiffType::kUpgrade},
      {"other key", [](api::FlinkDeploymentSpec* s) { s->flink_configuration["taskmanager.numberOfTaskSlots"] = "4"; }, DiffType::kUpgrade, DiffType::kUpgrade},
      {"session", [](api::FlinkDeploymentSpec* s) { s->job.reset(); }, DiffType::kUpgrade, DiffType::kUpgrade},
  };
  for (const Case& c : cases) {
    api::FlinkDeploymentSpec changed = Base();
    c.change(&changed);
    EXPECT_EQ(Diff(Base(), changed).type, c.native) << c.name;
    EXPECT_EQ(Diff(Base(), changed, api::DeploymentMode::kStandalone).type, c.standalone) << c.name;
  }
}

TEST(SpecDiffTest, NullNewNonceIsIgnoredAndMaxWins) {
  api::FlinkDeploymentSpec a = Base();
  a.restart_nonce = 3;
  a.job->savepoint_redeploy_nonce = 5;
  api::FlinkDeploymentSpec b = Base();
  EXPECT_EQ(Diff(a, b).type, DiffType::kIgnore);

  b = a;
  b.job->parallelism = 8;
  b.flink_configuration["pipeline.jobvertex-parallelism-overrides"] = "v:2";
  b.image = "other";
  SpecDiff d = Diff(a, b);
  EXPECT_EQ(d.type, DiffType::kUpgrade);
  ASSERT_EQ(d.changes.size(), 3u);
  EXPECT_EQ(d.Describe("FlinkDeploymentSpec"),
            "Diff: FlinkDeploymentSpec[flinkConfiguration.pipeline.jobvertex-parallelism-overrides "
            ": null -> v:2, image : flink:1.20 -> other, job.parallelism : 2 -> 8]");
}

TEST(SpecDiffTest, SessionJobDeploymentNameIsUpgrade) {
  api::FlinkSessionJobSpec a;
  a.deployment_name = "s1";
  a.job = api::JobSpec{.jar_uri = "https://x/a.jar", .parallelism = 1};
  api::FlinkSessionJobSpec b = a;
  b.deployment_name = "s2";
  EXPECT_EQ(DiffSpecs(api::EncodeFlinkSessionJobSpec(a), api::EncodeFlinkSessionJobSpec(b),
                      api::DeploymentMode::kNative)
                .type,
            DiffType::kUpgrade);
}

}  // namespace
}  // namespace trimtab::op
