// PodIpPool: the pod IPs of one node, handed out from its podCIDR like a CNI IPAM plugin:
// round robin (a freed address is not reused at once), never the network, gateway (.1 of the
// range) or broadcast address.
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "cluster/apiserver/ipv4.h"

namespace trimtab::cluster::runtime {

class PodIpPool {
 public:
  explicit PodIpPool(Ipv4Range cidr) : cidr_(cidr), next_(cidr.network() + 2) {}

  // The next free address; nullopt when the range is exhausted.
  std::optional<std::string> Allocate();
  // Takes a specific address (a pod that had it before a restart); false when it is outside the
  // range, reserved or taken.
  bool Reserve(const std::string& ip);
  void Release(const std::string& ip);
  size_t InUse() const;
  const Ipv4Range& cidr() const { return cidr_; }

 private:
  bool Usable(uint32_t address) const;

  const Ipv4Range cidr_;
  mutable std::mutex mu_;
  std::set<uint32_t> used_;  // guarded by mu_
  uint32_t next_;            // guarded by mu_
};

}  // namespace trimtab::cluster::runtime
