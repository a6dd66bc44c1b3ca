// ClusterIpAllocator: Service clusterIP allocation of the local API server, as the
// kube-apiserver's service REST storage does it at create time.
//
//   create   no clusterIP (or "")   -> the next free address of the range (round robin)
//            clusterIP "None"       -> headless, nothing allocated
//            clusterIP a.b.c.d      -> must be inside the range and free, else 422 Invalid on
//                                      spec.clusterIPs ("failed to allocate IP ...")
//            type ExternalName      -> no clusterIP
//   update   an omitted clusterIP keeps the allocated one; a different one is 422
//            ("may not change once set")
//   delete   the address is free again once the Service leaves storage
//
// The range never hands out its network and broadcast addresses nor 127.0.0.1. Allocations are
// kept in memory and rebuilt from the stored Services when the API server starts (Restore), so
// they survive restarts.
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "cluster/apiserver/api_errors.h"
#include "cluster/apiserver/ipv4.h"

namespace trimtab::cluster {

class ClusterIpAllocator {
 public:
  // `cidr` must lie inside 127.0.0.0/8 (so that every address is routed to loopback).
  static StatusOr<std::unique_ptr<ClusterIpAllocator>> Create(std::string_view cidr);

  const Ipv4Range& range() const { return range_; }

  // Create-time defaulting and allocation of a Service (see header comment). On success the
  // object carries spec.clusterIP/clusterIPs/ipFamilies/ipFamilyPolicy; `*allocated` is the
  // address now held for it ("" when none). Dry runs check without holding anything.
  ApiResult<bool> AllocateOnCreate(const ResourceType& type, Json* service, bool dry_run,
                                   std::string* allocated);
  // Update: keeps the current allocation when the new object omits it; 422 on a change.
  ApiResult<bool> KeepOnUpdate(const ResourceType& type, const Json& current, Json* desired);
  // Frees the address of a Service that left storage (no-op for headless/none).
  void Release(const Json& service);
  void Release(const std::string& ip);
  // Marks the address of a stored Service as taken (API server start).
  void Restore(const Json& service);

  bool IsAllocatedForTest(const std::string& ip) const;

 private:
  explicit ClusterIpAllocator(Ipv4Range range) : range_(range), next_(range.network() + 1) {}
  bool Usable(uint32_t address) const;

  const Ipv4Range range_;
  mutable std::mutex mu_;
  std::set<uint32_t> used_;  // guarded by mu_
  uint32_t next_;            // guarded by mu_; where the round-robin search starts
};

}  // namespace trimtab::cluster
