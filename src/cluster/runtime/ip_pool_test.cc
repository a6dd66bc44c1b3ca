#include "cluster/runtime/ip_pool.h"

#include <set>

#include <gtest/gtest.h>

namespace trimtab::cluster::runtime {
namespace {

TEST(PodIpPoolTest, HandsOutUniqueAddressesRoundRobin) {
  PodIpPool pool(*Ipv4Range::Parse("127.20.5.0/29"));  // .2 .. .6 usable
  std::set<std::string> seen;
  for (int i = 0; i < 5; ++i) {
    auto ip = pool.Allocate();
    ASSERT_TRUE(ip.has_value());
    EXPECT_TRUE(seen.insert(*ip).second) << *ip;
  }
  EXPECT_EQ(seen.count("127.20.5.0") + seen.count("127.20.5.1") + seen.count("127.20.5.7"), 0u);
  EXPECT_FALSE(pool.Allocate().has_value());
  pool.Release("127.20.5.3");
  EXPECT_EQ(pool.Allocate(), "127.20.5.3");
  pool.Release("127.20.5.4");
  EXPECT_FALSE(pool.Reserve("127.20.5.5"));  // taken
  EXPECT_TRUE(pool.Reserve("127.20.5.4"));
  EXPECT_FALSE(pool.Reserve("127.20.6.4"));  // outside
  EXPECT_EQ(pool.InUse(), 5u);
}

}  // namespace
}  // namespace trimtab::cluster::runtime
