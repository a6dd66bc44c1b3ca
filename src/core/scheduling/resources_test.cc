#include "core/scheduling/resources.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling {
namespace {

Resources Parse(const char* json, ResourceNameTable* names) {
  Resources r;
  Status st = ResourcesFromJson(Json::parse(json), "r", names, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

TEST(ResourcesTest, UnitsFollowVolcano) {
  ResourceNameTable names;
  Resources r = Parse(R"({"cpu": "1500m", "memory": "1Gi", "pods": "3", "nvidia.com/gpu": 2})",
                      &names);
  EXPECT_EQ(r[kCpu], 1500);
  EXPECT_EQ(r[kMemory], 1073741824.0);
  EXPECT_EQ(r[kPods], 3);
  int gpu = names.Find("nvidia.com/gpu");
  ASSERT_EQ(gpu, 3);
  EXPECT_EQ(r[gpu], 2000);  // scalars in milli-units
}

TEST(ResourcesTest, CountQuotaIsSkippedAndBadQuantityNamesTheField) {
  ResourceNameTable names;
  Resources r = Parse(R"({"count/pods": "3"})", &names);
  EXPECT_EQ(names.size(), 3);
  Status st = ResourcesFromJson(Json::parse(R"({"cpu": "lots"})"), "spec.capability", &names, &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.capability.cpu"), std::string::npos) << st.message();
}

TEST(ResourcesTest, LessEqualHasTolerance) {
  Resources a, b;
  a[kCpu] = 1000.05;
  b[kCpu] = 1000;
  EXPECT_TRUE(a.LessEqual(b));
  a[kCpu] = 1000.2;
  EXPECT_FALSE(a.LessEqual(b));
}

TEST(ResourcesTest, LessEqualOnRequestedLooksOnlyAtRequestedDimsAndIgnoresPods) {
  ResourceNameTable names;
  Resources used, limit, req;
  used[kCpu] = 5000;
  used[kMemory] = 10;
  used[kPods] = 100;
  limit[kCpu] = 4000;
  limit[kMemory] = 100;
  req[kMemory] = 1;
  req[kPods] = 1;
  EXPECT_TRUE(used.LessEqualOnRequested(limit, req, names));
  req[kCpu] = 1;
  std::vector<std::string> failed;
  EXPECT_FALSE(used.LessEqualOnRequested(limit, req, names, &failed));
  EXPECT_EQ(failed, std::vector<std::string>{"cpu"});
}

TEST(ResourcesTest, IsEmptyIgnoresPods) {
  Resources r;
  r[kPods] = 1;
  EXPECT_TRUE(r.IsEmpty());
  r[kMemory] = 1;
  EXPECT_FALSE(r.IsEmpty());
}

TEST(ResourcesTest, MinDimensionKeepsUnlimited) {
  Resources r;
  r[kCpu] = 10;
  r[kMemory] = 10;
  Resources cap = Resources::Unlimited();
  cap[kCpu] = 4;
  r.MinDimension(cap);
  EXPECT_EQ(r[kCpu], 4);
  EXPECT_EQ(r[kMemory], 10);
}

TEST(ResourcesTest, ToJsonWritesQuantities) {
  ResourceNameTable names;
  Resources r = Parse(R"({"cpu": "1500m", "memory": "2Gi", "pods": 2})", &names);
  Json j = ResourcesToJson(r, names);
  EXPECT_EQ(j["cpu"], "1500m");
  EXPECT_EQ(j["memory"], "2Gi");
  EXPECT_EQ(j["pods"], "2");
}

}  // namespace
}  // namespace trimtab::core::scheduling
