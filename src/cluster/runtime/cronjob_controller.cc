#include "cluster/runtime/cronjob_controller.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cluster/runtime/cron_schedule.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "cronjob-controller";

// "Complete" or "Failed" when the Job finished, else "".
std::string Finished(const Json& job) {
  for (const char* type : {"Complete", "Failed"}) {
    const Json* c = FindCondition(job, type);
    if (c && c->value("status", "") == "True") return type;
  }
  return "";
}

Json Reference(const Json& job) {
  return {{"kind", "Job"},
          {"namespace", Str(job, {"metadata", "namespace"})},
          {"name", Str(job, {"metadata", "name"})},
          {"uid", Str(job, {"metadata", "uid"})},
          {"apiVersion", "batch/v1"},
          {"resourceVersion", Str(job, {"metadata", "resourceVersion"})}};
}

}  // namespace

CronJobController::CronJobController(const kube::KubeClient* client, InformerSet* informers,
                                     EventRecorder* events, Clock* clock)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      controller_("cronjob-controller", clock, 1,
                  [this](const std::string& key) { return Sync(key); }) {
  EnqueueObjects(informers_, CronJobsGvr(), &controller_);
  auto owner = [this](const Json& job) {
    if (auto key = ControllerKeyOfKind(job, "CronJob")) controller_.Enqueue(*key);
  };
  informers_->Get(JobsGvr())->AddEventHandler(
      {.on_add = owner,
       .on_update = [owner](const Json&, const Json& j) { owner(j); },
       .on_delete = owner});
}

Result CronJobController::Sync(const std::string& key) {
  auto cj = informers_->Store(CronJobsGvr()).GetByKey(key);
  if (!cj) return Result::Done();
  const std::string ns = Str(*cj, {"metadata", "namespace"});
  const std::string name = Str(*cj, {"metadata", "name"});
  const TimePoint now = clock_->Now();
  const std::string uid = Str(*cj, {"metadata", "uid"});

  auto all_jobs = informers_->Store(JobsGvr()).List(JobsGvr(), ns, {});
  if (!all_jobs.ok()) return Result::Retry(all_jobs.status().ToString());
  std::vector<Json> active, succeeded, failed;
  std::optional<TimePoint> last_success = ParseTime(At(*cj, {"status", "lastSuccessfulTime"}));
  for (Json& job : *all_jobs) {
    auto ref = ControllerRef(job);
    if (!ref || ref->value("uid", "") != uid) continue;
    std::string done = Finished(job);
    if (done.empty()) {
      if (!IsDeleting(job)) active.push_back(std::move(job));
    } else if (done == "Complete") {
      auto at = ParseTime(At(job, {"status", "completionTime"}));
      if (at && (!last_success || *at > *last_success)) last_success = at;
      succeeded.push_back(std::move(job));
    } else {
      failed.push_back(std::move(job));
    }
  }

  Result next = Result::Done();
  auto schedule = CronSchedule::Parse(Str(*cj, {"spec", "schedule"}), Str(*cj, {"spec", "timeZone"}));
  std::optional<TimePoint> last_schedule = ParseTime(At(*cj, {"status", "lastScheduleTime"}));
  if (!schedule.ok()) {
    events_->Record(*cj, {.component = kComponent}, "Warning", "InvalidSchedule",
                    "invalid schedule: " + schedule.status().message());
  } else if (!IsDeleting(*cj)) {
    TimePoint from = last_schedule ? *last_schedule
                                   : ParseTime(At(*cj, {"metadata", "creationTimestamp"}))
                                         .value_or(now);
    // The latest scheduled time that has come.
    std::optional<TimePoint> due;
    for (auto t = schedule->Next(from); t && *t <= now; t = schedule->Next(*t)) due = t;
    const Json& deadline = At(*cj, {"spec", "startingDeadlineSeconds"});
    if (due && deadline.is_number_integer() &&
        now > *due + std::chrono::seconds(deadline.get<int64_t>())) {
      due.reset();  // too late for that run
    }
    const std::string policy = Str(*cj, {"spec", "concurrencyPolicy"}, "Allow");
    if (due && !Bool(*cj, {"spec", "suspend"})) {
      bool run = true;
      if (policy == "Forbid" && !active.empty()) {
        events_->Record(*cj, {.component = kComponent}, "Normal", "JobAlreadyActive",
                        "Not starting job because prior execution is running and concurrency "
                        "policy is Forbid");
        run = false;
      }
      if (run && policy == "Replace") {
        for (const Json& job : active) {
          kube::DeleteOptions background{.propagation = kube::PropagationPolicy::kBackground};
          client_->Delete(JobsGvr(), ns, Str(job, {"metadata", "name"}), background)
              .IgnoreError();
          events_->Record(*cj, {.component = kComponent}, "Normal", "SuccessfulDelete",
                          "Deleted job " + Str(job, {"metadata", "name"}));
        }
        active.clear();
      }
      if (run) {
        const int64_t minutes =
            std::chrono::duration_cast<std::chrono::minutes>(due->time_since_epoch()).count();
        const std::string job_name = name + "-" + std::to_string(minutes);
        const Json& tmpl = At(*cj, {"spec", "jobTemplate"});
        Json meta = {{"name", job_name},
                     {"namespace", ns},
                     {"ownerReferences", Json::array({ControllerRefTo(*cj)})}};
        for (const char* f : {"labels", "annotations"}) {
          if (At(tmpl, {"metadata", f}).is_object()) meta[f] = At(tmpl, {"metadata", f});
        }
        meta["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] =
            FormatRfc3339(*due);
        Json job = {{"apiVersion", "batch/v1"},
                    {"kind", "Job"},
                    {"metadata", meta},
                    {"spec", At(tmpl, {"spec"})}};
        auto created = client_->Create(JobsGvr(), ns, job);
        if (created.ok()) {
          events_->Record(*cj, {.component = kComponent}, "Normal", "SuccessfulCreate",
                          "Created job " + job_name);
          active.push_back(std::move(*created));
          last_schedule = due;
        } else if (created.status().code() == StatusCode::kAlreadyExists) {
          last_schedule = due;
        } else {
          events_->Record(*cj, {.component = kComponent}, "Warning", "FailedCreate",
                          "Error creating job: " + created.status().message());
          return Result::Retry(created.status().ToString());
        }
      }
    }
    if (auto upcoming = schedule->Next(std::max(now, last_schedule.value_or(from)))) {
      next = Result::After(*upcoming - now + std::chrono::milliseconds(100));
    }
  }

  // History limits, oldest first.
  auto prune = [&](std::vector<Json>& jobs, int64_t keep) {
    std::sort(jobs.begin(), jobs.end(), [](const Json& a, const Json& b) {
      return Str(a, {"metadata", "creationTimestamp"}) < Str(b, {"metadata", "creationTimestamp"});
    });
    for (size_t i = 0; keep >= 0 && static_cast<int64_t>(jobs.size() - i) > keep; ++i) {
      kube::DeleteOptions background{.propagation = kube::PropagationPolicy::kBackground};
      const std::string job = Str(jobs[i], {"metadata", "name"});
      if (client_->Delete(JobsGvr(), ns, job, background).ok()) {
        events_->Record(*cj, {.component = kComponent}, "Normal", "SuccessfulDelete",
                        "Deleted job " + job);
      }
    }
  };
  prune(succeeded, Int(*cj, {"spec", "successfulJobsHistoryLimit"}, 3));
  prune(failed, Int(*cj, {"spec", "failedJobsHistoryLimit"}, 1));

  Json refs = Json::array();
  for (const Json& job : active) refs.push_back(Reference(job));
  Json status = {{"active", refs.empty() ? Json(nullptr) : refs}};
  if (last_schedule) status["lastScheduleTime"] = FormatRfc3339(*last_schedule);
  if (last_success) status["lastSuccessfulTime"] = FormatRfc3339(*last_success);
  Json old = At(*cj, {"status"});
  bool changed = false;
  for (auto& [k, v] : status.items()) {
    const Json cur = old.is_object() && old.contains(k) ? old[k] : Json();
    if (k == "active") {
      std::vector<std::string> a, b;
      if (cur.is_array()) for (const Json& r : cur) a.push_back(r.value("uid", ""));
      if (v.is_array()) for (const Json& r : v) b.push_back(r.value("uid", ""));
      if (a != b) changed = true;
    } else if (cur != v) {
      changed = true;
    }
  }
  if (changed) {
    auto r = client_->Patch(CronJobsGvr(), ns, name, kube::PatchType::kMerge,
                            Json{{"status", status}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry(r.status().ToString());
    }
  }
  return next;
}

}  // namespace trimtab::cluster::runtime
