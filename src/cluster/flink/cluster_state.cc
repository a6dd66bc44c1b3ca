#include "cluster/flink/cluster_state.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

namespace {

constexpr int64_t kRequirementsPersistMs = 100;  // an update is "in progress" while persisted
constexpr char kJobNotFoundException[] = "org.apache.flink.runtime.messages.FlinkJobNotFoundException";

std::string Scheme(const std::string& path) {
  const size_t sep = path.find("://");
  return sep == std::string::npos ? "file" : path.substr(0, sep);
}

std::vector<std::string> SplitArgs(const std::string& args) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= args.size() && !args.empty()) {
    size_t j = args.find(';', i);
    if (j == std::string::npos) j = args.size();
    if (j > i) out.push_back(args.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<std::string> KnownEntryClasses(const std::string& jar) {
  if (jar.find("StateMachineExample") != std::string::npos) {
    return {"org.apache.flink.streaming.examples.statemachine.StateMachineExample"};
  }
  if (jar.find("TopSpeedWindowing") != std::string::npos) {
    return {"org.apache.flink.streaming.examples.windowing.TopSpeedWindowing"};
  }
  return {};
}

}  // namespace

StatusOr<JobDefinition> ResolveJobFromConfig(const ProgramInfo& program, const FlinkConfig& job_config) {
  std::optional<SourcedText> job, workload;
  if (auto t = job_config.Get("trimtab.job")) job = SourcedText{*t, "Flink configuration trimtab.job"};
  if (auto t = job_config.Get("trimtab.workload")) workload = SourcedText{*t, "Flink configuration trimtab.workload"};
  return BuildJobDefinition(job, workload, program);
}

ClusterState::ClusterState(ClusterOptions options, TimePoint now)
    : options_(std::move(options)), now_(now), start_ms_(ToUnixMillis(now)), ids_(options_.seed) {}

ClusterState::~ClusterState() = default;

StatusOr<std::unique_ptr<ClusterState>> ClusterState::Create(ClusterOptions options, TimePoint now) {
  if (!options.topics || !options.fs) return InvalidArgumentError("Flink cluster: topics and fs are required");
  if (options.settings.ha_enabled && !options.ha) {
    return InvalidArgumentError("Flink cluster " + options.settings.cluster_id + ": high availability needs an HA store");
  }
  if (!options.resolver) options.resolver = ResolveJobFromConfig;
  std::unique_ptr<ClusterState> state(new ClusterState(std::move(options), now));
  TRIMTAB_RETURN_IF_ERROR(state->Init());
  return state;
}

Status ClusterState::Init() {
  const ClusterSettings& s = options_.settings;
  if (options_.auto_task_managers) {
    slots_.SetProvisioner([this](int index, TimePoint at) {
      TaskManagerInfo info;
      info.id = options_.settings.cluster_id + "-taskmanager-1-" + std::to_string(index);
      info.host = options_.host;
      info.data_port = 6121 + index;
      info.slots = options_.settings.task_manager.slots;
      info.registered_at = at;
      return info;
    });
  }
  if (s.mode == DeploymentMode::kApplication) {
    JobSubmission sub;
    sub.program.jar = s.jar;
    sub.program.entry_class = s.entry_class;
    sub.program.args = SplitArgs(s.program_args);
    sub.job_id = !s.job_id.empty() ? s.job_id : s.ha_enabled ? StableHexId("ha-job-id", s.cluster_id) : ids_.HexId();
    sub.savepoint_path = s.savepoint_path;
    if (JobResultExists(sub.job_id)) {
      // Globally terminated before this JobManager started: the application is done.
      results_recorded_.insert(sub.job_id);
      if (s.shutdown_on_application_finish) shutdown_requested_ = true;
      return Status::Ok();
    }
    StatusOr<std::string> id = SubmitJob(sub);
    if (!id.ok()) return id.status().WithContext("application job of Flink cluster " + s.cluster_id);
    return Status::Ok();
  }
  if (s.ha_enabled) {
    TRIMTAB_ASSIGN_OR_RETURN(auto graphs, options_.ha->LoadJobGraphs());
    for (const auto& [job_id, record] : graphs) {
      JobSubmission sub;
      sub.job_id = job_id;
      sub.program.jar = record.value("jar", "");
      sub.program.entry_class = record.value("entryClass", "");
      if (record.contains("args") && record["args"].is_array()) {
        for (const Json& a : record["args"]) {
          if (a.is_string()) sub.program.args.push_back(a.get<std::string>());
        }
      }
      sub.program.parallelism = record.value("parallelism", 0);
      if (record.contains("flinkConfiguration") && record["flinkConfiguration"].is_object()) {
        for (const auto& [k, v] : record["flinkConfiguration"].items()) {
          if (v.is_string()) sub.overrides.Set(k, v.get<std::string>());
        }
      }
      sub.job_graph_record = record;
      StatusOr<std::string> recovered = SubmitJob(sub);
      if (!recovered.ok()) return recovered.status().WithContext("recovering job " + job_id);
    }
  }
  return Status::Ok();
}

// ---- Time --------------------------------------------------------------------------------------

void ClusterState::AdvanceTo(TimePoint now) {
  if (now < now_) now = now_;
  for (const std::unique_ptr<FlinkJob>& job : jobs_) job->AdvanceTo(now);
  now_ = now;
  for (const std::unique_ptr<FlinkJob>& job : jobs_) {
    for (SnapshotOutcome& o : job->TakeOutcomes()) {
      operations_.Complete(o.kind, job->id(), o.trigger_id, std::move(o.operation), now_);
    }
  }
  RecordJobResults();
  operations_.Expire(now_, options_.settings.async_store_duration);
  if (options_.auto_task_managers) {
    for (const std::string& tm : TaskManagersToRelease()) slots_.Unregister(tm);
  }
  const ClusterSettings& s = options_.settings;
  if (s.mode == DeploymentMode::kApplication && s.shutdown_on_application_finish && !jobs_.empty() &&
      IsGloballyTerminal(jobs_.front()->status())) {
    shutdown_requested_ = true;
  }
}

// ---- Job result store ------------------------------------------------------------------------

std::string ClusterState::JobResultUri(const std::string& job_id) const {
  return SimFileSystem::Join(options_.settings.job_result_store_path, job_id + ".json");
}

bool ClusterState::JobResultExists(const std::string& job_id) const {
  const ClusterSettings& s = options_.settings;
  return s.ha_enabled && !s.job_result_store_path.empty() && options_.fs->Exists(JobResultUri(job_id));
}

void ClusterState::RecordJobResults() {
  const ClusterSettings& s = options_.settings;
  if (!s.ha_enabled || s.job_result_store_path.empty()) return;  // in memory without HA
  for (const std::unique_ptr<FlinkJob>& job : jobs_) {
    if (!IsGloballyTerminal(job->status()) || results_recorded_.count(job->id())) continue;
    results_recorded_.insert(job->id());
    if (s.job_result_store_delete_on_commit) continue;  // the entry goes after the cleanup
    const std::string status(JobStatusName(job->status()));
    const Json entry = {
        {"result",
         {{"id", job->id()},
          {"application-status", status == "FINISHED" ? "SUCCEEDED" : status},
          {"accumulator-results", Json::object()},
          {"net-runtime", std::max<int64_t>(0, job->end_ms() - job->start_ms())}}},
        {"version", 1}};
    options_.fs->WriteFile(JobResultUri(job->id()), entry.dump()).IgnoreError();
  }
}

// ---- Jobs --------------------------------------------------------------------------------------

FlinkJob* ClusterState::FindJob(const std::string& job_id) {
  for (const std::unique_ptr<FlinkJob>& j : jobs_) {
    if (j->id() == job_id) return j.get();
  }
  return nullptr;
}

const FlinkJob* ClusterState::FindJob(const std::string& job_id) const {
  return const_cast<ClusterState*>(this)->FindJob(job_id);
}

StatusOr<std::optional<RestoreInfo>> ClusterState::FindRestore(const std::string& job_id,
                                                                 const std::string& savepoint_path,
                                                                 bool allow_non_restored, int64_t* ha_counter,
                                                                 std::string* restore_error) {
  RestoreInfo r;
  r.allow_non_restored_state = allow_non_restored;
  std::string path = savepoint_path;
  if (options_.settings.ha_enabled) {
    StatusOr<HaJobState> st = options_.ha->LoadJob(job_id);
    if (!st.ok()) {
      *restore_error = "Could not read the high-availability metadata of job " + job_id + ": " + st.status().message();
      return std::optional<RestoreInfo>();
    }
    *ha_counter = st->counter;
    if (!st->checkpoints.empty()) {
      path = st->checkpoints.rbegin()->second;  // the HA store wins over execution.savepoint.path
      r.from_ha = true;
    }
  }
  if (path.empty()) return std::optional<RestoreInfo>();
  const std::string metadata_path = path.ends_with(std::string("/") + kMetadataFileName)
                                        ? path
                                        : SimFileSystem::Join(path, kMetadataFileName);
  if (path.ends_with(std::string("/") + kMetadataFileName)) path = path.substr(0, path.size() - 10);
  StatusOr<std::string> text = path == kLastStatePath ? StatusOr<std::string>(NotFoundError("no metadata"))
                                                      : options_.fs->ReadFile(metadata_path);
  if (!text.ok()) {
    *restore_error = "Failed to restore from checkpoint/savepoint: Cannot find checkpoint or savepoint file/directory '" +
                     path + "' on file system '" + Scheme(path) + "'.";
    return std::optional<RestoreInfo>();
  }
  StatusOr<Json> json = ParseJson(*text, metadata_path);
  StatusOr<SnapshotMetadata> m = json.ok() ? SnapshotMetadataFromJson(*json, metadata_path)
                                           : StatusOr<SnapshotMetadata>(json.status());
  if (!m.ok()) {
    *restore_error = "Failed to restore from checkpoint/savepoint " + path + ": " + m.status().message();
    return std::optional<RestoreInfo>();
  }
  r.path = path;
  r.metadata = std::move(*m);
  return std::optional<RestoreInfo>(std::move(r));
}

StatusOr<std::string> ClusterState::SubmitJob(const JobSubmission& sub) {
  FlinkConfig merged = options_.config;
  merged.MergeFrom(sub.overrides);
  ClusterSettings::Defaults defaults;
  defaults.mode = options_.settings.mode;
  defaults.cluster_id = options_.settings.cluster_id;
  defaults.namespace_name = options_.settings.namespace_name;
  defaults.version = options_.settings.version;
  TRIMTAB_ASSIGN_OR_RETURN(ClusterSettings js, ClusterSettings::Parse(merged, defaults));
  js.cluster_id = options_.settings.cluster_id;
  js.namespace_name = options_.settings.namespace_name;
  ProgramInfo program = sub.program;
  if (program.parallelism <= 0) program.parallelism = js.default_parallelism;
  program.max_parallelism = js.max_parallelism;
  if (program.job_name.empty()) program.job_name = !js.pipeline_name.empty() ? js.pipeline_name : ProgramDisplayName(program);
  StatusOr<JobDefinition> definition = options_.resolver(program, merged);
  if (!definition.ok()) {
    return InvalidArgumentError("Could not build the job graph of " + program.job_name + ": " +
                                definition.status().message());
  }
  const std::string job_id = sub.job_id.empty() ? ids_.HexId() : sub.job_id;
  if (FindJob(job_id)) {
    return ConflictError("org.apache.flink.runtime.client.DuplicateJobSubmissionException: Job has already been "
                         "submitted. JobID: " + job_id);
  }
  JobSetup setup;
  setup.id = job_id;
  setup.name = program.job_name;
  setup.definition = std::move(*definition);
  setup.program = program;
  setup.seed = std::hash<std::string>{}(job_id) ^ options_.seed;
  const std::string savepoint = !sub.savepoint_path.empty() ? sub.savepoint_path : js.savepoint_path;
  TRIMTAB_ASSIGN_OR_RETURN(setup.restore,
                           FindRestore(job_id, savepoint, sub.allow_non_restored_state.value_or(js.allow_non_restored_state),
                                       &setup.ha_counter, &setup.restore_error));
  auto settings = std::make_unique<ClusterSettings>(std::move(js));
  JobEnv env;
  env.topics = options_.topics.get();
  env.fs = options_.fs.get();
  env.slots = &slots_;
  env.ids = &ids_;
  env.ha_outbox = settings->ha_enabled ? &ha_outbox_ : nullptr;
  env.settings = settings.get();
  env.reader = options_.reader;
  env.max_step_seconds = options_.max_step_seconds;
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<FlinkJob> job, FlinkJob::Create(std::move(setup), env, now_));
  if (settings->ha_enabled) {
    HaUpdate u;
    u.type = HaUpdate::Type::kJobGraphAdded;
    u.job_id = job_id;
    Json record = sub.job_graph_record.is_object() ? sub.job_graph_record : Json::object();
    record["jobId"] = job_id;
    record["jobName"] = program.job_name;
    record["jar"] = program.jar;
    record["entryClass"] = program.entry_class;
    record["args"] = program.args;
    record["parallelism"] = sub.program.parallelism;
    if (!record.contains("flinkConfiguration")) {
      Json overrides = Json::object();
      for (const auto& [k, v] : sub.overrides.entries()) overrides[k] = v;
      record["flinkConfiguration"] = overrides;
    }
    u.job_graph = record;
    ha_outbox_.push_back(std::move(u));
  }
  job_settings_[job_id] = std::move(settings);
  jobs_.push_back(std::move(job));
  return job_id;
}

Status ClusterState::CancelJob(const std::string& job_id) {
  FlinkJob* job = FindJob(job_id);
  if (!job) return NotFoundError("Job " + job_id + " not found");
  const Status s = job->Cancel(now_);
  if (!s.ok()) return ConflictError(s.message());
  AdvanceTo(now_);
  return Status::Ok();
}

std::string ClusterState::TriggerSavepoint(const std::string& job_id, const SavepointRequest& request,
                                           const std::string& client_trigger) {
  const std::string trigger = client_trigger.empty() ? ids_.HexId() : client_trigger;
  if (!operations_.Register(AsyncOperations::Kind::kSavepoint, job_id, trigger, now_)) return trigger;
  if (FlinkJob* job = FindJob(job_id)) {
    job->TriggerSavepoint(request, trigger, now_);
    AdvanceTo(now_);
  } else {
    operations_.Complete(AsyncOperations::Kind::kSavepoint, job_id, trigger,
                         Json{{"failure-cause", FailureCause(kJobNotFoundException,
                                                             "Could not find Flink job (" + job_id + ")")}},
                         now_);
  }
  return trigger;
}

std::string ClusterState::TriggerCheckpoint(const std::string& job_id, const std::string& client_trigger) {
  const std::string trigger = client_trigger.empty() ? ids_.HexId() : client_trigger;
  if (!operations_.Register(AsyncOperations::Kind::kCheckpoint, job_id, trigger, now_)) return trigger;
  if (FlinkJob* job = FindJob(job_id)) {
    job->TriggerCheckpoint(trigger, now_);
    AdvanceTo(now_);
  } else {
    operations_.Complete(AsyncOperations::Kind::kCheckpoint, job_id, trigger,
                         Json{{"failureCause", FailureCause(kJobNotFoundException,
                                                            "Could not find Flink job (" + job_id + ")")}},
                         now_);
  }
  return trigger;
}

std::string ClusterState::DisposeSavepoint(const std::string& path) {
  const std::string trigger = ids_.HexId();
  operations_.Register(AsyncOperations::Kind::kDisposal, "", trigger, now_);
  std::string dir = path;
  const std::string suffix = std::string("/") + kMetadataFileName;
  if (dir.ends_with(suffix)) dir = dir.substr(0, dir.size() - suffix.size());
  Json result = Json::object();
  if (!options_.fs->Exists(SimFileSystem::Join(dir, kMetadataFileName))) {
    result["failure-cause"] = FailureCause(
        "java.io.FileNotFoundException",
        "Cannot find meta data file '_metadata' in directory '" + dir +
            "'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory.");
  } else if (const Status s = options_.fs->RemoveAll(dir); !s.ok()) {
    result["failure-cause"] = FailureCause("java.io.IOException", s.message());
  }
  operations_.Complete(AsyncOperations::Kind::kDisposal, "", trigger, std::move(result), now_);
  return trigger;
}

std::optional<Json> ClusterState::OperationResult(AsyncOperations::Kind kind, const std::string& job_id,
                                                  const std::string& trigger_id) const {
  return operations_.Result(kind, job_id, trigger_id);
}

Status ClusterState::UpdateResourceRequirements(
    const std::string& job_id, const std::map<std::string, std::pair<int64_t, int64_t>>& requirements) {
  FlinkJob* job = FindJob(job_id);
  if (!job || IsTerminal(job->status())) return NotFoundError("Job " + job_id + " not found");
  const ClusterSettings& s = job->settings();
  if (s.scheduler != SchedulerType::kAdaptive) {
    return InternalError("java.lang.UnsupportedOperationException: The DefaultScheduler does not support changing "
                         "the parallelism without a job restart. This feature is currently only expected to work "
                         "with the AdaptiveScheduler.");
  }
  if (s.reactive) {
    return InternalError("java.lang.UnsupportedOperationException: Cannot change the resource requirements of a "
                         "job running in reactive mode.");
  }
  std::vector<std::string> errors;
  std::map<std::string, VertexRequirement> parsed;
  for (const JobVertexView& v : job->vertices()) {
    auto it = requirements.find(v.id);
    if (it == requirements.end()) {
      errors.push_back("The request is incomplete, missing job vertex [" + v.id + "] resource requirements.");
      continue;
    }
    const int64_t lower = it->second.first == -1 ? 1 : it->second.first;
    const int64_t upper = it->second.second == -1 ? v.max_parallelism : it->second.second;
    if (lower < 1 || upper < 1) {
      errors.push_back("The parallelism of job vertex [" + v.id + "] must be positive (or -1).");
    } else if (lower > upper) {
      errors.push_back("The lower bound of job vertex [" + v.id + "] (" + std::to_string(lower) +
                       ") must not be greater than its upper bound (" + std::to_string(upper) + ").");
    } else if (upper > v.max_parallelism) {
      errors.push_back("The upper bound of job vertex [" + v.id + "] (" + std::to_string(upper) +
                       ") must not exceed its max parallelism (" + std::to_string(v.max_parallelism) + ").");
    }
    parsed[v.id] = VertexRequirement{static_cast<int>(lower), static_cast<int>(upper)};
  }
  for (const auto& [vid, bounds] : requirements) {
    if (job->VertexIndex(vid) < 0) errors.push_back("Job vertex [" + vid + "] was not found in job [" + job_id + "].");
  }
  if (!errors.empty()) {
    std::string joined;
    for (const std::string& e : errors) joined += (joined.empty() ? "" : "\n") + e;
    return InvalidArgumentError(joined);
  }
  auto busy = requirements_busy_until_ms_.find(job_id);
  if (busy != requirements_busy_until_ms_.end() && now_ms() < busy->second) {
    return ConflictError("Another update to the job [" + job_id + "] resource requirements is in progress.");
  }
  requirements_busy_until_ms_[job_id] = now_ms() + kRequirementsPersistMs;
  job->UpdateResourceRequirements(parsed, now_);
  AdvanceTo(now_);
  return Status::Ok();
}

Status ClusterState::FailJobForTest(const std::string& job_id, const std::string& message) {
  FlinkJob* job = FindJob(job_id);
  if (!job) return NotFoundError("Job " + job_id + " not found");
  job->FailTasks("java.lang.RuntimeException", message, "", now_);
  AdvanceTo(now_);
  return Status::Ok();
}

// ---- TaskManagers ------------------------------------------------------------------------------

void ClusterState::RegisterTaskManager(const TaskManagerInfo& info) {
  TaskManagerInfo registered = info;
  registered.registered_at = now_;
  if (!slots_.Register(registered)) return;
  AdvanceTo(now_);
}

void ClusterState::UnregisterTaskManager(const std::string& tm_id, const std::string& reason) {
  const std::vector<std::string> jobs = slots_.Unregister(tm_id);
  tm_counters_.erase(tm_id);
  for (const std::string& job_id : jobs) {
    if (FlinkJob* job = FindJob(job_id)) {
      job->FailTasks("org.apache.flink.runtime.jobmaster.JobMasterException",
                     "TaskManager with id " + tm_id + " is no longer reachable" + (reason.empty() ? "." : ": " + reason),
                     tm_id, now_);
    }
  }
  AdvanceTo(now_);
}

int ClusterState::DesiredTaskManagers() const {
  int slots = 0;
  for (const std::unique_ptr<FlinkJob>& j : jobs_) {
    if (IsTerminal(j->status()) || !j->model()) continue;
    slots += j->required_slots();
  }
  const int per_tm = std::max(1, options_.settings.task_manager.slots);
  return (slots + per_tm - 1) / per_tm;
}

std::vector<std::string> ClusterState::TaskManagersToRelease() const {
  const int registered = static_cast<int>(slots_.task_managers().size());
  const int surplus = registered - DesiredTaskManagers();
  if (surplus <= 0) return {};
  std::vector<std::string> idle = slots_.IdleSince(now_, options_.settings.task_manager_idle_timeout);
  if (static_cast<int>(idle.size()) > surplus) idle.resize(static_cast<size_t>(surplus));
  return idle;
}

// ---- Jars --------------------------------------------------------------------------------------

StatusOr<JarFile> ClusterState::UploadJar(const std::string& file_name) {
  std::string name = file_name;
  const size_t slash = name.find_last_of("/\\");
  if (slash != std::string::npos) name = name.substr(slash + 1);
  if (!name.ends_with(".jar")) return InvalidArgumentError("Only Jar files are allowed.");
  JarFile jar;
  jar.name = name;
  jar.id = ids_.Uuid() + "_" + name;
  jar.path = options_.settings.upload_dir + "/flink-web-" + StableHexId("upload", options_.settings.cluster_id).substr(0, 8) +
             "/flink-web-upload/" + jar.id;
  jar.uploaded_ms = now_ms();
  jar.entry_classes = KnownEntryClasses(name);
  jars_[jar.id] = jar;
  return jar;
}

Status ClusterState::DeleteJar(const std::string& jar_id) {
  if (jars_.erase(jar_id) == 0) return NotFoundError("File " + jar_id + " does not exist in " + options_.settings.upload_dir + ".");
  return Status::Ok();
}

// ---- Metrics, HA, lifecycle ---------------------------------------------------------------------

const MetricSnapshot& ClusterState::Metrics() {
  const int64_t interval = options_.settings.metric_fetch_interval.count();
  if (metrics_.fetched_ms < 0 || now_ms() - metrics_.fetched_ms >= interval) RefreshMetrics();
  return metrics_;
}

std::vector<HaUpdate> ClusterState::TakeHaUpdates() {
  std::vector<HaUpdate> out;
  out.swap(ha_outbox_);
  return out;
}

void ClusterState::SuspendAll() {
  for (const std::unique_ptr<FlinkJob>& job : jobs_) job->Suspend(now_);
  AdvanceTo(now_);
}

}  // namespace trimtab::sim::flink
