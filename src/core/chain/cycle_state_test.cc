#include "core/chain/cycle_state.h"

#include <gtest/gtest.h>

namespace trimtab::core {
namespace {

struct Counter final : CycleStateData {
  explicit Counter(int v) : value(v) {}
  int value;
  std::unique_ptr<CycleStateData> Clone() const override {
    return std::make_unique<Counter>(*this);
  }
};

struct Other final : CycleStateData {
  std::unique_ptr<CycleStateData> Clone() const override { return std::make_unique<Other>(); }
};

TEST(CycleStateTest, WriteReadDelete) {
  CycleState state;
  EXPECT_EQ(state.ReadRaw("k"), nullptr);
  state.Write("k", std::make_unique<Counter>(3));
  ASSERT_NE(state.Read<Counter>("k"), nullptr);
  EXPECT_EQ(state.Read<Counter>("k")->value, 3);
  EXPECT_EQ(state.Read<Other>("k"), nullptr);  // wrong type
  state.Write("k", std::make_unique<Counter>(4));
  EXPECT_EQ(state.Read<Counter>("k")->value, 4);
  EXPECT_EQ(state.Keys(), std::vector<std::string>{"k"});
  EXPECT_TRUE(state.Delete("k"));
  EXPECT_FALSE(state.Delete("k"));
  EXPECT_TRUE(state.Keys().empty());
}

TEST(CycleStateTest, CloneIsIndependent) {
  CycleState state;
  state.Write("a", std::make_unique<Counter>(1));
  CycleState copy = state.Clone();
  copy.Write("a", std::make_unique<Counter>(2));
  copy.Write("b", std::make_unique<Counter>(5));
  EXPECT_EQ(state.Read<Counter>("a")->value, 1);
  EXPECT_EQ(state.Read<Counter>("b"), nullptr);
  EXPECT_EQ(copy.Read<Counter>("a")->value, 2);
  EXPECT_NE(state.Read<Counter>("a"), copy.Read<Counter>("a"));
}

}  // namespace
}  // namespace trimtab::core
