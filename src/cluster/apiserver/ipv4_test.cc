#include "cluster/apiserver/ipv4.h"

#include <gtest/gtest.h>

namespace trimtab::cluster {
namespace {

TEST(Ipv4Test, ParsesAndFormatsDottedQuads) {
  EXPECT_EQ(ParseIpv4("127.10.0.1"), 0x7f0a0001u);
  EXPECT_EQ(FormatIpv4(0x7f0a0001u), "127.10.0.1");
  for (const char* bad : {"", "127.0.0", "127.0.0.1.2", "256.0.0.1", "1.2.3.04", "a.b.c.d",
                          "1..2.3", "1.2.3.4 "}) {
    EXPECT_FALSE(ParseIpv4(bad).has_value()) << bad;
  }
}

TEST(Ipv4Test, RangesAndSubnets) {
  auto range = Ipv4Range::Parse("127.20.0.0/16");
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(range->size(), 65536u);
  EXPECT_TRUE(range->Contains(*ParseIpv4("127.20.255.255")));
  EXPECT_FALSE(range->Contains(*ParseIpv4("127.21.0.0")));
  auto third = range->Subnet(24, 3);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->String(), "127.20.3.0/24");
  EXPECT_FALSE(range->Subnet(24, 256).has_value());
  EXPECT_TRUE(range->Overlaps(*Ipv4Range::Parse("127.20.7.0/24")));
  EXPECT_FALSE(range->Overlaps(*Ipv4Range::Parse("127.10.0.0/16")));
}

TEST(Ipv4Test, RejectsBadRangesWithTheReason) {
  auto host_bits = Ipv4Range::Parse("127.10.0.1/16");
  ASSERT_FALSE(host_bits.ok());
  EXPECT_NE(host_bits.status().message().find("did you mean 127.10.0.0/16"), std::string::npos);
  EXPECT_FALSE(Ipv4Range::Parse("127.10.0.0").ok());
  EXPECT_FALSE(Ipv4Range::Parse("127.10.0.0/31").ok());
  EXPECT_FALSE(Ipv4Range::Parse("127.10.0.0/x").ok());
}

}  // namespace
}  // namespace trimtab::cluster
