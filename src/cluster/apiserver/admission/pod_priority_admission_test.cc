// The Priority admission plugin: the pure resolution (named class, globalDefault, none, refusals)
// and the API server applying it over HTTP with its built-in system classes.
#include "cluster/apiserver/admission/pod_priority_admission.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster {
namespace {

Json Class(const std::string& name, int64_t value, bool global_default = false,
           Json policy = Json()) {
  Json pc = {{"apiVersion", "scheduling.k8s.io/v1"},
             {"kind", "PriorityClass"},
             {"metadata", {{"name", name}}},
             {"value", value},
             {"globalDefault", global_default}};
  if (!policy.is_null()) pc["preemptionPolicy"] = policy;
  return pc;
}

Json Pod(Json spec = Json::object()) {
  spec["containers"] = Json::array({{{"name", "c"}, {"image", "busybox"}}});
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", spec}};
}

TEST(PodPriorityAdmissionTest, NamedClassSetsPriorityAndPolicy) {
  std::vector<Json> classes = {Class("high", 1000, false, "Never"), Class("low", 10)};
  Json pod = Pod({{"priorityClassName", "high"}});
  EXPECT_EQ(AdmitPodPriority(classes, &pod), std::nullopt);
  EXPECT_EQ(pod["spec"]["priority"], 1000);
  EXPECT_EQ(pod["spec"]["preemptionPolicy"], "Never");

  Json low = Pod({{"priorityClassName", "low"}});
  EXPECT_EQ(AdmitPodPriority(classes, &low), std::nullopt);
  EXPECT_EQ(low["spec"]["priority"], 10);
  EXPECT_EQ(low["spec"]["preemptionPolicy"], "PreemptLowerPriority");  // class without policy
}

TEST(PodPriorityAdmissionTest, GlobalDefaultWithTheLowestValueAppliesToPodsWithoutAName) {
  std::vector<Json> classes = {Class("a", 500, true), Class("b", 100, true), Class("c", 1)};
  Json pod = Pod();
  EXPECT_EQ(AdmitPodPriority(classes, &pod), std::nullopt);
  EXPECT_EQ(pod["spec"]["priorityClassName"], "b");
  EXPECT_EQ(pod["spec"]["priority"], 100);

  Json none = Pod();
  EXPECT_EQ(AdmitPodPriority({Class("c", 1)}, &none), std::nullopt);
  EXPECT_EQ(none["spec"]["priority"], 0);
  EXPECT_FALSE(none["spec"].contains("priorityClassName"));
  EXPECT_FALSE(none["spec"].contains("preemptionPolicy"));  // defaulted later, not by admission
}

TEST(PodPriorityAdmissionTest, RefusesMissingClassAndConflictingValues) {
  std::vector<Json> classes = {Class("high", 1000)};
  Json missing = Pod({{"priorityClassName", "foo"}});
  EXPECT_EQ(AdmitPodPriority(classes, &missing), "no PriorityClass with name foo was found");

  Json given = Pod({{"priorityClassName", "high"}, {"priority", 7}});
  EXPECT_EQ(AdmitPodPriority(classes, &given),
            "the integer value of priority (7) must not be provided in pod spec; priority "
            "admission controller computed 1000 from the given PriorityClass name");
  Json same = Pod({{"priorityClassName", "high"}, {"priority", 1000}});
  EXPECT_EQ(AdmitPodPriority(classes, &same), std::nullopt);

  Json policy = Pod({{"priorityClassName", "high"}, {"preemptionPolicy", "Never"}});
  EXPECT_EQ(AdmitPodPriority(classes, &policy),
            "the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
            "priority admission controller computed PreemptLowerPriority from the given "
            "PriorityClass name");
}

TEST(PodPriorityAdmissionTest, OnlyOneGlobalDefaultClass) {
  std::vector<Json> classes = {Class("a", 5, true)};
  Json second = Class("b", 6, true);
  EXPECT_EQ(AdmitPriorityClass(classes, &second),
            "PriorityClass a is already marked as default. Only one default can exist");
  Json again = Class("a", 5, true);  // updating the default itself
  EXPECT_EQ(AdmitPriorityClass(classes, &again), std::nullopt);
  EXPECT_EQ(again["preemptionPolicy"], "PreemptLowerPriority");
}

class PriorityAdmissionServerTest : public testing::ApiServerTest {};

TEST_F(PriorityAdmissionServerTest, PodsGetTheirPriorityFromTheClassOverHttp) {
  // The system classes exist from the start.
  auto system = Get("/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical");
  ASSERT_EQ(system.status, 200) << system.raw;
  EXPECT_EQ(system.body["value"], 2000001000);
  ASSERT_EQ(Get("/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical").status, 200);

  ASSERT_EQ(Post("/apis/scheduling.k8s.io/v1/priorityclasses", Class("batch-high", 1000)).status,
            201);
  Json pod = Pod({{"priorityClassName", "batch-high"}});
  auto created = Post("/api/v1/namespaces/default/pods", pod);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["spec"]["priority"], 1000);
  EXPECT_EQ(created.body["spec"]["preemptionPolicy"], "PreemptLowerPriority");

  Json critical = Pod({{"priorityClassName", "system-cluster-critical"}});
  critical["metadata"]["name"] = "critical";
  auto made = Post("/api/v1/namespaces/default/pods", critical);
  ASSERT_EQ(made.status, 201) << made.raw;
  EXPECT_EQ(made.body["spec"]["priority"], 2000000000);

  Json unknown = Pod({{"priorityClassName", "foo"}});
  unknown["metadata"]["name"] = "x";
  auto refused = Post("/api/v1/namespaces/default/pods", unknown);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body["reason"], "Forbidden");
  EXPECT_EQ(refused.body["message"],
            "pods \"x\" is forbidden: no PriorityClass with name foo was found");
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/x").status, 404);  // nothing created

  ASSERT_EQ(Post("/apis/scheduling.k8s.io/v1/priorityclasses", Class("d1", 5, true)).status, 201);
  auto second = Post("/apis/scheduling.k8s.io/v1/priorityclasses", Class("d2", 6, true));
  EXPECT_EQ(second.status, 403) << second.raw;
  Json plain = Pod();
  plain["metadata"]["name"] = "plain";
  auto defaulted = Post("/api/v1/namespaces/default/pods", plain);
  ASSERT_EQ(defaulted.status, 201) << defaulted.raw;
  EXPECT_EQ(defaulted.body["spec"]["priorityClassName"], "d1");
  EXPECT_EQ(defaulted.body["spec"]["priority"], 5);
}

}  // namespace
}  // namespace trimtab::cluster
