#include "common/feature_gates.h"

#include <gtest/gtest.h>

namespace trimtab {
namespace {

TEST(FeatureGatesTest, DefaultsAreKubernetes132s) {
  FeatureGates gates;
  EXPECT_FALSE(gates.Enabled(kHpaScaleToZero));
  EXPECT_FALSE(gates.Enabled("NoSuchGate"));
  EXPECT_EQ(gates.String(), "HPAScaleToZero=false");
}

TEST(FeatureGatesTest, ParsesTheFlag) {
  auto gates = FeatureGates::Parse("HPAScaleToZero=true");
  ASSERT_TRUE(gates.ok()) << gates.status().ToString();
  EXPECT_TRUE(gates->Enabled(kHpaScaleToZero));
  EXPECT_FALSE(FeatureGates::Parse(" HPAScaleToZero = false ,")->Enabled(kHpaScaleToZero));
  EXPECT_TRUE(FeatureGates::Parse("").ok());
}

TEST(FeatureGatesTest, ErrorsAsKubernetesWordsThem) {
  EXPECT_EQ(FeatureGates::Parse("Foo=true").status().message(), "unrecognized feature gate: Foo");
  EXPECT_EQ(FeatureGates::Parse("HPAScaleToZero").status().message(),
            "missing bool value for HPAScaleToZero");
  EXPECT_EQ(FeatureGates::Parse("HPAScaleToZero=maybe").status().message(),
            "invalid value of HPAScaleToZero=maybe, err: strconv.ParseBool: parsing \"maybe\": "
            "invalid syntax");
}

}  // namespace
}  // namespace trimtab
