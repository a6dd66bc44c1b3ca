// OperatorAutoscaler end to end: a scripted Flink JobManager (FakeFlinkRestServer) serves the
// job's metrics, an in-process local API server holds the state ConfigMap and the Events, and a
// ManualClock drives one Scale() per simulated reconcile minute.
//
// The job: source S (Kafka-like, 1000 records/s) -> REBALANCE -> sink K. With utilization
// target 0.5 (band 0.3..0.7), a source at 95% busy time (TPR 1052/s) is below its scale-up
// threshold (1429/s) and wants ceil(2 x 2000 / 1052.6) = 4; the sink at 50% (TPR 2000/s) is
// inside its band. Stabilization 1 min and a 3-min window: with the job running since T0 the
// first decision can happen at T0+4min.
#include "operator/autoscaler/operator_autoscaler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adapters/http/server.h"
#include "adapters/state/configmap_state_store.h"
#include "adapters/state/in_memory_state_store.h"
#include "cluster/apiserver/apiserver.h"
#include "tests/support/fake_flink_rest.h"

namespace trimtab::op {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::FakeFlinkJob;
using testing::FakeFlinkRestServer;
using testing::FakeFlinkVertex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Uniform;

const std::string kJob = "3f2a9c1e5b7d4f608a1b2c3d4e5f6071";
const std::string kSrc = "bc764cd8ddf7a0cff126f51c16239658";
const std::string kSink = "ea632d67b7d595e5b851708ae9ad79d6";
const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

// What the job does at one instant.
struct Load {
  int source_parallelism = 2;
  int sink_parallelism = 2;
  double rate = 1000;        // records/s through the job
  double source_busy = 950;  // ms/s
  double sink_busy = 500;    // ms/s
  TimePoint running_since = kT0;
};

class OperatorAutoscalerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = cluster::ApiServer::Create({.port = 0});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    api_ = std::move(server).value();
    auto client = kube::KubeClient::Create({.server = api_->url()}, {});
    ASSERT_TRUE(client.ok());
    kube_ = std::move(client).value();
    ASSERT_TRUE(
        kube_
            ->Create(
                {.version = "v1", .resource = "namespaces", .namespaced = false}, "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}})
            .ok());
    // Stands in for the FlinkDeployment that owns the state ConfigMap (the garbage collector
    // matches owners by uid only).
    auto owner = kube_->Create(
        kube::ConfigMapsResource(), "team",
        {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "orders"}}}});
    ASSERT_TRUE(owner.ok());
    owner_uid_ = kube::ObjectUid(*owner);

    auto flink = FakeFlinkRestServer::Create();
    ASSERT_TRUE(flink.ok());
    flink_ = std::move(flink).value();
    flink_->SetJobManagerMetrics({{"taskSlotsTotal", "4"}, {"taskSlotsAvailable", "0"}});
    flink_->SetTaskManagerMetrics({{"Status.JVM.Memory.Heap.Max", {.max = 1e9}},
                                   {"Status.JVM.Memory.Heap.Used", {.max = 4e8}},
                                   {"Status.JVM.CPU.Load", {.min = 0.1, .max = 0.3, .avg = 0.2}}});
    conf_ = {{"job.autoscaler.enabled", "true"},
             {"job.autoscaler.stabilization.interval", "1 min"},
             {"job.autoscaler.metrics.window", "3 min"},
             {"job.autoscaler.utilization.target", "0.5"},
             {"job.autoscaler.utilization.max", "0.7"},
             {"job.autoscaler.utilization.min", "0.3"},
             {"job.autoscaler.catch-up.duration", "0 s"},
             {"job.autoscaler.scale-down.interval", "0 s"},
             {"job.autoscaler.restart.time", "1 min"}};
  }

  void TearDown() override { flink_->Release(); }

  void Start(Json chain = Json(), std::string prometheus_url = "") {
    autoscaler_.reset();
    auto a = OperatorAutoscaler::Create({.kube = kube_.get(),
                                         .clock = &clock_,
                                         .executor_chain = std::move(chain),
                                         .operator_instance = "trimtab-operator-0",
                                         .prometheus_url = std::move(prometheus_url),
                                         .metrics = &metrics_});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    autoscaler_ = std::move(a).value();
  }

  // Scripts the job's REST answers for `load` at the clock's current time.
  void SetLoad(const Load& load) {
    const double up = std::chrono::duration<double>(clock_.Now() - load.running_since).count();
    const double total = load.rate * std::max(0.0, up);
    FakeFlinkVertex src{.id = kSrc,
                        .name = "Source: Kafka Source",
                        .parallelism = load.source_parallelism,
                        .max_parallelism = 128};
    src.write_records = total;
    src.accumulated_busy_time = load.source_busy * up * load.source_parallelism;
    const int sp = load.source_parallelism;
    src.metrics = {{"busyTimeMsPerSecond", Uniform(load.source_busy, sp)},
                   {"backPressuredTimeMsPerSecond", Uniform(0, sp)},
                   {"Source__Kafka_Source.numRecordsInPerSecond", Uniform(load.rate / sp, sp)},
                   {"Source__Kafka_Source.numRecordsOutPerSecond", Uniform(load.rate / sp, sp)},
                   {"Source__Kafka_Source.numRecordsIn", Uniform(total / sp, sp)},
                   {"Source__Kafka_Source.numRecordsOut", Uniform(total / sp, sp)},
                   {"Source__Kafka_Source.pendingRecords", Uniform(0, sp)}};
    FakeFlinkVertex sink{.id = kSink,
                         .name = "Sink: Writer",
                         .parallelism = load.sink_parallelism,
                         .max_parallelism = 128};
    sink.inputs = {{kSrc, "REBALANCE"}};
    sink.read_records = total;
    const int kp = load.sink_parallelism;
    sink.metrics = {{"busyTimeMsPerSecond", Uniform(load.sink_busy, kp)},
                    {"numRecordsInPerSecond", Uniform(load.rate / kp, kp)}};
    FakeFlinkJob job{.id = kJob,
                     .name = "orders",
                     .state = "RUNNING",
                     .start_time_ms = ToUnixMillis(kT0) - 60'000,
                     .running_since_ms = ToUnixMillis(load.running_since)};
    job.vertices = {src, sink};
    flink_->SetJob(std::move(job));
  }

  AutoscalerJobContext Context() const {
    return {.namespace_name = "team",
            .resource_name = "orders",
            .resource_kind = "FlinkDeployment",
            .resource_uid = owner_uid_,
            .job_id = kJob,
            .job_status = "RUNNING",
            .rest_url = flink_->base_url(),
            .flink_version = "v1_20",
            .flink_configuration = conf_};
  }

  // Advances the clock to T0 + `at`, scripts `load` and runs one Scale().
  AutoscalerOutcome ScaleAt(Duration at, const Load& load = {}) {
    clock_.Set(kT0 + at);
    SetLoad(load);
    auto out = autoscaler_->Scale(Context());
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : AutoscalerOutcome{};
  }

  std::vector<Json> EventsWithReason(const std::string& reason) const {
    std::vector<Json> out;
    auto events = kube_->List(kube::EventsResource(), "team", {});
    EXPECT_TRUE(events.ok());
    for (const Json& e : *events) {
      if (e["reason"] == reason) out.push_back(e);
    }
    return out;
  }

  StatusOr<Json> StateConfigMap() const {
    return kube_->Get(kube::ConfigMapsResource(), "team", "autoscaler-orders");
  }

  double Metric(const std::string& name, const LabelValues& labels) const {
    const MetricFamily* f = metrics_.Find(name);
    return f && f->Value(labels) ? *f->Value(labels) : -1;
  }

  ManualClock clock_{kT0};
  MetricsRegistry metrics_;
  std::unique_ptr<cluster::ApiServer> api_;
  std::unique_ptr<kube::KubeClient> kube_;
  std::unique_ptr<FakeFlinkRestServer> flink_;
  std::unique_ptr<OperatorAutoscaler> autoscaler_;
  std::map<std::string, std::string> conf_;
  std::string owner_uid_;
};

TEST_F(OperatorAutoscalerTest, ScalesUpUnderLoadOnceTheWindowIsFull) {
  Start();
  AutoscalerOutcome out = ScaleAt(minutes(1));
  EXPECT_FALSE(out.scaled);
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_EQ(out.skipped_reason, "not enough samples to evaluate: need 2, have 1");
  out = ScaleAt(minutes(2));
  EXPECT_EQ(out.skipped_reason,
            "metric window not full until 2024-05-01T09:04:00Z: no scaling decision yet "
            "(2 samples)");
  EXPECT_EQ(out.decision_log["outcome"], "WindowNotFull");
  out = ScaleAt(minutes(3));
  EXPECT_FALSE(out.scaled);
  EXPECT_TRUE(EventsWithReason("ScalingReport").empty());

  out = ScaleAt(minutes(4));
  EXPECT_TRUE(out.scaled);
  EXPECT_EQ(out.skipped_reason, "");
  EXPECT_EQ(out.parallelism_overrides, (std::map<std::string, int>{{kSrc, 4}, {kSink, 2}}));
  EXPECT_EQ(out.decision_log["outcome"], "Scale");
  EXPECT_EQ(out.decision_log["vertices"][kSrc]["finalParallelism"], 4);
  EXPECT_EQ(out.decision_log["chain"]["vetoed"], false);
  EXPECT_EQ(autoscaler_->Counters("team", "orders").scalings, 1);
  ASSERT_TRUE(autoscaler_->LastEvaluation("team", "orders").has_value());

  std::vector<Json> reports = EventsWithReason("ScalingReport");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]["type"], "Normal");
  EXPECT_THAT(reports[0]["message"].get<std::string>(),
              HasSubstr("Scaling execution enabled, begin scaling vertices:\n{ Vertex ID "
                        "Source: Kafka Source | Parallelism 2 -> 4"));
  EXPECT_EQ(reports[0]["involvedObject"]["kind"], "FlinkDeployment");
  EXPECT_EQ(reports[0]["involvedObject"]["uid"], owner_uid_);

  auto cm = StateConfigMap();
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ((*cm)["data"]["parallelismOverrides"], kSrc + ":4," + kSink + ":2");
  EXPECT_EQ((*cm)["metadata"]["ownerReferences"][0]["uid"], owner_uid_);
  EXPECT_EQ((*cm)["metadata"]["labels"]["component"], "autoscaler");
  for (const char* key : {"collectedMetrics", "scalingHistory", "scalingTracking", "decisionLog",
                          "decisionHistory"}) {
    EXPECT_TRUE((*cm)["data"].contains(key)) << key;
  }
  // The dashboard's history: one point per pass, the scaling's full log, vertex names.
  auto history = adapters::DecodeStateValue(core::StateType::kDecisionHistory,
                                            (*cm)["data"]["decisionHistory"].get<std::string>());
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  EXPECT_EQ((*history)["points"].size(), 4u);
  EXPECT_EQ((*history)["points"][3]["outcome"], "Scaled");
  EXPECT_EQ((*history)["points"][3]["vertices"][kSrc]["parallelism"], 2);
  EXPECT_NEAR((*history)["points"][3]["vertices"][kSrc]["inputRate"].get<double>(), 1000, 1);
  EXPECT_EQ((*history)["vertexNames"][kSrc], "Source: Kafka Source");
  ASSERT_EQ((*history)["decisions"].size(), 1u);
  EXPECT_EQ((*history)["decisions"][0]["decision"], "Scaled");
  EXPECT_EQ((*history)["decisions"][0]["vertices"][kSrc]["finalParallelism"], 4);

  // The reconciler applies them: the job restarts, then runs at 4 and stabilizes; the stored
  // overrides stay in force meanwhile.
  flink_->UpdateJob([](FakeFlinkJob& job) { job.state = "RESTARTING"; });
  clock_.Set(kT0 + minutes(5));
  auto restarting = autoscaler_->Scale(Context());
  ASSERT_TRUE(restarting.ok());
  EXPECT_FALSE(restarting->scaled);
  EXPECT_EQ(restarting->parallelism_overrides.at(kSrc), 4);
  out = ScaleAt(minutes(6), {.source_parallelism = 4,
                             .source_busy = 480,
                             .running_since = kT0 + minutes(5) + seconds(20)});
  EXPECT_FALSE(out.scaled);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);
  EXPECT_THAT(out.skipped_reason, HasSubstr("stabilizing until 2024-05-01T09:06:20Z"));
}

TEST_F(OperatorAutoscalerTest, ExportsPerVertexMetricsAndForgetsADeletedJob) {
  Start();
  for (int m = 1; m <= 4; ++m) ScaleAt(minutes(m));
  const std::string prefix = "flink_k8soperator_namespace_resource_AutoScaler_";
  const LabelValues src = {"team", "orders", "FlinkDeployment", kSrc, "Source: Kafka Source"};
  const LabelValues job = {"team", "orders", "FlinkDeployment"};
  EXPECT_EQ(Metric(prefix + "PARALLELISM_Current", src), 2);
  EXPECT_EQ(Metric(prefix + "RECOMMENDED_PARALLELISM_Current", src), 4);
  EXPECT_GT(Metric(prefix + "TRUE_PROCESSING_RATE_Average", src), 0);
  EXPECT_NEAR(Metric(prefix + "TARGET_DATA_RATE_Average", src), 1000, 1);
  EXPECT_NEAR(Metric(prefix + "LOAD_Average", src), 0.95, 0.01);
  EXPECT_EQ(Metric(prefix + "LAG_Current", src), 0);
  EXPECT_EQ(Metric(prefix + "scalings", job), 1);
  EXPECT_EQ(Metric("trimtab_autoscaler_rescales_total", job), 1);
  EXPECT_EQ(Metric("trimtab_autoscaler_decisions_total",
                   {"team", "orders", "FlinkDeployment", "Scaled"}),
            1);
  EXPECT_EQ(Metric("trimtab_autoscaler_decisions_total",
                   {"team", "orders", "FlinkDeployment", "NotEnoughSamples"}),
            1);
  const std::string text = metrics_.Render();
  EXPECT_THAT(text, HasSubstr("# TYPE " + prefix + "LAG_Current gauge\n"));
  EXPECT_THAT(text, HasSubstr("vertex=\"Sink: Writer\""));

  // The job leaves RUNNING: its vertex series go (the counters stay) ...
  flink_->UpdateJob([](FakeFlinkJob& j) { j.state = "RESTARTING"; });
  clock_.Set(kT0 + minutes(5));
  ASSERT_TRUE(autoscaler_->Scale(Context()).ok());
  EXPECT_EQ(Metric(prefix + "PARALLELISM_Current", src), -1);
  EXPECT_EQ(Metric(prefix + "scalings", job), 1);
  // ... and nothing of a deleted job is exported.
  ASSERT_TRUE(autoscaler_->Cleanup("team", "orders").ok());
  EXPECT_THAT(metrics_.Render(), Not(HasSubstr("orders")));
}

TEST_F(OperatorAutoscalerTest, ScalesDownOnlyAfterTheDelay) {
  conf_["job.autoscaler.scale-down.interval"] = "5 min";
  Start();
  // Four subtasks each, 20% / 25% busy: both vertices want 2 (TPR 5000/s and 4000/s are above
  // the scale-down threshold 3333/s).
  const Load idle{
      .source_parallelism = 4, .sink_parallelism = 4, .source_busy = 200, .sink_busy = 250};
  for (int m = 1; m <= 8; ++m) {
    AutoscalerOutcome out = ScaleAt(minutes(m), idle);
    EXPECT_FALSE(out.scaled) << "minute " << m;
    EXPECT_TRUE(out.parallelism_overrides.empty()) << "minute " << m;
  }
  // First wish at T0+4min; the interval has passed at T0+9min.
  AutoscalerOutcome out = ScaleAt(minutes(9), idle);
  EXPECT_TRUE(out.scaled);
  EXPECT_EQ(out.parallelism_overrides, (std::map<std::string, int>{{kSrc, 2}, {kSink, 2}}));
}

TEST_F(OperatorAutoscalerTest, BehaviorLimitsHoldAcrossARestartOfTheAutoscaler) {
  conf_["job.autoscaler.behavior.scale-up.policies"] = "Pods:1/10 min";
  conf_["job.autoscaler.restart.time-tracking.enabled"] = "true";
  Start();
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  AutoscalerOutcome out = ScaleAt(minutes(4));
  ASSERT_TRUE(out.scaled);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 3);  // wanted 4, +1 per 10 minutes

  // The operator restarts; the reconciler rescaled the job (running again 30 s later), which is
  // still overloaded at 3 subtasks.
  autoscaler_.reset();
  Start();
  const Load after{.source_parallelism = 3, .running_since = kT0 + minutes(4) + seconds(30)};
  std::optional<int> scaled_at;
  for (int m = 5; m <= 16 && !scaled_at; ++m) {
    out = ScaleAt(minutes(m), after);
    if (m == 5) {
      // Restart tracking: the job runs with the new parallelism, the rescale took 30 s.
      const Json& notes = out.decision_log["stages"]["collect"];
      EXPECT_THAT(notes.dump(), HasSubstr("took 30 s")) << notes.dump();
    }
    if (out.scaled) scaled_at = m;
    if (m == 9) {
      EXPECT_EQ(out.decision_log["outcome"], "NoChange");
      EXPECT_THAT(out.decision_log["stages"]["shape"].dump(),
                  HasSubstr("behavior rules hold every vertex at its current parallelism"));
    }
  }
  // The window is full again at T0+9min, but the scale-up of T0+4min still counts until
  // T0+14min: without the stored scale events it would have scaled at T0+9min.
  ASSERT_TRUE(scaled_at.has_value());
  EXPECT_GE(*scaled_at, 14);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);
}

// The operator's default configuration carries job.autoscaler.defaults: trimtab
// (cli/autoscaler_factory.h): such a job gets trimtab's option values from the decision core and
// trimtab's default plugins before the configured chain; a job with upstream's defaults runs the
// configured chain alone.
TEST_F(OperatorAutoscalerTest, TrimtabDefaultsBringTheirOptionsAndPlugins) {
  conf_ = {{"job.autoscaler.enabled", "true"}, {"job.autoscaler.defaults", "trimtab"}};
  Start();
  EXPECT_EQ(autoscaler_->DescribeChain(), "scale-guard(999000) -> queue-capacity(1000000)");
  EXPECT_EQ(autoscaler_->DescribeTrimtabChain(),
            "restart-cost-gate(0) -> scale-guard(999000) -> queue-capacity(1000000)");
  // trimtab's 10-minute metric window (upstream: 15) after its 2-minute stabilization (5).
  for (int m = 2; m <= 3; ++m) ScaleAt(minutes(m));
  AutoscalerOutcome out = ScaleAt(minutes(4));
  EXPECT_THAT(out.skipped_reason, HasSubstr("metric window not full until 2024-05-01T09:12:00Z"));

  // A configured restart-cost-gate stands in for the default one.
  Start({{"plugins", {{{"type", "restart-cost-gate"}, {"priority", 7}}}}});
  EXPECT_EQ(autoscaler_->DescribeTrimtabChain(),
            "restart-cost-gate(7) -> scale-guard(999000) -> queue-capacity(1000000)");
}

TEST_F(OperatorAutoscalerTest, WebhookVetoIsRecordedAndNothingScales) {
  std::atomic<int> calls{0};
  auto hook = http::HttpServer::Create({.port = 0}, [&calls](const http::HttpRequest& req) {
    ++calls;
    Json body = Json::parse(req.body, nullptr, false);
    EXPECT_EQ(body["context"]["jobKey"], "team/orders");
    EXPECT_EQ(body["summaries"][kSrc]["newParallelism"], 4);
    return http::HttpResponse::Json(200,
                                    Json{{"verdict", "veto"}, {"reason", "change freeze"}}.dump());
  });
  ASSERT_TRUE(hook.ok());
  Start({{"plugins",
          {{{"type", "webhook"},
            {"priority", 5},
            {"config", {{"url", (*hook)->base_url() + "/scale"}}}}}}});
  EXPECT_EQ(autoscaler_->DescribeChain(), "webhook(5) -> scale-guard(999000) -> queue-capacity(1000000)");
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  AutoscalerOutcome out = ScaleAt(minutes(4));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(out.scaled);
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_EQ(out.skipped_reason, "");  // the cycle decided: the plugin said no
  EXPECT_EQ(out.decision_log["outcome"], "Blocked");
  EXPECT_EQ(out.decision_log["chain"]["vetoed"], true);
  EXPECT_EQ(out.decision_log["chain"]["vetoedBy"], "webhook");
  EXPECT_EQ(out.decision_log["chain"]["reason"], "change freeze");
  EXPECT_THAT(out.decision_log["vertices"][kSrc]["reasons"].dump(),
              HasSubstr("vetoed by plugin webhook: change freeze"));
  EXPECT_TRUE(EventsWithReason("ScalingReport").empty());

  // Vetoed again a minute later: the same Event, counted twice.
  out = ScaleAt(minutes(5));
  EXPECT_FALSE(out.scaled);
  std::vector<Json> vetoes = EventsWithReason("ScalingVetoed");
  ASSERT_EQ(vetoes.size(), 1u);
  EXPECT_EQ(vetoes[0]["type"], "Warning");
  EXPECT_EQ(vetoes[0]["message"], "Scaling vetoed by plugin webhook: change freeze");
  EXPECT_EQ(vetoes[0]["count"], 2);
  EXPECT_EQ(Metric("trimtab_autoscaler_vetoes_total",
                   {"team", "orders", "FlinkDeployment", "webhook"}),
            2);
  EXPECT_EQ(Metric("trimtab_autoscaler_decisions_total",
                   {"team", "orders", "FlinkDeployment", "Vetoed"}),
            2);
  (*hook)->Stop();
}

TEST_F(OperatorAutoscalerTest, RepeatedVetoesOfTheSameChangeAreOneEventWhateverTheirNumbers) {
  // A gate's reason carries numbers that move every cycle (a backlog, a rate). Vetoing the same
  // change every minute must count up one Event, not create one per minute.
  std::atomic<int> calls{0};
  auto hook = http::HttpServer::Create({.port = 0}, [&calls](const http::HttpRequest&) {
    const int n = ++calls;
    return http::HttpResponse::Json(
        200, Json{{"verdict", "veto"}, {"reason", "backlog " + std::to_string(10 * n) + " s"}}
                 .dump());
  });
  ASSERT_TRUE(hook.ok());
  Start({{"plugins", {{{"type", "webhook"}, {"config", {{"url", (*hook)->base_url() + "/v"}}}}}}});
  for (int m = 1; m <= 6; ++m) ScaleAt(minutes(m));
  ASSERT_EQ(calls.load(), 3);  // minutes 4, 5 and 6 decided; each proposed src 2 -> 4
  std::vector<Json> vetoes = EventsWithReason("ScalingVetoed");
  ASSERT_EQ(vetoes.size(), 1u);
  EXPECT_EQ(vetoes[0]["count"], 3);
  EXPECT_EQ(vetoes[0]["message"], "Scaling vetoed by plugin webhook: backlog 30 s");
  (*hook)->Stop();
}

TEST_F(OperatorAutoscalerTest, BuiltInPluginVetoReadsACustomMetricOverRest) {
  Start({{"plugins", {{{"type", "resource-gate"}, {"config", {{"cpuThreshold", 0.6}}}}}}});
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  AutoscalerOutcome out = ScaleAt(minutes(4));
  EXPECT_FALSE(out.scaled);
  EXPECT_EQ(out.decision_log["chain"]["vetoedBy"], "resource-gate");
  EXPECT_EQ(out.decision_log["chain"]["reason"], "TaskManager CPU 0.20 is below threshold 0.60");
  EXPECT_GE(flink_->CountRequests("/taskmanagers/metrics"), 4);
  ASSERT_EQ(EventsWithReason("ScalingVetoed").size(), 1u);

  // Busy TaskManagers: the gate approves.
  flink_->SetTaskManagerMetrics({{"Status.JVM.CPU.Load", {.min = 0.8, .max = 0.9, .avg = 0.95}}});
  for (int m = 5; m <= 10 && !out.scaled; ++m) out = ScaleAt(minutes(m));
  EXPECT_TRUE(out.scaled);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);
}

TEST_F(OperatorAutoscalerTest, AWebhookReadsThePrometheusMetricItDeclared) {
  // The consumer lag of the job's consumer group, from Prometheus, in every request to the
  // webhook; it vetoes while the lag is small.
  std::mutex mu;
  std::vector<std::string> queries;
  auto prometheus = http::HttpServer::Create({.port = 0}, [&](const http::HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    queries.push_back(req.Query("query") ? *req.Query("query") : "");
    return http::HttpResponse::Json(
        200, R"({"status":"success","data":{"resultType":"vector","result":[
                {"metric":{"partition":"0"},"value":[1700000000,"1000"]},
                {"metric":{"partition":"1"},"value":[1700000000,"234"]}]}})");
  });
  ASSERT_TRUE(prometheus.ok());
  std::vector<Json> seen;
  auto hook = http::HttpServer::Create({.port = 0}, [&](const http::HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(Json::parse(req.body, nullptr, false));
    return http::HttpResponse::Json(200, Json{{"verdict", "veto"}, {"reason", "lag is small"}}.dump());
  });
  ASSERT_TRUE(hook.ok());
  const Json chain = {{"plugins",
                       {{{"type", "webhook"},
                         {"config",
                          {{"url", (*hook)->base_url() + "/scale"},
                           {"metrics",
                            {{{"name", "KAFKA_LAG"},
                              {"scope", "job"},
                              {"source", "prometheus"},
                              {"query", R"(sum(kafka_consumergroup_lag{consumergroup="{{name}}"}))"},
                              {"aggregation", "sum"}}}}}}}}}};
  Start(chain, (*prometheus)->base_url());
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  AutoscalerOutcome out = ScaleAt(minutes(4));
  EXPECT_FALSE(out.scaled);
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(queries.size(), 4u);  // once a cycle
    EXPECT_EQ(queries[0], R"(sum(kafka_consumergroup_lag{consumergroup="orders"}))");
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0]["context"]["metrics"]["global"]["KAFKA_LAG"]["current"], 1234);
  }

  // Without a Prometheus the metric has no value, and the decision log says how to get one.
  Start(chain);
  out = ScaleAt(minutes(5));
  EXPECT_THAT(out.decision_log["stages"]["collect"].dump(), HasSubstr("--prometheus-url"));
  (*hook)->Stop();
  (*prometheus)->Stop();
}

TEST_F(OperatorAutoscalerTest, RestErrorsNeverScale) {
  Start();
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  flink_->FailNext("/jobs/" + kJob, 500);
  AutoscalerOutcome out = ScaleAt(minutes(4));
  EXPECT_FALSE(out.scaled);
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_EQ(out.skipped_reason,
            "Flink REST GET /jobs/" + kJob + " (" + flink_->base_url() +
                "): HTTP 500: Internal server error.");
  EXPECT_EQ(out.decision_log["outcome"], "Skipped");
  std::vector<Json> errors = EventsWithReason("AutoscalerError");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["type"], "Warning");
  EXPECT_EQ(autoscaler_->Counters("team", "orders").errors, 1);

  // Recovered: the next pass decides.
  out = ScaleAt(minutes(5));
  EXPECT_TRUE(out.scaled);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);

  // Later faults keep the stored overrides.
  flink_->FailNext("/jobs/" + kJob + "/vertices/", 503);
  out = ScaleAt(minutes(6));
  EXPECT_FALSE(out.scaled);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);
  EXPECT_THAT(out.skipped_reason, HasSubstr("HTTP 503"));
}

TEST_F(OperatorAutoscalerTest, RestTimeoutNeverScales) {
  conf_["job.autoscaler.flink.rest-client.timeout"] = "300 ms";
  Start();
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  flink_->Hang("/jobs/" + kJob + "/vertices/");
  AutoscalerOutcome out = ScaleAt(minutes(4));
  flink_->Release();
  EXPECT_FALSE(out.scaled);
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_THAT(out.skipped_reason, HasSubstr("Flink REST GET /jobs/" + kJob + "/vertices/"));
  out = ScaleAt(minutes(5));
  EXPECT_TRUE(out.scaled);
}

TEST_F(OperatorAutoscalerTest, ConflictOnTheStateConfigMapSkipsTheCycle) {
  Start();
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  // Someone else writes the ConfigMap between two passes (a second operator, kubectl edit).
  Json cm = *StateConfigMap();
  cm["metadata"]["annotations"]["edited-by"] = "someone";
  ASSERT_TRUE(kube_->Update(kube::ConfigMapsResource(), cm).ok());

  AutoscalerOutcome out = ScaleAt(minutes(4));
  EXPECT_FALSE(out.scaled);
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_THAT(out.skipped_reason,
              HasSubstr("the autoscaler state changed concurrently, cycle skipped"));
  EXPECT_TRUE(EventsWithReason("ScalingReport").empty());  // a skipped cycle reports nothing
  Json stored = *StateConfigMap();
  EXPECT_EQ(stored["metadata"]["annotations"]["edited-by"], "someone");
  EXPECT_FALSE(stored["data"].contains("parallelismOverrides"));

  // The next pass re-reads the ConfigMap and decides on top of it.
  out = ScaleAt(minutes(5));
  EXPECT_TRUE(out.scaled);
  stored = *StateConfigMap();
  EXPECT_EQ(stored["metadata"]["annotations"]["edited-by"], "someone");
  EXPECT_EQ(stored["data"]["parallelismOverrides"], kSrc + ":4," + kSink + ":2");
}

TEST_F(OperatorAutoscalerTest, MissingMetricsNeverScale) {
  Start();
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  clock_.Set(kT0 + minutes(4));
  SetLoad({});
  flink_->UpdateJob(
      [](FakeFlinkJob& job) { job.vertices[1].metrics.erase("busyTimeMsPerSecond"); });
  auto out = autoscaler_->Scale(Context());
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->scaled);
  EXPECT_EQ(out->skipped_reason, "missing metrics: vertex " + kSink +
                                     " (Sink: Writer): busyTimeMsPerSecond (listed, but no value)");
  EXPECT_TRUE(EventsWithReason("AutoscalerError").empty());  // not ready yet, not an error
  // Still missing after the stabilization interval (1 min): an error.
  clock_.Set(kT0 + minutes(5));
  out = autoscaler_->Scale(Context());
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->scaled);
  // The names were discovered again: busy time is not even listed any more.
  EXPECT_EQ(out->skipped_reason,
            "missing metrics: vertex " + kSink + " (Sink: Writer): busyTimeMsPerSecond");
  std::vector<Json> errors = EventsWithReason("AutoscalerError");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0]["message"].get<std::string>(),
              HasSubstr("Metrics are still missing after the stabilization interval"));
}

TEST_F(OperatorAutoscalerTest, JobNotRunningKeepsOverridesAndDropsTheEvaluation) {
  Start();
  for (int m = 1; m <= 4; ++m) ScaleAt(minutes(m));
  ASSERT_TRUE(autoscaler_->LastEvaluation("team", "orders").has_value());
  AutoscalerJobContext c = Context();
  c.job_status = "RESTARTING";
  const int requests = flink_->CountRequests("/");
  auto out = autoscaler_->Scale(c);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->scaled);
  EXPECT_EQ(out->skipped_reason, "job is not RUNNING (status RESTARTING)");
  EXPECT_EQ(out->parallelism_overrides.at(kSrc), 4);
  EXPECT_FALSE(autoscaler_->LastEvaluation("team", "orders").has_value());
  EXPECT_EQ(flink_->CountRequests("/"), requests);  // no REST call

  // The REST API may know better than the observed status.
  flink_->UpdateJob([](FakeFlinkJob& job) { job.state = "RESTARTING"; });
  out = autoscaler_->Scale(Context());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->skipped_reason, "job is not RUNNING (status RESTARTING on the REST API)");
  EXPECT_EQ(out->parallelism_overrides.at(kSrc), 4);
}

// Issue 28: a scaling the cluster cannot schedule goes back to the last running parallelism.
TEST_F(OperatorAutoscalerTest, UnschedulableScalingIsRevertedToTheLastRunningParallelism) {
  conf_["job.autoscaler.unschedulable.revert-after"] = "3 min";
  Start();
  for (int m = 1; m <= 4; ++m) ScaleAt(minutes(m));  // 2 -> 4 decided at minute 4
  AutoscalerJobContext c = Context();
  c.job_status = "CREATED";
  clock_.Set(kT0 + minutes(6));
  auto early = autoscaler_->RevertUnschedulable(c);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_FALSE(early->scaled);
  EXPECT_EQ(early->skipped_reason,
            "the job has not run for 2 min since the last scaling; reverting after 3 min");
  EXPECT_EQ(early->parallelism_overrides.at(kSrc), 4);

  clock_.Set(kT0 + minutes(7));
  auto reverted = autoscaler_->RevertUnschedulable(c);
  ASSERT_TRUE(reverted.ok()) << reverted.status().ToString();
  EXPECT_TRUE(reverted->scaled);
  EXPECT_EQ(reverted->parallelism_overrides, (std::map<std::string, int>{{kSrc, 2}, {kSink, 2}}));
  EXPECT_EQ(reverted->decision_log["outcome"], "Reverted");
  EXPECT_THAT(reverted->decision_log["reason"].get<std::string>(),
              HasSubstr("(Source: Kafka Source 4 -> 2): the job has not run for 3 min and pods of "
                        "its cluster cannot be scheduled"));
  std::vector<Json> events = EventsWithReason("ScalingReverted");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "Warning");
  auto cm = StateConfigMap();
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ((*cm)["data"]["parallelismOverrides"], kSrc + ":2," + kSink + ":2");

  // Nothing left to revert; a restarted autoscaler reads the reverted state.
  auto again = autoscaler_->RevertUnschedulable(c);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->scaled);
  EXPECT_EQ(again->skipped_reason, "no scaling waits to run");
  Start();
  auto restarted = autoscaler_->RevertUnschedulable(c);
  ASSERT_TRUE(restarted.ok());
  EXPECT_FALSE(restarted->scaled);
  EXPECT_EQ(restarted->parallelism_overrides.at(kSrc), 2);
}

// Issue 28: the default chain holds a scale-guard, so one decision cannot jump far.
TEST_F(OperatorAutoscalerTest, DefaultChainLimitsAJumpAndSaysWhy) {
  Start();
  EXPECT_EQ(autoscaler_->DescribeChain(), "scale-guard(999000) -> queue-capacity(1000000)");
  // A backlog of 10^8 records to catch up within a minute at 1000 records/s: the algorithm asks
  // for the maximum parallelism, far more than 4x.
  conf_["job.autoscaler.catch-up.duration"] = "1 min";
  auto scale_with_backlog = [&](int m) {
    clock_.Set(kT0 + minutes(m));
    SetLoad({.source_busy = 1000});
    flink_->UpdateJob([](FakeFlinkJob& job) {
      job.vertices[0].metrics["Source__Kafka_Source.pendingRecords"] = Uniform(5e7, 2);
    });
    auto r = autoscaler_->Scale(Context());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AutoscalerOutcome{};
  };
  for (int m = 1; m <= 3; ++m) scale_with_backlog(m);
  AutoscalerOutcome out = scale_with_backlog(4);
  ASSERT_TRUE(out.scaled) << out.decision_log.dump(2);
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 8);
  EXPECT_GT(out.decision_log["vertices"][kSrc]["proposedParallelism"].get<int>(), 8);
  EXPECT_THAT(out.decision_log["chain"].dump(), HasSubstr("limited to 8 (4.0x the running parallelism)"));
}

TEST_F(OperatorAutoscalerTest, DisablingClearsTheStateSoOverridesDisappear) {
  Start();
  for (int m = 1; m <= 4; ++m) ScaleAt(minutes(m));
  ASSERT_TRUE(StateConfigMap().ok());
  conf_["job.autoscaler.enabled"] = "false";
  AutoscalerOutcome out = ScaleAt(minutes(5));
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_FALSE(out.scaled);
  EXPECT_THAT(out.skipped_reason, HasSubstr("job.autoscaler.enabled is false"));
  EXPECT_EQ(StateConfigMap().status().code(), StatusCode::kNotFound);

  // Enabled again: it starts from scratch.
  conf_["job.autoscaler.enabled"] = "true";
  out = ScaleAt(minutes(6));
  EXPECT_TRUE(out.parallelism_overrides.empty());
  EXPECT_EQ(out.skipped_reason, "not enough samples to evaluate: need 2, have 1");
}

TEST_F(OperatorAutoscalerTest, InvalidConfigurationIsAnErrorEventNotAScaling) {
  Start();
  conf_["job.autoscaler.utilization.target"] = "1.5";
  AutoscalerOutcome out = ScaleAt(minutes(1));
  EXPECT_FALSE(out.scaled);
  EXPECT_THAT(out.skipped_reason, HasSubstr("invalid autoscaler configuration: "));
  EXPECT_THAT(out.skipped_reason, HasSubstr("job.autoscaler.utilization.target"));
  EXPECT_EQ(EventsWithReason("AutoscalerError").size(), 1u);
}

// What the reconciler's realizer needs from the options comes typed with the outcome (issue 24):
// no layer after the autoscaler reads vertex.exclude.ids or memory.tuning.enabled again.
TEST_F(OperatorAutoscalerTest, TheOutcomeCarriesTheExcludedVerticesAndMemoryTuning) {
  Start();
  conf_["kubernetes.operator.job.autoscaler.vertex.exclude.ids"] = kSink;
  conf_["job.autoscaler.memory.tuning.enabled"] = "true";
  AutoscalerOutcome out = ScaleAt(minutes(1));
  EXPECT_EQ(out.excluded_vertices, (std::set<std::string>{kSink}));
  EXPECT_TRUE(out.memory_tuning_enabled);
  for (int m = 2; m <= 4; ++m) out = ScaleAt(minutes(m));
  EXPECT_EQ(out.excluded_vertices, (std::set<std::string>{kSink}));
  EXPECT_THAT(out.decision_log["vertices"][kSink].dump(),
              HasSubstr("excluded by job.autoscaler.vertex.exclude.ids"));

  conf_["job.autoscaler.utilization.target"] = "1.5";  // invalid: the options are unknown
  out = ScaleAt(minutes(5));
  EXPECT_TRUE(out.excluded_vertices.empty());
  EXPECT_FALSE(out.memory_tuning_enabled);
}

TEST_F(OperatorAutoscalerTest, CleanupRemovesTheState) {
  Start();
  for (int m = 1; m <= 4; ++m) ScaleAt(minutes(m));
  ASSERT_TRUE(autoscaler_->Cleanup("team", "orders").ok());
  EXPECT_EQ(StateConfigMap().status().code(), StatusCode::kNotFound);
  EXPECT_EQ(autoscaler_->Counters("team", "orders").scalings, 0);
}

// An in-memory store whose reads or flushes can be made to fail.
class FlakyStore final : public core::AutoscalerStateStore {
 public:
  Status Put(const std::string& k, core::StateType t, const Json& v) override {
    return store_.Put(k, t, v);
  }
  Status Get(const std::string& k, core::StateType t, Json* out) override {
    if (fail_reads) return UnavailableError("store unreachable");
    return store_.Get(k, t, out);
  }
  Status Remove(const std::string& k, core::StateType t) override { return store_.Remove(k, t); }
  Status ClearAll(const std::string& k) override { return store_.ClearAll(k); }
  Status Flush(const std::string& k) override {
    if (fail_flush) return UnavailableError("store unreachable");
    return store_.Flush(k);
  }
  StatusOr<std::vector<std::string>> ListJobKeys() override { return store_.ListJobKeys(); }

  bool fail_reads = false;
  bool fail_flush = false;

 private:
  adapters::InMemoryStateStore store_;
};

TEST_F(OperatorAutoscalerTest, UnreadableStateNeverDropsKnownOverrides) {
  FlakyStore store;
  core::InMemoryEventHandler events(&clock_);
  auto a = OperatorAutoscaler::Create(
      {.state_store = &store, .event_handler = &events, .clock = &clock_});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  autoscaler_ = std::move(a).value();

  // Never read: the stored overrides are unknown, so Scale fails instead of returning none.
  store.fail_reads = true;
  clock_.Set(kT0 + minutes(1));
  SetLoad({});
  auto failed = autoscaler_->Scale(Context());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(failed.status().message(), HasSubstr("the parallelism overrides are unknown"));

  store.fail_reads = false;
  for (int m = 1; m <= 3; ++m) ScaleAt(minutes(m));
  ASSERT_TRUE(ScaleAt(minutes(4)).scaled);
  ASSERT_EQ(events.EventsWithReason("ScalingReport").size(), 1u);  // the handler given

  // A failed write skips the pass; a failed re-read keeps the last known overrides.
  store.fail_flush = true;
  AutoscalerOutcome out = ScaleAt(minutes(5));
  EXPECT_FALSE(out.scaled);
  EXPECT_THAT(out.skipped_reason, HasSubstr("cannot write the autoscaler state, cycle skipped"));
  EXPECT_EQ(out.decision_log["outcome"], "Skipped");
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);
  store.fail_flush = false;
  store.fail_reads = true;
  out = ScaleAt(minutes(6));
  EXPECT_THAT(out.skipped_reason, HasSubstr("cannot read the autoscaler state: "));
  EXPECT_EQ(out.parallelism_overrides.at(kSrc), 4);
}

TEST_F(OperatorAutoscalerTest, ChainConfigurationErrorsNameThePlugin) {
  auto a =
      OperatorAutoscaler::Create({.kube = kube_.get(),
                                  .clock = &clock_,
                                  .executor_chain = {{"plugins", {{{"type", "no-such-plugin"}}}}}});
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(),
              HasSubstr("operator autoscaler: executor chain: unknown executor plugin type "
                        "\"no-such-plugin\""));
  EXPECT_EQ(OperatorAutoscaler::Create({}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trimtab::op
