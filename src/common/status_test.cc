#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace trimtab {
namespace {

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = ConflictError("resourceVersion 7 is stale");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.ToString(), "CONFLICT: resourceVersion 7 is stale");
  EXPECT_EQ(s.WithContext("update pods/p1").message(), "update pods/p1: resourceVersion 7 is stale");
  EXPECT_TRUE(Status().WithContext("anything").ok());
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd");
  return x / 2;
}

Status Quarter(int x, int* out) {
  TRIMTAB_ASSIGN_OR_RETURN(int h, Half(x));
  TRIMTAB_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::Ok();
}

TEST(StatusOrTest, ValueAndError) {
  StatusOr<int> v = Half(8);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 4);
  StatusOr<int> e = Half(3);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(e.value_or(-1), -1);
}

TEST(StatusOrTest, MacrosPropagate) {
  int out = 0;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  EXPECT_EQ(Quarter(6, &out).code(), StatusCode::kInvalidArgument);
}

TEST(StatusOrTest, MoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> p = std::make_unique<int>(5);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> owned = std::move(p).value();
  EXPECT_EQ(*owned, 5);
}

}  // namespace
}  // namespace trimtab
