// EventRecorder against the local API server: the v1 Event it writes, deduplication within the
// interval (count and lastTimestamp bumped, message replaced), a new Event after the interval or
// without one, identities that differ by key, type or object, and argument errors; the Flink
// operator's naming (one Event per identity); the local cluster's configuration (queued Posts,
// repeats found among its own Events); Posts that fail never reach the caller.
#include "adapters/kube/event_recorder.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver.h"

namespace trimtab::kube {
namespace {

using std::chrono::minutes;

const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

class EventRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = cluster::ApiServer::Create({.port = 0});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = KubeClient::Create({.server = server_->url()}, {});
    ASSERT_TRUE(client.ok());
    client_ = std::move(client).value();
    ASSERT_TRUE(
        client_
            ->Create(
                {.version = "v1", .resource = "namespaces", .namespaced = false}, "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}})
            .ok());
    recorder_ = std::make_unique<EventRecorder>(EventRecorderOptions{
        .client = client_.get(), .clock = &clock_, .reporting_instance = "operator-0"});
  }

  std::vector<Json> Events() const { return *recorder_->EventsFor(job_); }

  ManualClock clock_{kT0};
  std::unique_ptr<cluster::ApiServer> server_;
  std::unique_ptr<KubeClient> client_;
  std::unique_ptr<EventRecorder> recorder_;
  EventObjectReference job_{.api_version = "flink.apache.org/v1beta1",
                            .kind = "FlinkDeployment",
                            .namespace_name = "team",
                            .name = "orders",
                            .uid = "uid-1"};
};

TEST_F(EventRecorderTest, WritesAV1EventAboutTheObject) {
  auto e = recorder_->Record(job_,
                             {.type = "Warning",
                              .reason = "ScalingVetoed",
                              .message = "Scaling vetoed by plugin gate: cpu"},
                             std::nullopt);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 1u);
  const Json& ev = events[0];
  EXPECT_EQ(ev["involvedObject"], (Json{{"apiVersion", "flink.apache.org/v1beta1"},
                                        {"kind", "FlinkDeployment"},
                                        {"namespace", "team"},
                                        {"name", "orders"},
                                        {"uid", "uid-1"}}));
  EXPECT_EQ(ev["type"], "Warning");
  EXPECT_EQ(ev["reason"], "ScalingVetoed");
  EXPECT_EQ(ev["message"], "Scaling vetoed by plugin gate: cpu");
  EXPECT_EQ(ev["source"]["component"], "Operator");
  EXPECT_EQ(ev["reportingComponent"], "trimtab-operator");
  EXPECT_EQ(ev["reportingInstance"], "operator-0");
  EXPECT_EQ(ev["count"], 1);
  EXPECT_EQ(ev["firstTimestamp"], "2024-05-01T09:00:00Z");
  EXPECT_EQ(ev["lastTimestamp"], "2024-05-01T09:00:00Z");
  EXPECT_EQ(ev["metadata"]["name"].get<std::string>().rfind("orders.", 0), 0u);
  EXPECT_EQ(ev["metadata"]["labels"][kEventKeyLabel],
            EventRecorder::IdentityHash(job_, {.type = "Warning",
                                               .reason = "ScalingVetoed",
                                               .message = "Scaling vetoed by plugin gate: cpu"}));
}

TEST_F(EventRecorderTest, RepeatsWithinTheIntervalBumpTheCount) {
  const EventToRecord first{.type = "Normal",
                            .reason = "IneffectiveScaling",
                            .message = "expected 10, actual 1",
                            .key = "ineffective-v1"};
  ASSERT_TRUE(recorder_->Record(job_, first, minutes(30)).ok());
  clock_.Advance(minutes(10));
  EventToRecord again = first;
  again.message = "expected 10, actual 2";  // same key: the same event
  ASSERT_TRUE(recorder_->Record(job_, again, minutes(30)).ok());
  clock_.Advance(minutes(10));
  ASSERT_TRUE(recorder_->Record(job_, again, minutes(30)).ok());
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["count"], 3);
  EXPECT_EQ(events[0]["message"], "expected 10, actual 2");
  EXPECT_EQ(events[0]["firstTimestamp"], "2024-05-01T09:00:00Z");
  EXPECT_EQ(events[0]["lastTimestamp"], "2024-05-01T09:20:00Z");

  // 30 minutes after the last occurrence the interval has passed: a new Event.
  clock_.Advance(minutes(30));
  ASSERT_TRUE(recorder_->Record(job_, again, minutes(30)).ok());
  events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["count"], 1);
  EXPECT_EQ(events[1]["firstTimestamp"], "2024-05-01T09:50:00Z");
  // ... and the next repeat bumps the newest one.
  clock_.Advance(minutes(1));
  ASSERT_TRUE(recorder_->Record(job_, again, minutes(30)).ok());
  events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["count"], 3);
  EXPECT_EQ(events[1]["count"], 2);
}

TEST_F(EventRecorderTest, WithoutAnIntervalEveryEventIsNew) {
  const EventToRecord report{.reason = "ScalingReport", .message = "begin scaling vertices"};
  ASSERT_TRUE(recorder_->Record(job_, report, std::nullopt).ok());
  ASSERT_TRUE(recorder_->Record(job_, report, std::nullopt).ok());  // same instant, new name
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_NE(events[0]["metadata"]["name"], events[1]["metadata"]["name"]);
}

TEST_F(EventRecorderTest, DifferentIdentitiesAreSeparateEvents) {
  ASSERT_TRUE(
      recorder_->Record(job_, {.reason = "MemoryPressure", .message = "a"}, minutes(30)).ok());
  ASSERT_TRUE(
      recorder_->Record(job_, {.reason = "MemoryPressure", .message = "b"}, minutes(30)).ok());
  ASSERT_TRUE(recorder_
                  ->Record(job_, {.type = "Warning", .reason = "MemoryPressure", .message = "a"},
                           minutes(30))
                  .ok());
  EventObjectReference other = job_;
  other.name = "billing";
  other.uid = "uid-2";
  ASSERT_TRUE(
      recorder_->Record(other, {.reason = "MemoryPressure", .message = "a"}, minutes(30)).ok());
  EXPECT_EQ(Events().size(), 3u);
  ASSERT_EQ(recorder_->EventsFor(other)->size(), 1u);
}

TEST_F(EventRecorderTest, ArgumentErrorsNameTheProblem) {
  EventObjectReference nameless = job_;
  nameless.name = "";
  auto r = recorder_->Record(nameless, {.reason = "ScalingReport", .message = "x"}, std::nullopt);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "event ScalingReport: the involved object needs a name");
  r = recorder_->Record(job_, {.message = "x"}, std::nullopt);
  EXPECT_EQ(r.status().message(), "event about FlinkDeployment team/orders: reason is empty");
  // A namespace that does not exist is the API server's error, named with the event.
  EventObjectReference elsewhere = job_;
  elsewhere.namespace_name = "missing";
  r = recorder_->Record(elsewhere, {.reason = "ScalingReport", .message = "x"}, std::nullopt);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("event ScalingReport about FlinkDeployment missing/orders"),
            std::string::npos)
      << r.status().message();
}

TEST_F(EventRecorderTest, ComponentHashNamingKeepsOneEventPerIdentity) {
  EventRecorder operator_events({.client = client_.get(),
                                 .clock = &clock_,
                                 .naming = EventNaming::kComponentHash});
  const EventToRecord vetoed{.type = "Warning",
                             .reason = "ScalingVetoed",
                             .message = "Scaling vetoed by plugin gate: backlog 10 s",
                             .key = "gate src 2->4"};
  auto first = operator_events.Record(job_, vetoed, minutes(30));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // The Flink operator's name: "<component>.<31-bit Java hashCode of key + type + kind + name +
  // uid>".
  int32_t h = 0;
  for (unsigned char c : std::string("gate src 2->4WarningFlinkDeploymentordersuid-1")) {
    h = static_cast<int32_t>(31 * static_cast<uint32_t>(h) + c);
  }
  EXPECT_EQ((*first)["metadata"]["name"], "operator." + std::to_string(h & 0x7fffffff));
  EXPECT_EQ(EventRecorder::ComponentHashName(job_, {.type = "Warning",
                                                    .reason = "ScalingVetoed",
                                                    .key = "gate src 2->4",
                                                    .component = "Operator"}),
            (*first)["metadata"]["name"]);
  // A repeat bumps it, within the interval and after it alike, and replaces the message.
  EventToRecord again = vetoed;
  again.message = "Scaling vetoed by plugin gate: backlog 20 s";
  clock_.Advance(minutes(1));
  ASSERT_TRUE(operator_events.Record(job_, again, minutes(30)).ok());
  clock_.Advance(minutes(45));
  ASSERT_TRUE(operator_events.Record(job_, again, minutes(30)).ok());
  // Posted (the controllers' way) with another component: another Event.
  operator_events.Post(job_, {.type = "Warning",
                              .reason = "ScalingVetoed",
                              .message = "x",
                              .key = "gate src 2->4",
                              .component = "Job"});
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["count"], 3);
  EXPECT_EQ(events[0]["message"], "Scaling vetoed by plugin gate: backlog 20 s");
  EXPECT_EQ(events[0]["lastTimestamp"], "2024-05-01T09:46:00Z");
  EXPECT_EQ(events[1]["source"]["component"], "Job");
  EXPECT_EQ(events[1]["metadata"]["name"].get<std::string>().rfind("job.", 0), 0u);
}

TEST_F(EventRecorderTest, QueuedPostsDeduplicateAmongTheirOwnEventsWithinTheInterval) {
  // The local cluster's configuration: client-go names, a 10 minute window, no list per event.
  EventRecorder cluster_events({.client = client_.get(),
                                .clock = &clock_,
                                .component = "",
                                .reporting_component = "",
                                .dedup_interval = minutes(10),
                                .find_previous_in_api_server = false,
                                .max_queue = 16});
  cluster_events.Start();
  const Json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata",
                     {{"namespace", "team"}, {"name", "orders"}, {"uid", "uid-1"},
                      {"resourceVersion", "7"}}}};
  const EventSource kubelet{.component = "kubelet", .host = "node-1"};
  cluster_events.Record(pod, kubelet, "Warning", "BackOff", "Back-off restarting", "spec.x");
  clock_.Advance(minutes(5));
  cluster_events.Record(pod, kubelet, "Warning", "BackOff", "Back-off restarting", "spec.x");
  cluster_events.Record(pod, kubelet, "Normal", "Pulled", "Pulled", "spec.x");
  clock_.Advance(minutes(11));  // past the window: a new Event
  cluster_events.Record(pod, kubelet, "Warning", "BackOff", "Back-off restarting", "spec.x");
  cluster_events.FlushForTest();
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["reason"], "BackOff");
  EXPECT_EQ(events[0]["count"], 2);
  EXPECT_EQ(events[0]["lastTimestamp"], "2024-05-01T09:05:00Z");
  EXPECT_EQ(events[0]["source"], (Json{{"component", "kubelet"}, {"host", "node-1"}}));
  EXPECT_EQ(events[0]["reportingComponent"], "kubelet");
  EXPECT_EQ(events[0]["reportingInstance"], "node-1");
  EXPECT_EQ(events[0]["involvedObject"]["fieldPath"], "spec.x");
  EXPECT_EQ(events[0]["involvedObject"]["resourceVersion"], "7");
  EXPECT_EQ(events[0]["metadata"]["name"].get<std::string>().rfind("orders.", 0), 0u);
  EXPECT_EQ(events[1]["reason"], "Pulled");
  EXPECT_EQ(events[2]["reason"], "BackOff");
  EXPECT_EQ(events[2]["count"], 1);
  cluster_events.Stop();
}

TEST_F(EventRecorderTest, PostsThatFailNeverReachTheCaller) {
  EventRecorder events({.client = client_.get(), .clock = &clock_});
  EventObjectReference elsewhere = job_;
  elsewhere.namespace_name = "missing";  // the API server refuses: logged, dropped
  events.Post(elsewhere, {.reason = "ScalingReport", .message = "x"});
  EventObjectReference nameless = job_;
  nameless.name = "";
  events.Post(nameless, {.reason = "ScalingReport", .message = "x"});
  events.Post(job_, {.reason = "ScalingReport", .message = "written"});
  std::vector<Json> written = Events();
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0]["message"], "written");
  EventRecorder without_client({.clock = &clock_, .log_events = true});
  without_client.Post(job_, {.reason = "ScalingReport", .message = "only logged"});
}

}  // namespace
}  // namespace trimtab::kube
