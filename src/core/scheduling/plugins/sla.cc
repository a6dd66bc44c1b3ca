// sla: a job that has waited longer than its waiting time goes first and is admitted past the
// other plugins' limits. The waiting time is the PodGroup annotation volcano.sh/sla-waiting-time
// (a Go duration), else the plugin argument `sla-waiting-time`; a job with neither is left to
// the other plugins.
//
//   JobOrder       jobs with a waiting time before jobs without; among them the earlier
//                  deadline (creation + waiting time) first
//   JobEnqueueable Permit once now - creation >= waiting time, else Abstain: in tier 1 a
//   JobPipelined   Permit settles the vote before tier 2's capacity rejections are asked
//                  (framework.h, B.3), which is how a waiting high-priority job gets Inqueue
//                  and can then preempt
//
// Volcano reads the group's creation timestamp against its wall clock; the session's clock is
// SessionOptions::now_unix_seconds.
#include <optional>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"
#include "core/scheduling/snapshot_internal.h"

namespace trimtab::core::scheduling {
namespace {

class SlaPlugin final : public Plugin {
 public:
  explicit SlaPlugin(std::optional<int64_t> waiting_seconds) : default_(waiting_seconds) {}
  std::string_view name() const override { return "sla"; }

  void OnSessionOpen(Session& ssn) override {
    ssn.AddJobOrderFn(name(), [this](const JobInfo& l, const JobInfo& r) {
      const std::optional<int64_t> lw = Waiting(l), rw = Waiting(r);
      if (!lw && !rw) return 0;
      if (!rw) return -1;
      if (!lw) return 1;
      const int64_t ld = l.creation + *lw, rd = r.creation + *rw;
      return ld < rd ? -1 : (ld > rd ? 1 : 0);
    });
    auto permit = [this, &ssn](const JobInfo& job) {
      const std::optional<int64_t> w = Waiting(job);
      if (!w || ssn.options().now_unix_seconds - job.creation < *w) {
        return static_cast<int>(kAbstain);
      }
      if (ssn.logging()) {
        ssn.Log("sla: " + job.key + " waited " +
                std::to_string(ssn.options().now_unix_seconds - job.creation) +
                " s >= its waiting time " + std::to_string(*w) + " s: permit");
      }
      return static_cast<int>(kPermit);
    };
    ssn.AddJobEnqueueableFn(name(), permit);
    ssn.AddJobPipelinedFn(name(), permit);
  }

 private:
  std::optional<int64_t> Waiting(const JobInfo& job) const {
    if (job.sla_waiting_seconds >= 0) return job.sla_waiting_seconds;
    return default_;
  }

  std::optional<int64_t> default_;
};

}  // namespace

PluginPtr NewSlaPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  std::string text;
  TRIMTAB_RETURN_IF_ERROR(a.String("sla-waiting-time", &text));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  std::optional<int64_t> waiting;
  if (!text.empty()) {
    std::optional<int64_t> seconds = snapshot_internal::ParseGoDurationSeconds(text);
    if (!seconds || *seconds < 0) {
      return InvalidArgumentError(path + ".sla-waiting-time: \"" + text +
                                  "\" is not a duration (Go syntax: 30s, 5m, 1h30m)");
    }
    waiting = *seconds;
  }
  return std::unique_ptr<Plugin>(new SlaPlugin(waiting));
}

}  // namespace trimtab::core::scheduling
