// gangpreempt: whole-job preemption within a queue. A starving job may evict running tasks of
// jobs of strictly lower priority in its own queue, a victim job's surplus over its minMember
// first and otherwise the whole victim job, and only after simulating that its whole gang then
// fits (gang_eviction.h). Arguments: allowWholeBundle (default true), maxDomains (accepted;
// without HyperNodes the cluster is the one domain).
#include "core/scheduling/actions/actions.h"
#include "core/scheduling/actions/gang_eviction.h"
#include "core/scheduling/plugin_args.h"

namespace trimtab::core::scheduling {
namespace {

class GangEvictionAction final : public Action {
 public:
  explicit GangEvictionAction(GangEvictionOptions options) : options_(options) {}
  std::string_view name() const override { return options_.reclaim ? "gangreclaim" : "gangpreempt"; }
  void Execute(Session& ssn) override { RunGangEviction(ssn, options_); }

 private:
  GangEvictionOptions options_;
};

StatusOr<std::unique_ptr<Action>> Create(const Json& args, const std::string& path, bool reclaim) {
  PluginArgs a(args, path);
  GangEvictionOptions options;
  options.reclaim = reclaim;
  int max_domains = 8;
  TRIMTAB_RETURN_IF_ERROR(a.Bool("allowWholeBundle", &options.allow_whole_bundle));
  TRIMTAB_RETURN_IF_ERROR(a.Int("maxDomains", &max_domains));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Action>(new GangEvictionAction(options));
}

}  // namespace

ActionPtr NewGangPreemptAction(const Json& args, const std::string& path) {
  return Create(args, path, false);
}

// gangreclaim: the same across queues: victims are Running tasks of other, reclaimable queues
// (priority does not matter), the reclaiming queue must be entitled to more (Preemptive) and
// not overused.
ActionPtr NewGangReclaimAction(const Json& args, const std::string& path) {
  return Create(args, path, true);
}

}  // namespace trimtab::core::scheduling
