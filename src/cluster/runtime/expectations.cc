#include "cluster/runtime/expectations.h"

namespace trimtab::cluster::runtime {

void Expectations::Expect(const std::string& owner, int adds, const std::set<std::string>& deletes) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = entries_[owner];
  e.adds = adds;
  e.deletes = deletes;
  e.at = clock_->Now();
}

void Expectations::ObservedCreation(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(owner);
  if (it != entries_.end() && it->second.adds > 0) it->second.adds -= 1;
}

void Expectations::ObservedDeletion(const std::string& owner, const std::string& pod_key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(owner);
  if (it != entries_.end()) it->second.deletes.erase(pod_key);
}

bool Expectations::Satisfied(const std::string& owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(owner);
  if (it == entries_.end()) return true;
  if (it->second.adds <= 0 && it->second.deletes.empty()) return true;
  return clock_->Now() - it->second.at > timeout_;
}

void Expectations::Forget(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(owner);
}

}  // namespace trimtab::cluster::runtime
