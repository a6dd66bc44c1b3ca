// Reconciler: what one pass of a controller over one object key does, and what its result tells
// the controller loop (adapters/kube/controller.h) to do next, as controller-runtime's
// reconcile.Reconciler and reconcile.Result:
//
//   ReconcileResult::Done()            the object is where it should be: forget the key (its
//                                      back-off too) until the next informer event
//   ReconcileResult::After(d)          look again after d of clock time (waiting for a rollout,
//                                      a timeout, a periodic observation...); resets the back-off
//   ReconcileResult::Retry(error)      the pass failed in a way that may pass later (conflict,
//                                      unavailable API server): retry with per-key exponential
//                                      back-off
//   ReconcileResult::Terminal(error)   the pass failed and retrying cannot help (an invalid spec
//                                      already recorded as a condition or an Event): log it and
//                                      forget the key until the next informer event
//
// Usage:
//   class PodGroupReconciler final : public kube::Reconciler {
//     kube::ReconcileResult Reconcile(const std::string& key) override {
//       ... return conflict ? kube::ReconcileResult::Retry(s.ToString())
//                           : kube::ReconcileResult::After(std::chrono::seconds(30));
//     }
//   };
//
// Thread-safety: a Reconciler is called from several worker threads, never for one key twice at
// the same time (WorkQueue guarantee).
#pragma once

#include <string>

#include "common/clock.h"

namespace trimtab::kube {

struct ReconcileResult {
  enum class Kind {
    kDone,      // forget the key
    kAfter,     // requeue after `after`
    kRetry,     // requeue with back-off; `error` says why
    kTerminal,  // forget the key; `error` says why (logged)
  };
  Kind kind = Kind::kDone;
  Duration after{0};
  std::string error;

  static ReconcileResult Done() { return {}; }
  static ReconcileResult After(Duration d) { return {Kind::kAfter, d, ""}; }
  static ReconcileResult Retry(std::string error) {
    return {Kind::kRetry, Duration{0}, std::move(error)};
  }
  static ReconcileResult Terminal(std::string error) {
    return {Kind::kTerminal, Duration{0}, std::move(error)};
  }
  // The earlier of two wake-ups: Retry wins, then Terminal; Done is "never".
  static ReconcileResult Earliest(const ReconcileResult& a, const ReconcileResult& b);

  bool failed() const { return kind == Kind::kRetry || kind == Kind::kTerminal; }
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // `key` is "namespace/name" (or "name" for cluster-scoped objects).
  virtual ReconcileResult Reconcile(const std::string& key) = 0;
};

}  // namespace trimtab::kube
