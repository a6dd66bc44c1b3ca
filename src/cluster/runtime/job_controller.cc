#include "cluster/runtime/job_controller.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/owned_pods.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "job-controller";
constexpr char kIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";

bool HasTrueCondition(const Json& obj, std::string_view type) {
  const Json* c = FindCondition(obj, type);
  return c != nullptr && c->value("status", "") == "True";
}

std::optional<int64_t> CompletionIndex(const Json& pod) {
  std::string v = Str(pod, {"metadata", "annotations", kIndexAnnotation});
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9) {
    return std::nullopt;
  }
  return std::stoll(v);
}

// When the pod finished (its containers' latest termination), or nullopt.
std::optional<TimePoint> FinishedAt(const Json& pod) {
  std::optional<TimePoint> latest;
  const Json& statuses = At(pod, {"status", "containerStatuses"});
  if (!statuses.is_array()) return latest;
  for (const Json& s : statuses) {
    auto t = ParseTime(At(s, {"state", "terminated", "finishedAt"}));
    if (t && (!latest || *t > *latest)) latest = t;
  }
  return latest;
}

Json Condition(const std::string& type, const std::string& reason, const std::string& message,
               const std::string& now) {
  return {{"type", type},
          {"status", "True"},
          {"reason", reason},
          {"message", message},
          {"lastProbeTime", now},
          {"lastTransitionTime", now}};
}

}  // namespace

JobController::JobController(const kube::KubeClient* client, InformerSet* informers,
                             EventRecorder* events, Clock* clock, int workers)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      expectations_(clock),
      controller_("job-controller", clock, workers,
                  [this](const std::string& key) { return Sync(key); }) {
  EnqueueObjects(informers_, JobsGvr(), &controller_);
  EnqueueControllerOfPods(informers_, "Job", &controller_);
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = [this](const Json& p) {
         if (auto k = ControllerKeyOfKind(p, "Job")) expectations_.ObservedCreation(*k);
       },
       .on_update = [this](const Json& o, const Json& p) {
         if (IsDeleting(p) && !IsDeleting(o)) {
           if (auto k = ControllerKeyOfKind(p, "Job")) {
             expectations_.ObservedDeletion(*k, kube::ObjectKey(p));
           }
         }
       },
       .on_delete = [this](const Json& p) {
         if (auto k = ControllerKeyOfKind(p, "Job")) {
           expectations_.ObservedDeletion(*k, kube::ObjectKey(p));
         }
       }});
}

Result JobController::Sync(const std::string& key) {
  auto job = informers_->Store(JobsGvr()).GetByKey(key);
  if (!job) {
    expectations_.Forget(key);
    return Result::Done();
  }
  const TimePoint now = clock_->Now();
  const std::string now_s = FormatRfc3339(now);
  const std::string ns = Str(*job, {"metadata", "namespace"});
  const std::string name = Str(*job, {"metadata", "name"});
  const Json& spec = At(*job, {"spec"});
  const bool indexed = Str(*job, {"spec", "completionMode"}) == "Indexed";
  const Json& completions_v = At(spec, {"completions"});
  // No completions: any one success completes the Job (the work-queue pattern).
  const bool has_completions = completions_v.is_number_integer();
  const int64_t completions = has_completions ? completions_v.get<int64_t>() : 0;
  const int64_t parallelism = Int(spec, {"parallelism"}, 1);
  const int64_t backoff_limit = Int(spec, {"backoffLimit"}, 6);
  const bool suspended = Bool(spec, {"suspend"});

  std::vector<Json> pods = PodsControlledBy(informers_, *job);
  std::vector<Json> active;
  int64_t succeeded = 0, failed = 0, ready = 0, terminating = 0;
  std::set<int64_t> succeeded_indexes;
  std::set<int64_t> active_indexes;
  std::optional<TimePoint> last_failure;
  for (Json& p : pods) {
    const std::string phase = Str(p, {"status", "phase"});
    if (phase == "Succeeded") {
      ++succeeded;
      if (auto i = CompletionIndex(p)) succeeded_indexes.insert(*i);
    } else if (phase == "Failed") {
      ++failed;
      auto at = FinishedAt(p);
      if (at && (!last_failure || *at > *last_failure)) last_failure = at;
    } else if (IsDeleting(p)) {
      ++terminating;
    } else {
      if (IsPodReady(p)) ++ready;
      if (auto i = CompletionIndex(p)) active_indexes.insert(*i);
      active.push_back(std::move(p));
    }
  }
  if (indexed) succeeded = static_cast<int64_t>(succeeded_indexes.size());

  Json status = At(*job, {"status"});
  if (!status.is_object()) status = Json::object();
  Json conditions = status.contains("conditions") && status["conditions"].is_array()
                        ? status["conditions"]
                        : Json::array();
  const bool finished = HasTrueCondition(*job, "Complete") || HasTrueCondition(*job, "Failed");
  Result next = Result::Done();

  auto delete_pods = [&](const std::vector<Json>& victims) {
    std::set<std::string> keys;
    for (const Json& v : victims) keys.insert(kube::ObjectKey(v));
    if (!keys.empty()) expectations_.Expect(key, 0, keys);
    for (const Json& v : victims) {
      const std::string pod = Str(v, {"metadata", "name"});
      Status s = client_->Delete(PodsGvr(), ns, pod);
      if (!s.ok() && s.code() != StatusCode::kNotFound) {
        expectations_.ObservedDeletion(key, kube::ObjectKey(v));
        continue;
      }
      events_->Record(*job, {.component = kComponent}, "Normal", "SuccessfulDelete",
                      "Deleted pod: " + pod);
    }
  };

  if (finished) {
    delete_pods(active);
    active.clear();
    const Json& ttl = At(spec, {"ttlSecondsAfterFinished"});
    auto done_at = ParseTime(At(*job, {"status", "completionTime"}));
    if (!done_at) {
      for (const Json& c : conditions) {
        if (c.value("type", "") == "Failed") done_at = ParseTime(c["lastTransitionTime"]);
      }
    }
    if (ttl.is_number_integer() && done_at && !IsDeleting(*job)) {
      TimePoint expire = *done_at + std::chrono::seconds(ttl.get<int64_t>());
      if (now >= expire) {
        kube::DeleteOptions background{.propagation = kube::PropagationPolicy::kBackground};
        client_->Delete(JobsGvr(), ns, name, background).IgnoreError();
        return Result::Done();
      }
      next = Result::After(expire - now);
    }
  } else if (suspended) {
    delete_pods(active);
    active.clear();
    SetCondition(&conditions, Condition("Suspended", "JobSuspended", "Job suspended", now_s),
                 now_s);
  } else {
    if (!status.contains("startTime")) status["startTime"] = now_s;
    if (const Json* c = FindCondition(*job, "Suspended"); c && c->value("status", "") == "True") {
      Json resumed = Condition("Suspended", "JobResumed", "Job resumed", now_s);
      resumed["status"] = "False";
      SetCondition(&conditions, resumed, now_s);
      status["startTime"] = now_s;
    }
    std::string fail_reason, fail_message;
    auto start = ParseTime(status["startTime"]);
    const Json& deadline = At(spec, {"activeDeadlineSeconds"});
    if (failed > backoff_limit) {
      fail_reason = "BackoffLimitExceeded";
      fail_message = "Job has reached the specified backoff limit";
    } else if (deadline.is_number_integer() && start &&
               now >= *start + std::chrono::seconds(deadline.get<int64_t>())) {
      fail_reason = "DeadlineExceeded";
      fail_message = "Job was active longer than specified deadline";
    }
    const bool complete = has_completions ? succeeded >= completions
                                      : succeeded > 0 && active.empty();
    if (!fail_reason.empty()) {
      delete_pods(active);
      active.clear();
      SetCondition(&conditions, Condition("FailureTarget", fail_reason, fail_message, now_s),
                   now_s);
      SetCondition(&conditions, Condition("Failed", fail_reason, fail_message, now_s), now_s);
      events_->Record(*job, {.component = kComponent}, "Warning", fail_reason, fail_message);
    } else if (complete) {
      SetCondition(&conditions,
                   Condition("SuccessCriteriaMet", "CompletionsReached",
                             "Reached expected number of succeeded pods", now_s),
                   now_s);
      SetCondition(&conditions,
                   Condition("Complete", "CompletionsReached",
                             "Reached expected number of succeeded pods", now_s),
                   now_s);
      status["completionTime"] = now_s;
      events_->Record(*job, {.component = kComponent}, "Normal", "Completed", "Job completed");
      delete_pods(active);
      active.clear();
    } else if (expectations_.Satisfied(key) && !IsDeleting(*job)) {
      int64_t want = parallelism;
      if (has_completions) want = std::min(want, completions - succeeded);
      if (!has_completions && succeeded > 0) want = 0;
      int64_t missing = want - static_cast<int64_t>(active.size());
      // A failed pod is replaced after a back-off.
      if (missing > 0 && failed > 0 && last_failure) {
        Duration backoff = std::chrono::seconds(10);
        for (int64_t i = 1; i < failed && backoff < std::chrono::minutes(6); ++i) backoff *= 2;
        backoff = std::min<Duration>(backoff, std::chrono::minutes(6));
        if (now < *last_failure + backoff) {
          next = Result::After(*last_failure + backoff - now);
          missing = 0;
        }
      }
      std::vector<int64_t> indexes;
      if (indexed && missing > 0 && has_completions) {
        for (int64_t i = 0; i < completions && static_cast<int64_t>(indexes.size()) < missing;
             ++i) {
          if (!succeeded_indexes.count(i) && !active_indexes.count(i)) indexes.push_back(i);
        }
        missing = static_cast<int64_t>(indexes.size());
      }
      if (missing > 0) {
        expectations_.Expect(key, static_cast<int>(missing), {});
        for (int64_t i = 0; i < missing; ++i) {
          Json tmpl = At(spec, {"template"});
          std::string prefix = name + "-";
          if (indexed) {
            const std::string index = std::to_string(indexes[static_cast<size_t>(i)]);
            prefix = name + "-" + index + "-";
            tmpl["metadata"]["annotations"][kIndexAnnotation] = index;
            tmpl["metadata"]["labels"][kIndexAnnotation] = index;
            Json& containers = tmpl["spec"]["containers"];
            if (containers.is_array()) {
              for (Json& c : containers) {
                c["env"].push_back({{"name", "JOB_COMPLETION_INDEX"}, {"value", index}});
              }
            }
            tmpl["spec"]["hostname"] = name + "-" + index;
          }
          auto created = client_->Create(PodsGvr(), ns, PodFromTemplate(*job, tmpl, prefix, true));
          if (!created.ok()) {
            for (int64_t j = i; j < missing; ++j) expectations_.CreationFailed(key);
            events_->Record(*job, {.component = kComponent}, "Warning", "FailedCreate",
                            "Error creating: " + created.status().message());
            next = Result::Retry(created.status().ToString());
            break;
          }
          events_->Record(*job, {.component = kComponent}, "Normal", "SuccessfulCreate",
                          "Created pod: " + Str(*created, {"metadata", "name"}));
        }
      }
    }
    if (deadline.is_number_integer() && start && fail_reason.empty() && !complete) {
      next = Result::Earliest(
          next, Result::After(*start + std::chrono::seconds(deadline.get<int64_t>()) - now));
    }
  }

  status["active"] = static_cast<int64_t>(active.size());
  status["succeeded"] = succeeded;
  status["failed"] = failed;
  status["ready"] = ready;
  status["terminating"] = terminating;
  if (indexed) {
    std::string done;
    for (int64_t i : succeeded_indexes) done += (done.empty() ? "" : ",") + std::to_string(i);
    status["completedIndexes"] = done;
  }
  status["uncountedTerminatedPods"] = Json::object();
  status["conditions"] = conditions.empty() ? Json(nullptr) : conditions;
  if (status["conditions"].is_null()) status.erase("conditions");
  for (const char* zero : {"succeeded", "failed", "terminating"}) {
    if (status[zero] == 0) status.erase(zero);
  }
  if (status != At(*job, {"status"})) {
    Json patch_status = status;
    const Json& old = At(*job, {"status"});
    if (old.is_object()) {
      for (auto& [k, v] : old.items()) {
        if (!patch_status.contains(k)) patch_status[k] = nullptr;
      }
    }
    auto r = client_->Patch(JobsGvr(), ns, name, kube::PatchType::kMerge,
                            Json{{"status", patch_status}}.dump(), {.subresource = "status"});
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      return Result::Retry("status of job " + key + ": " + r.status().ToString());
    }
  }
  return next;
}

}  // namespace trimtab::cluster::runtime
