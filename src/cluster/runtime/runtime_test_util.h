// Test fixture for the runtime: an in-process ApiServer on 127.0.0.1:0 (in-memory store) and a
// KubeClient to it, plus a Runtime (or single components) started against it, and helpers that
// wait for a condition with a deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "cluster/runtime/runtime.h"

namespace trimtab::cluster::runtime::testing {

// Polls `done` every 10 ms of real time for at most `timeout`.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Advances `clock` by `step` until `done` holds (checking between steps), at most `limit` of
// clock time; gives the cluster 20 ms of real time per step to react (work queues re-read a
// ManualClock every 20 ms).
inline bool AdvanceUntil(ManualClock& clock, Duration step, const std::function<bool()>& done,
                         Duration limit) {
  for (Duration passed{0}; passed <= limit; passed += step) {
    if (Eventually(done, std::chrono::milliseconds(20))) return true;
    clock.Advance(step);
  }
  return Eventually(done, std::chrono::milliseconds(200));
}

// Runs `stop` while another thread keeps `clock` moving, 1 s of clock time every 5 ms of real
// time. A pod being terminated sleeps its grace period on the clock, and Kubelet::Stop waits for
// it: with a ManualClock nobody advances after the test body, that wait would never end (a test
// that stops in the middle of a graceful deletion, e.g. after a failed ASSERT, hung until the
// ctest timeout).
inline void StopWhileAdvancing(ManualClock& clock, const std::function<void()>& stop) {
  std::atomic<bool> stopped{false};
  std::thread ticker([&] {
    while (!stopped.load()) {
      clock.Advance(std::chrono::seconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  stop();
  stopped = true;
  ticker.join();
}

class ClusterTest : public ::testing::Test {
 protected:
  // Starts the API server on `clock` (null = real clock).
  void StartApiServer(Clock* clock) {
    auto server = ApiServer::Create({.port = 0,
                                     .clock = clock,
                                     .gc_period = std::chrono::milliseconds(200),
                                     .lifecycle_period = std::chrono::milliseconds(100)});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    kube::RestConfig config;
    config.server = server_->url();
    auto client = kube::KubeClient::Create(config, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  void StartRuntime(RuntimeOptions options) {
    options.server_url = server_->url();
    auto runtime = Runtime::Create(std::move(options));
    ASSERT_TRUE(runtime.ok()) << runtime.status().ToString();
    runtime_ = std::move(runtime).value();
  }

  void TearDown() override {
    if (runtime_) runtime_->Stop();
    runtime_.reset();
    if (server_) server_->Stop();
  }

  Json Create(const kube::GroupVersionResource& gvr, const Json& object,
              const std::string& ns = "default") {
    auto created = client_->Create(gvr, ns, object);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : Json();
  }
  // The object, or null when it does not exist.
  Json Get(const kube::GroupVersionResource& gvr, const std::string& name,
           const std::string& ns = "default") {
    auto got = client_->Get(gvr, ns, name);
    return got.ok() ? *got : Json();
  }
  std::vector<Json> List(const kube::GroupVersionResource& gvr, const std::string& selector = "",
                         const std::string& ns = "default") {
    auto page = client_->ListPage(gvr, ns, {.label_selector = selector});
    std::vector<Json> out;
    if (page.ok()) {
      for (const Json& item : (*page)["items"]) out.push_back(item);
    }
    return out;
  }
  // Events about the object `name` with `reason`.
  std::vector<Json> Events(const std::string& name, const std::string& reason,
                           const std::string& ns = "default") {
    auto page = client_->ListPage(EventsGvr(), ns,
                                  {.field_selector = "involvedObject.name=" + name + ",reason=" + reason});
    std::vector<Json> out;
    if (page.ok()) {
      for (const Json& item : (*page)["items"]) out.push_back(item);
    }
    return out;
  }

  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<Runtime> runtime_;
};

// A pod with one container, optional command and annotations.
inline Json TestPod(const std::string& name, Json command = Json(), Json annotations = Json::object()) {
  Json container = {{"name", "main"}, {"image", "busybox:1.36"}};
  if (!command.is_null()) container["command"] = command;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"annotations", annotations}, {"labels", {{"app", name}}}}},
          {"spec", {{"containers", Json::array({container})}}}};
}

inline std::string ConditionStatus(const Json& object, const std::string& type) {
  const Json* c = FindCondition(object, type);
  return c ? c->value("status", "") : "";
}

}  // namespace trimtab::cluster::runtime::testing
