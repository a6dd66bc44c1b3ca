#include "core/flink/trimtab_defaults.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/flink/autoscaler_options.h"
#include "common/flink_values.h"

namespace trimtab::core::flink {
namespace {

// Options whose deprecated name also sets them (autoscaler_options.cc): a user who wrote the old
// name has set the option.
const std::map<std::string, std::string>& DeprecatedAliases() {
  static const auto* const kAliases = new std::map<std::string, std::string>{
      {"utilization.target", "target.utilization"},
      {"scale-down.interval", "scale-up.grace-period"},
      {"scaling.parallelism-alignment.mode", "scaling.key-group.partitions.adjust.mode"},
  };
  return *kAliases;
}

// Options that only make sense together: when the configuration sets any option of a group,
// trimtab's values for the rest of the group are not added (a user's utilization.target of 0.4
// under trimtab's utilization.min of 0.5 would be an error about a key the user never wrote).
const std::vector<std::vector<std::string>>& OptionGroups() {
  static const auto* const kGroups = new std::vector<std::vector<std::string>>{
      {"utilization.target", "target.utilization", "utilization.max", "utilization.min",
       "target.utilization.boundary"},
  };
  return *kGroups;
}

bool SetsOption(const std::map<std::string, std::string>& conf, const std::string& suffix) {
  for (const char* prefix : {kAutoscalerPrefix, kLegacyAutoscalerPrefix}) {
    if (conf.count(prefix + suffix)) return true;
  }
  return false;
}

}  // namespace

std::string_view AutoscalerDefaultsName(AutoscalerDefaults d) {
  return d == AutoscalerDefaults::kTrimtab ? kDefaultsTrimtab : kDefaultsFlink;
}

const std::map<std::string, std::string>& TrimtabAutoscalerDefaults() {
  // Measured on bench/autoscaling (docs/benchmarks.md, "Autoscaling policies" and "What users
  // feel"); `trimtab simulate`'s `trimtab` policy runs with exactly these.
  static const auto* const kDefaults = new std::map<std::string, std::string>{
      // A 10-minute window (upstream: 15) smooths noise; a step is not left to the window
      // average: trimtab's step detection (docs/eval-flink.md) takes a source's recent arrival
      // rate once the last two minutes are both 1.5x above (or below) the minutes before them,
      // or the last one 2.25x. Across 72 seeded runs of the suite this took the time above the
      // lag SLO outside restarts from 0.54 % to 0.06 % of the run with no extra restart on noisy
      // load (docs/benchmarks.md). 2 minutes after a (re)start the 60-s meters have filled.
      {"job.autoscaler.metrics.window", "10 min"},
      {"job.autoscaler.step-detection.threshold", "0.5"},
      {"job.autoscaler.stabilization.interval", "2 min"},
      // Run close to capacity (upstream 0.7): scale up above 95 % busy, down below 50 %.
      {"job.autoscaler.utilization.target", "0.85"},
      {"job.autoscaler.utilization.max", "0.95"},
      {"job.autoscaler.utilization.min", "0.5"},
      // Catch-up headroom from the restart time actually observed (starting from 20 s, not a
      // fixed 5 minutes, which keeps ~17 % spare capacity for ever); backlog drained in 10 min.
      {"job.autoscaler.restart.time", "20 s"},
      {"job.autoscaler.restart.time-tracking.enabled", "true"},
      // A restart costs the input it leaves waiting, not just its downtime: the records replayed
      // from the last checkpoint count too, and with large state (a long checkpoint) they are
      // most of it. A job with 50 GB of state scaled 12 -> 4 at night, found the replay left it
      // 40 minutes behind, scaled up to catch up and down again, 111 times in a day; counting
      // the backlog, 7 times. On the suite: 1.13x -> 1.16x the oracle, lag outside restarts
      // 0.05 % -> 0.03 % (docs/benchmarks.md).
      {"job.autoscaler.restart.time-tracking.backlog.enabled", "true"},
      // Until a restart has been seen, the restart time is at least what the last checkpoint
      // took: 20 s is no estimate for a job with 50 GB of state, whose first scale-down (12
      // minutes in) then left it 10 minutes behind. On the 200 random job graphs 1.53x -> 1.50x
      // the oracle and 3.6 % -> 3.2 % of the time above the lag SLO; the suite unchanged
      // (docs/benchmarks.md).
      {"job.autoscaler.restart.time-from-checkpoint.enabled", "true"},
      {"job.autoscaler.catch-up.duration", "10 min"},
      // Scale-downs: one step to the target (upstream caps a step at -60 %, so idle vertices
      // shrink over several restarts), held for 15 minutes by the behavior window instead of the
      // upstream one-hour scale-down.interval.
      {"job.autoscaler.scale-down.max-factor", "1.0"},
      {"job.autoscaler.scale-down.interval", "0 s"},
      {"job.autoscaler.behavior.scale-down.stabilization-window", "15 min"},
      // ... and for at least four restart times: a job whose restart leaves 15 minutes of input
      // waiting (50 GB of state) must want the scale-down for an hour. On 120 random job graphs,
      // those with 50 GB of state went from 6.0x the oracle and 28 % of the time above the lag
      // SLO to 3.8x and 13 % (flink-compat: 2.8x, 15 %); smaller state is unaffected.
      {"job.autoscaler.scale-down.restart-time-factor", "4"},
      // The behavior window holds a scale-down at the highest recommendation of its window (a
      // step down first recommended 3 of q5's 8 subtasks, then 2), and the utilization band then
      // kept the vertex at 3 for as long as the load stayed. Follow-through finishes it: across
      // the 72 seeded runs 1.165x -> 1.151x the oracle (step-down 1.32x -> 1.21x), 4 more
      // rescales, lag and steps to converge unchanged; random scenarios and graphs unchanged
      // but for 2 more rescales each (docs/benchmarks.md).
      {"job.autoscaler.scale-down.follow-through.window", "2 h"},
      // A hot key caps what more subtasks add: a q11 job went 8 -> 26 -> 64 -> 128 subtasks to
      // catch up after a step and then stayed at 128, where 64 carried 94 % as much, inside its
      // band for the rest of the day. Now the last subtasks go once each of them adds less than a
      // tenth of an average one: on the 200 random library scenarios 1.33x -> 1.31x the oracle
      // (that run 7.27x -> 3.77x, one more rescale), the same lag; the suite, extra/ and the
      // random job graphs unchanged (docs/benchmarks.md).
      {"job.autoscaler.scale-down.hot-key.marginal-capacity", "0.1"},
      // Size keyed and partitioned vertices by what their busiest subtask carries instead of
      // rounding up to a divisor of the key groups (q5's window: 7 subtasks, not 8). Hot keys can
      // make a scale-up too small, so a job still behind 2 minutes after stabilization may scale
      // up again without waiting for the full window. Across the 72 seeded runs: 1.20x -> 1.13x
      // the oracle's slot-hours, lag outside restarts 0.06 % -> 0.05 % (docs/benchmarks.md).
      {"job.autoscaler.scaling.parallelism-alignment.mode", "CAPACITY"},
      {"job.autoscaler.early-scale-up.window", "2 min"},
      // A scale-up is not sized below what the vertex's own history showed it needs: when it
      // ran fully busy at the proposed parallelism or above and processed less than the target,
      // it is scaled from that observation (a hot key makes the next cycle's scale-up as short
      // as the last one). Ten entries per vertex keep one on/off cycle of such scale-ups. On
      // bench/autoscaling/extra: lag outside restarts 0.18 % -> 0.10 %, runs above 0.5 % 4 -> 0,
      // cost 1.29x -> 1.30x the oracle; the suite unchanged (docs/benchmarks.md).
      {"job.autoscaler.observed-capacity.enabled", "true"},
      {"job.autoscaler.history.max.count", "10"},
      // No observed processing rate from a sample taken while Flink's meters refill after a
      // restart: upstream averages those too-low rates into every later sample of the window and
      // then prefers them to the busy-time rate, so each restart can undo itself. With 1-minute
      // decisions few such samples are taken; deciding every 10 s (upstream's interval) the suite
      // rescaled 1200 times for 1.34x the oracle, with it 372 times for 1.14x.
      {"job.autoscaler.observed-true-processing-rate.after-stabilization", "true"},
      // Issue 22 (docs/benchmarks.md, "What users feel"). A scale-down needs
      // evidence that lasts: every evaluated cycle records each vertex's recommendation, so the
      // 15-minute scale-down window holds the highest one of the whole window. Only the cycles
      // that proposed a change recorded one, and a lull of a minute in a steady load (a step down
      // to 3 % of it) was alone in the window: q5 scaled 7 -> 1 and back within 5 minutes.
      {"job.autoscaler.scale-down.lasting-evidence.enabled", "true"},
      // A burst seen in one interval waits for the next one when the job could ride it out:
      // single minutes at 2.25x a drifting load took q1 3 -> 7 -> 3 eleven times in 12 hours.
      {"job.autoscaler.step-detection.burst-hold.enabled", "true"},
      // A vertex whose scale-downs were undone within 30 minutes more often than they lasted
      // keeps its parallelism: on/off loads with 25-minute phases scaled q5's window down 15
      // minutes into each off phase and up 11 minutes later, 14 times in 12 hours.
      {"job.autoscaler.scale-down.learned-hold.min-duration", "30 min"},
  };
  return *kDefaults;
}

StatusOr<AutoscalerDefaults> ReadAutoscalerDefaults(
    const std::map<std::string, std::string>& conf) {
  for (const char* prefix : {kAutoscalerPrefix, kLegacyAutoscalerPrefix}) {
    const std::string key = std::string(prefix) + kDefaultsOption;
    auto it = conf.find(key);
    if (it == conf.end()) continue;
    std::string v(TrimSpaces(it->second));
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == kDefaultsFlink) return AutoscalerDefaults::kFlink;
    if (v == kDefaultsTrimtab) return AutoscalerDefaults::kTrimtab;
    return InvalidArgumentError(key + ": invalid value \"" + it->second +
                                "\": expected flink or trimtab");
  }
  return AutoscalerDefaults::kFlink;
}

StatusOr<std::map<std::string, std::string>> WithAutoscalerDefaults(
    const std::map<std::string, std::string>& conf) {
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerDefaults defaults, ReadAutoscalerDefaults(conf));
  if (defaults == AutoscalerDefaults::kFlink) return conf;
  std::map<std::string, std::string> out = conf;
  const std::string prefix = kAutoscalerPrefix;
  for (const auto& [key, value] : TrimtabAutoscalerDefaults()) {
    const std::string suffix = key.substr(prefix.size());
    if (SetsOption(conf, suffix)) continue;
    auto alias = DeprecatedAliases().find(suffix);
    if (alias != DeprecatedAliases().end() && SetsOption(conf, alias->second)) continue;
    bool group_set = false;
    for (const std::vector<std::string>& group : OptionGroups()) {
      if (std::find(group.begin(), group.end(), suffix) == group.end()) continue;
      for (const std::string& member : group) group_set = group_set || SetsOption(conf, member);
    }
    if (group_set) continue;
    out.emplace(key, value);
  }
  return out;
}

}  // namespace trimtab::core::flink
