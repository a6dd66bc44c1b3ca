#include "cluster/volcano/volcano_scheduler.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "cluster/volcano/queue_controller.h"
#include "cluster/volcano/session_adapter.h"
#include "cluster/volcano/status_writer.h"
#include "cluster/volcano/volcano_crds.h"
#include "core/scheduling/session.h"
#include "core/scheduling/snapshot.h"

namespace trimtab::cluster::volcano {

using runtime::Str;

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

VolcanoScheduler::VolcanoScheduler(VolcanoSchedulerOptions options) : options_(std::move(options)) {}

VolcanoScheduler::~VolcanoScheduler() { Stop(); }

bool VolcanoScheduler::Serves(std::string_view scheduler_name) const {
  return std::find(options_.scheduler_names.begin(), options_.scheduler_names.end(),
                   scheduler_name) != options_.scheduler_names.end();
}

Status VolcanoScheduler::Start(const runtime::SchedulerContext& context) {
  context_ = context;
  TRIMTAB_RETURN_IF_ERROR(InstallVolcanoCrds(*context.client, options_.sync_timeout).status());
  TRIMTAB_RETURN_IF_ERROR(EnsureVolcanoQueues(*context.client, options_.default_queue));

  informers_ = std::make_unique<runtime::InformerSet>(context.client);
  kube::Informer* groups = informers_->Get(PodGroupsGvr());
  kube::Informer* queues = informers_->Get(QueuesGvr());
  kube::Informer* classes = informers_->Get(PriorityClassesGvr());
  const std::function<void()> cycle = context.request_cycle;
  const kube::EventHandler request_cycle = {
      .on_add = [cycle](const Json&) { cycle(); },
      .on_update =
          [cycle](const Json& o, const Json& n) {
            // Our own status writes come back as updates: only spec changes ask for a session.
            if (runtime::At(o, {"spec"}) != runtime::At(n, {"spec"}) ||
                runtime::At(o, {"metadata", "annotations"}) !=
                    runtime::At(n, {"metadata", "annotations"}) ||
                runtime::At(o, {"status", "state"}) != runtime::At(n, {"status", "state"})) {
              cycle();
            }
          },
      .on_delete = [cycle](const Json&) { cycle(); }};
  groups->AddEventHandler(request_cycle);
  queues->AddEventHandler(request_cycle);
  classes->AddEventHandler({.on_add = [cycle](const Json&) { cycle(); },
                            .on_update = [cycle](const Json&, const Json&) { cycle(); },
                            .on_delete = [cycle](const Json&) { cycle(); }});
  queue_controller_ = std::make_unique<QueueController>(context.client, context.clock, queues,
                                                        groups, options_.default_queue);
  writer_ = std::make_unique<VolcanoStatusWriter>(
      context.client, context.clock, context.events, std::string(name()),
      StatusWriterCaches{.pods = context.pods,
                         .pod_groups = &groups->store(),
                         .queues = &queues->store()});
  TRIMTAB_RETURN_IF_ERROR(informers_->Start(options_.sync_timeout).WithContext("volcano scheduler"));
  queue_controller_->Start();
  writer_->Start();
  spdlog::info("{}: serving schedulerName {}, actions {}, default queue {}", name(),
               Join(options_.scheduler_names), Join(options_.config.actions),
               options_.default_queue);
  return Status::Ok();
}

void VolcanoScheduler::Stop() {
  if (writer_) writer_->Stop();
  if (queue_controller_) queue_controller_->Stop();
  if (informers_) informers_->Stop();
}

runtime::SchedulingDecision VolcanoScheduler::Schedule(const runtime::ClusterSnapshot& snapshot,
                                                       const std::vector<kube::ObjectPtr>& pending) {
  runtime::SchedulingDecision decision;
  decision.retry_after = options_.schedule_period;
  if (!informers_ || !context_.pods) return decision;
  // One session per period, as Volcano opens them: the triggers in between (every pod created
  // asks for a cycle) wait for the next one.
  const TimePoint now = context_.clock->Now();
  if (sessions_ > 0 && now < last_session_ + options_.schedule_period) {
    decision.retry_after = last_session_ + options_.schedule_period - now;
    return decision;
  }
  last_session_ = now;
  using Steady = std::chrono::steady_clock;
  const Steady::time_point started = Steady::now();
  const SessionInput input = BuildSessionInput(
      snapshot, context_.pods->ListShared(), informers_->Store(PodGroupsGvr()).ListShared(),
      informers_->Store(QueuesGvr()).ListShared(),
      informers_->Store(PriorityClassesGvr()).ListShared());
  const Steady::time_point built = Steady::now();

  core::scheduling::SessionOptions session{
      .scheduler_names = options_.scheduler_names,
      .default_queue = options_.default_queue,
      .now_unix_seconds = std::chrono::duration_cast<std::chrono::seconds>(
                              now.time_since_epoch())
                              .count(),
      .session_id = "session-" + std::to_string(++sessions_),
      .record_log = false};
  StatusOr<core::scheduling::SessionResult> result =
      core::scheduling::RunSession(options_.config, input.refs, session);
  const Steady::time_point decided = Steady::now();
  auto account = [&](size_t binds) {
    auto seconds = [](Steady::duration d) { return std::chrono::duration<double>(d).count(); };
    const Steady::time_point done = Steady::now();
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.sessions += 1;
    stats_.binds += static_cast<int64_t>(binds);
    stats_.build_seconds += seconds(built - started);
    stats_.session_seconds += seconds(decided - built);
    stats_.apply_seconds += seconds(done - decided);
    stats_.max_cycle_seconds = std::max(stats_.max_cycle_seconds, seconds(done - started));
  };
  if (!result.ok()) {
    account(0);
    if (result.status().message() != last_error_) {
      last_error_ = result.status().message();
      spdlog::warn("{}: the scheduling session failed, nothing scheduled: {}", name(),
                   result.status().ToString());
    }
    return decision;
  }
  last_error_.clear();

  // Bind only pods the loop offered as pending (never one it has just bound or is deleting).
  // A gang's bindings are one binding group: the loop POSTs them in order, gangs at once.
  std::map<std::string, std::string> offered;  // uid -> "ns/group" ("" without a group)
  for (const kube::ObjectPtr& pod : pending) {
    const std::string group =
        Str(*pod, {"metadata", "annotations", core::scheduling::kGroupNameAnnotation});
    offered.emplace(Str(*pod, {"metadata", "uid"}),
                    group.empty() ? "" : Str(*pod, {"metadata", "namespace"}) + "/" + group);
  }
  for (const core::scheduling::Bind& b : result->binds) {
    auto it = offered.find(b.pod.uid);
    if (it == offered.end()) continue;
    decision.bindings.push_back(runtime::PodBindingDecision{.ns = b.pod.ns,
                                                            .name = b.pod.name,
                                                            .uid = b.pod.uid,
                                                            .node = b.node,
                                                            .group = it->second});
  }
  writer_->Apply(*result);
  account(decision.bindings.size());
  return decision;
}

Duration VolcanoScheduler::NextCycleIn(TimePoint now) const {
  if (sessions_ == 0) return Duration::zero();
  return std::max(Duration::zero(), last_session_ + options_.schedule_period - now);
}

VolcanoSessionStats VolcanoScheduler::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

runtime::SchedulerFactory VolcanoSchedulerFactory(VolcanoSchedulerOptions options) {
  return [options](const runtime::RuntimeContext&) -> StatusOr<std::shared_ptr<runtime::Scheduler>> {
    if (options.scheduler_names.empty()) {
      return InvalidArgumentError("volcano scheduler: no scheduler name to serve");
    }
    return std::shared_ptr<runtime::Scheduler>(std::make_shared<VolcanoScheduler>(options));
  };
}

}  // namespace trimtab::cluster::volcano
