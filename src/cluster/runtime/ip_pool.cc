#include "cluster/runtime/ip_pool.h"

namespace trimtab::cluster::runtime {

bool PodIpPool::Usable(uint32_t address) const {
  return cidr_.Contains(address) && address > cidr_.network() + 1 && address < cidr_.broadcast() &&
         address != kLoopbackAddress;
}

std::optional<std::string> PodIpPool::Allocate() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t n = cidr_.size();
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t candidate =
        cidr_.network() + static_cast<uint32_t>((next_ - cidr_.network() + i) % n);
    if (Usable(candidate) && !used_.count(candidate)) {
      used_.insert(candidate);
      next_ = candidate + 1;
      return FormatIpv4(candidate);
    }
  }
  return std::nullopt;
}

bool PodIpPool::Reserve(const std::string& ip) {
  auto address = ParseIpv4(ip);
  if (!address || !Usable(*address)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return used_.insert(*address).second;
}

void PodIpPool::Release(const std::string& ip) {
  auto address = ParseIpv4(ip);
  if (!address) return;
  std::lock_guard<std::mutex> lock(mu_);
  used_.erase(*address);
}

size_t PodIpPool::InUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_.size();
}

}  // namespace trimtab::cluster::runtime
