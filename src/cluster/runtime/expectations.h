// Expectations: kube-controller-manager's ControllerExpectations. After a controller creates or
// deletes pods it must not act again on the same owner until its informer has seen those
// changes, or it would create too many pods (the cache still shows the old count). The
// controller records what it expects; informer handlers report what they observe; the owner is
// synced again only when everything expected arrived or `timeout` passed (lost events).
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "common/clock.h"

namespace trimtab::cluster::runtime {

class Expectations {
 public:
  explicit Expectations(Clock* clock, Duration timeout = std::chrono::minutes(5))
      : clock_(clock), timeout_(timeout) {}

  // `owner` expects `adds` new pods and the deletion of the pods in `deletes` (keys "ns/name").
  void Expect(const std::string& owner, int adds, const std::set<std::string>& deletes);
  // One expected creation will not happen (the create call failed).
  void CreationFailed(const std::string& owner) { ObservedCreation(owner); }
  void ObservedCreation(const std::string& owner);
  void ObservedDeletion(const std::string& owner, const std::string& pod_key);
  // Nothing is outstanding (or the expectations timed out).
  bool Satisfied(const std::string& owner) const;
  void Forget(const std::string& owner);

 private:
  struct Entry {
    int adds = 0;
    std::set<std::string> deletes;
    TimePoint at;
  };
  Clock* clock_;
  const Duration timeout_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // guarded by mu_
};

}  // namespace trimtab::cluster::runtime
