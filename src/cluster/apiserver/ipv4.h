// IPv4 addresses and CIDR ranges of the local cluster: the Service clusterIP range the API
// server allocates from, the pod network the kubelet hands out pod IPs from and the node
// addresses. Everything lives in 127.0.0.0/8, which Linux routes to loopback as a whole, so any
// of these addresses can be bound without setup.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(Ipv4Range range, Ipv4Range::Parse("127.10.0.0/16"));
//   if (range.Contains(*ParseIpv4("127.10.0.7"))) ...
//   std::string text = FormatIpv4(range.first() + 1);
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace trimtab::cluster {

// Dotted quad -> host-order address; nullopt when not exactly four decimal octets.
std::optional<uint32_t> ParseIpv4(std::string_view text);
std::string FormatIpv4(uint32_t address);

class Ipv4Range {
 public:
  // "a.b.c.d/len" with len in [8, 30]; host bits must be zero ("127.10.0.0/16").
  static StatusOr<Ipv4Range> Parse(std::string_view cidr);
  Ipv4Range() = default;
  Ipv4Range(uint32_t network, int prefix_length);

  uint32_t network() const { return network_; }
  int prefix_length() const { return prefix_length_; }
  // Number of addresses, network and broadcast addresses included.
  uint64_t size() const { return uint64_t{1} << (32 - prefix_length_); }
  uint32_t broadcast() const { return network_ + static_cast<uint32_t>(size() - 1); }
  bool Contains(uint32_t address) const {
    return address >= network_ && address <= broadcast();
  }
  // True when the two ranges share an address.
  bool Overlaps(const Ipv4Range& other) const {
    return network_ <= other.broadcast() && other.network_ <= broadcast();
  }
  // The i-th sub-range of length `prefix_length` (i counted from 0); nullopt when out of range.
  std::optional<Ipv4Range> Subnet(int prefix_length, uint64_t index) const;
  // "127.10.0.0/16".
  std::string String() const;

 private:
  uint32_t network_ = 0;
  int prefix_length_ = 32;
};

// 127.0.0.1, the address everything else listens on; never handed out.
inline constexpr uint32_t kLoopbackAddress = 0x7f000001;

}  // namespace trimtab::cluster
