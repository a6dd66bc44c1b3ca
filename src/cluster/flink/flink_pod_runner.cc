#include "cluster/flink/flink_pod_runner.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "cluster/flink/jobmanager_process.h"
#include "cluster/flink/snapshot_metadata.h"
#include "sim/key_groups.h"

namespace trimtab::sim::flink {

namespace {

constexpr int kMaxOwnerDepth = 6;
constexpr char kJobAnnotation[] = "trimtab.dev/job";
constexpr char kWorkloadAnnotation[] = "trimtab.dev/workload";
constexpr char kJobConfigMapAnnotation[] = "trimtab.dev/job-configmap";
constexpr char kWorkloadConfigMapAnnotation[] = "trimtab.dev/workload-configmap";

kube::GroupVersionResource GvrOf(const std::string& api_version, const std::string& kind) {
  kube::GroupVersionResource gvr;
  const size_t slash = api_version.find('/');
  gvr.group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  gvr.version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  std::string plural = kind;
  for (char& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  plural += plural.ends_with("s") ? "es" : "s";
  gvr.resource = plural;
  return gvr;
}

std::string Describe(const Json& object) {
  return object.value("kind", "object") + " " + kube::ObjectNamespace(object) + "/" + kube::ObjectName(object);
}

// The pod and its owners, nearest first (owners that cannot be read are skipped).
StatusOr<std::vector<Json>> OwnerChain(const kube::KubeClient& kube, const Json& pod) {
  std::vector<Json> chain = {pod};
  const std::string ns = kube::ObjectNamespace(pod);
  for (size_t i = 0; i < chain.size() && static_cast<int>(chain.size()) < kMaxOwnerDepth; ++i) {
    const Json& meta = chain[i]["metadata"];
    if (!meta.contains("ownerReferences") || !meta["ownerReferences"].is_array()) continue;
    for (const Json& ref : meta["ownerReferences"]) {
      const std::string name = ref.value("name", "");
      StatusOr<Json> owner = kube.Get(GvrOf(ref.value("apiVersion", "v1"), ref.value("kind", "")), ns, name);
      if (owner.ok()) {
        if (!owner->contains("kind")) (*owner)["kind"] = ref.value("kind", "");
        chain.push_back(std::move(*owner));
      } else if (owner.status().code() != StatusCode::kNotFound) {
        return owner.status().WithContext("reading owner " + ref.value("kind", "") + " " + ns + "/" + name);
      }
    }
  }
  return chain;
}

std::string Annotation(const Json& object, const std::string& key) {
  const Json& meta = object["metadata"];
  if (!meta.contains("annotations") || !meta["annotations"].contains(key) || !meta["annotations"][key].is_string()) {
    return "";
  }
  return meta["annotations"][key].get<std::string>();
}

// The text of an annotation (or of the ConfigMap it names) on the nearest object that has it.
StatusOr<std::optional<SourcedText>> FindText(const kube::KubeClient& kube, const std::vector<Json>& chain,
                                              const char* annotation, const char* configmap_annotation,
                                              const char* configmap_key) {
  for (const Json& object : chain) {
    if (std::string text = Annotation(object, annotation); !text.empty()) {
      return std::optional<SourcedText>(SourcedText{text, "annotation " + std::string(annotation) + " on " + Describe(object)});
    }
    if (std::string cm = Annotation(object, configmap_annotation); !cm.empty()) {
      const std::string ns = kube::ObjectNamespace(object);
      TRIMTAB_ASSIGN_OR_RETURN(Json map, kube.Get(kube::ConfigMapsResource(), ns, cm));
      if (!map.contains("data") || !map["data"].contains(configmap_key) || !map["data"][configmap_key].is_string()) {
        return InvalidArgumentError("ConfigMap " + ns + "/" + cm + " (named by " + configmap_annotation + " on " +
                                    Describe(object) + ") has no key \"" + configmap_key + "\"");
      }
      return std::optional<SourcedText>(SourcedText{map["data"][configmap_key].get<std::string>(),
                                                    "ConfigMap " + ns + "/" + cm + " key " + configmap_key});
    }
  }
  return std::optional<SourcedText>();
}

// The Flink configuration of a JobManager pod: mounted ConfigMap, -D args, FLINK_PROPERTIES.
StatusOr<FlinkConfig> ReadConfiguration(const kube::KubeClient& kube, const Json& pod, const Json& container) {
  FlinkConfig config;
  const std::string ns = kube::ObjectNamespace(pod);
  if (const std::string cm = ConfigMapForConfDir(pod, container); !cm.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(Json map, kube.Get(kube::ConfigMapsResource(), ns, cm));
    const Json data = map.contains("data") ? map["data"] : Json::object();
    if (data.contains("config.yaml") && data["config.yaml"].is_string()) {
      TRIMTAB_ASSIGN_OR_RETURN(config, FlinkConfig::ParseConfigYaml(data["config.yaml"].get<std::string>(),
                                                                    "ConfigMap " + ns + "/" + cm + " config.yaml"));
    } else if (data.contains("flink-conf.yaml") && data["flink-conf.yaml"].is_string()) {
      config = FlinkConfig::ParseFlinkConfYaml(data["flink-conf.yaml"].get<std::string>());
    }
  }
  config.ApplyDynamicProperties(ContainerArgs(container));
  config.ApplyFlinkProperties(ContainerEnv(container, "FLINK_PROPERTIES"));
  return config;
}

// The TaskManager pod template the Flink configuration names (TaskManagerPodTemplateKeys), read
// from the ConfigMap volume of the JobManager pod that holds the file, as Flink reads the file
// inside the pod; null when no template is configured.
StatusOr<Json> ReadTaskManagerPodTemplate(const kube::KubeClient& kube, const Json& pod, const Json& container,
                                          const FlinkConfig& config) {
  std::string key;
  std::string path;
  for (const std::string& k : TaskManagerPodTemplateKeys()) {
    if (std::optional<std::string> v = config.Get(k); v && !v->empty() && key.empty()) {
      key = k;
      path = *v;
    }
  }
  if (key.empty()) return Json();
  const std::string ns = kube::ObjectNamespace(pod);
  std::optional<ConfigMapFile> file = ConfigMapFileForPath(pod, container, path);
  if (!file) {
    return InvalidArgumentError("Flink configuration " + key + ": pod template file " + path +
                                " is not on a ConfigMap volume of JobManager pod " + ns + "/" + kube::ObjectName(pod));
  }
  TRIMTAB_ASSIGN_OR_RETURN(Json map, kube.Get(kube::ConfigMapsResource(), ns, file->config_map));
  const std::string what = "ConfigMap " + ns + "/" + file->config_map + " key " + file->key;
  if (!map.contains("data") || !map["data"].contains(file->key) || !map["data"][file->key].is_string()) {
    return InvalidArgumentError("Flink configuration " + key + ": pod template file " + path + " does not exist (" +
                                what + " is missing)");
  }
  TRIMTAB_ASSIGN_OR_RETURN(Json tmpl, ParseYaml(map["data"][file->key].get<std::string>(), what));
  if (tmpl.is_null()) return Json::object();
  if (!tmpl.is_object()) return InvalidArgumentError(what + ": a pod template must be a Pod object");
  return tmpl;
}

// The owner reference TaskManager pods get: the JobManager Deployment (as Flink's native
// resource manager sets it), else the JobManager pod.
Json TaskManagerOwner(const std::vector<Json>& chain, const kube::KubeClient& kube, const std::string& ns,
                      const std::string& cluster_id) {
  for (const Json& o : chain) {
    if (o.value("kind", "") == "Deployment") {
      return Json{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", kube::ObjectName(o)},
                  {"uid", kube::ObjectUid(o)}, {"controller", true}, {"blockOwnerDeletion", true}};
    }
  }
  kube::GroupVersionResource deployments{.group = "apps", .version = "v1", .resource = "deployments"};
  if (StatusOr<Json> d = kube.Get(deployments, ns, cluster_id); d.ok()) {
    return Json{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", cluster_id},
                {"uid", kube::ObjectUid(*d)}, {"controller", true}, {"blockOwnerDeletion", true}};
  }
  const Json& pod = chain.front();
  return Json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", kube::ObjectName(pod)}, {"uid", kube::ObjectUid(pod)},
              {"controller", false}, {"blockOwnerDeletion", true}};
}

}  // namespace

StatusOr<std::map<std::string, WorkloadEntry>> ParseWorkloadFile(std::string_view text, std::string_view what) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, what));
  std::map<std::string, WorkloadEntry> out;
  if (doc.is_null()) return out;
  if (!doc.is_object()) return InvalidArgumentError(std::string(what) + ": expected a map \"<namespace>/<cluster-id>\" -> {job, workload}");
  for (const auto& [key, value] : doc.items()) {
    const std::string path = std::string(what) + ": " + key;
    if (key.find('/') == std::string::npos) return InvalidArgumentError(path + ": key must be <namespace>/<cluster-id>");
    JsonReader r(value, path);
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    WorkloadEntry e;
    if (const Json* j = r.Get("job")) e.job = *j;
    if (const Json* w = r.Get("workload")) e.workload = *w;
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    out[key] = std::move(e);
  }
  return out;
}

StatusOr<std::map<std::string, WorkloadEntry>> LoadWorkloadFile(const std::string& path) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseWorkloadFile(text, path);
}

FlinkPodRunner::FlinkPodRunner(FlinkPodRunnerOptions options) : options_(std::move(options)) {
  if (!options_.clock) options_.clock = RealClock::Default();
  topics_ = options_.topics ? options_.topics : std::make_shared<TopicRegistry>(options_.clock);
  std::string root = options_.data_dir;
  if (root.empty()) {
    root = (std::filesystem::temp_directory_path() / ("trimtab-flink-" + std::to_string(::getpid()))).string();
  }
  fs_ = std::make_shared<SimFileSystem>(root + "/flink-fs");
  if (!options_.topics && !options_.data_dir.empty()) {
    // The topics and their ledger outlive the process (topic_registry.h "Persistence").
    std::shared_ptr<SimFileSystem> fs = fs_;
    Status persisted = topics_->Persist(
        options_.data_dir + "/flink-topics.jsonl", [fs](const std::string& snapshot) {
          return fs->Exists(SimFileSystem::Join(snapshot, kMetadataFileName));
        });
    if (!persisted.ok()) {
      spdlog::warn("simulated Flink topics are kept in memory only: {}", persisted.ToString());
    }
  }
}

FlinkPodRunner::~FlinkPodRunner() = default;

bool FlinkPodRunner::Handles(const Json& pod) const { return IsTaskManagerPod(pod) || IsJobManagerPod(pod); }

std::shared_ptr<FlinkCluster> FlinkPodRunner::ClusterOf(const std::string& namespace_name,
                                                        const std::string& pod_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clusters_.find(namespace_name + "/" + pod_name);
  return it == clusters_.end() ? nullptr : it->second.lock();
}

std::vector<std::shared_ptr<FlinkCluster>> FlinkPodRunner::ClustersIn(const std::string& ns) const {
  std::vector<std::shared_ptr<FlinkCluster>> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, weak] : clusters_) {
    if (!key.starts_with(ns + "/")) continue;
    if (auto cluster = weak.lock()) out.push_back(std::move(cluster));
  }
  return out;
}

std::vector<cluster::metrics::TopicSample> FlinkPodRunner::Topics(const std::string& ns, TimePoint) {
  std::vector<cluster::metrics::TopicSample> out;
  for (const auto& cluster : ClustersIn(ns)) {
    cluster->Locked([&](ClusterState& s) {
      const std::string& cluster_id = s.settings().cluster_id;
      for (const std::unique_ptr<FlinkJob>& job : s.jobs()) {
        const JobModel* model = job->model();
        if (!model || IsTerminal(job->status())) continue;
        const std::vector<VertexId>& sources = model->source_ids();
        for (size_t si = 0; si < sources.size(); ++si) {
          const JobVertexView* view = nullptr;
          for (const JobVertexView& v : job->vertices()) {
            if (v.spec_id == sources[si]) view = &v;
          }
          cluster::metrics::TopicSample t;
          t.topic = sources[si];
          t.consumer_group = cluster_id;
          t.labels = {{"cluster", cluster_id}, {"job", job->name()}};
          t.records_in_per_second = model->source_rate(static_cast<int>(si));
          t.owner_resource = "flinkdeployments.flink.apache.org";
          t.owner_name = cluster_id;
          const std::vector<PartitionOffsets>& parts = model->partitions(static_cast<int>(si));
          for (size_t p = 0; p < parts.size(); ++p) {
            cluster::metrics::TopicPartitionSample sample{static_cast<int>(p), parts[p].end,
                                                          std::min(parts[p].committed, parts[p].end), ""};
            if (view && job->tasks_running()) {
              const int subtask = KafkaPartitionOwner(view->spec_id, static_cast<int>(p), view->parallelism);
              if (const TaskManagerInfo* tm = job->SubtaskTaskManager(subtask)) sample.consumer_pod = tm->id;
            }
            t.partitions.push_back(std::move(sample));
          }
          out.push_back(std::move(t));
        }
      }
    });
  }
  return out;
}

std::map<std::string, double> FlinkPodRunner::PodCpu(const std::string& ns, TimePoint) {
  std::map<std::string, double> out;
  for (const auto& cluster : ClustersIn(ns)) {
    cluster->Locked([&](ClusterState& s) {
      const double cores = s.settings().task_manager.cpu;
      for (const auto& [tm, metrics] : s.Metrics().taskmanagers) {
        auto load = metrics.find("Status.JVM.CPU.Load");
        if (load == metrics.end()) continue;
        char* end = nullptr;
        const double v = std::strtod(load->second.c_str(), &end);
        if (end != load->second.c_str()) out[tm] = v * cores;
      }
    });
  }
  return out;
}

StatusOr<std::unique_ptr<cluster::PodProcess>> FlinkPodRunner::Start(const cluster::PodStartContext& context) {
  if (IsTaskManagerPod(context.pod)) return std::unique_ptr<cluster::PodProcess>(new TaskManagerProcess(context.pod));
  if (!IsJobManagerPod(context.pod)) return InvalidArgumentError("pod " + kube::ObjectName(context.pod) + " is not a Flink pod");
  return StartJobManager(context);
}

StatusOr<std::unique_ptr<cluster::PodProcess>> FlinkPodRunner::StartJobManager(const cluster::PodStartContext& ctx) {
  if (!options_.kube) return FailedPreconditionError("flink pod runner: no Kubernetes client configured");
  const kube::KubeClient& kube = *options_.kube;
  const Json& pod = ctx.pod;
  const std::string ns = kube::ObjectNamespace(pod).empty() ? "default" : kube::ObjectNamespace(pod);
  const std::string pod_name = kube::ObjectName(pod);
  const Json* container = MainContainer(pod);
  if (!container) return InvalidArgumentError("pod " + ns + "/" + pod_name + " has no containers");
  TRIMTAB_ASSIGN_OR_RETURN(FlinkConfig config, ReadConfiguration(kube, pod, *container));

  ClusterSettings::Defaults defaults;
  defaults.mode = ModeFromArgs(ContainerArgs(*container));
  const LabelMap labels = kube::ObjectLabels(pod);
  auto app = labels.find("app");
  defaults.cluster_id = app != labels.end() ? app->second : pod_name;
  defaults.namespace_name = ns;
  defaults.version = FlinkVersion::FromImage(container->value("image", ""));
  TRIMTAB_ASSIGN_OR_RETURN(ClusterSettings settings, ClusterSettings::Parse(config, defaults));
  const std::string cluster_id = settings.cluster_id;

  // Where the job graph and the workload come from (docs/design/flink-pods.md "The simulated job").
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> chain, OwnerChain(kube, pod));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<SourcedText> annotated_job,
                           FindText(kube, chain, kJobAnnotation, kJobConfigMapAnnotation, "job"));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<SourcedText> annotated_workload,
                           FindText(kube, chain, kWorkloadAnnotation, kWorkloadConfigMapAnnotation, "workload"));
  const std::map<std::string, WorkloadEntry> entries = options_.workloads;
  const FlinkConfig cluster_config = config;
  JobResolver resolver = [=](const ProgramInfo& program, const FlinkConfig& job_config) -> StatusOr<JobDefinition> {
    const auto from_request = [&](const char* key) -> std::optional<SourcedText> {
      std::optional<std::string> v = job_config.Get(key);
      std::optional<std::string> c = cluster_config.Get(key);
      if (v && (!c || *c != *v)) return SourcedText{*v, std::string("job submission flinkConfiguration ") + key};
      return std::nullopt;
    };
    const auto from_config = [&](const char* key) -> std::optional<SourcedText> {
      if (std::optional<std::string> v = job_config.Get(key)) return SourcedText{*v, std::string("Flink configuration ") + key};
      return std::nullopt;
    };
    const WorkloadEntry* entry = nullptr;
    std::string entry_key;
    for (const std::string& key : {ns + "/" + cluster_id + "/" + program.job_name, ns + "/" + cluster_id}) {
      if (auto it = entries.find(key); it != entries.end() && !entry) {
        entry = &it->second;
        entry_key = key;
      }
    }
    JobDefinition d;
    std::optional<SourcedText> job = from_request("trimtab.job");
    if (!job) job = annotated_job;
    if (!job) job = from_config("trimtab.job");
    if (job) {
      TRIMTAB_ASSIGN_OR_RETURN(d.spec, ParseJobText(*job, program));
      d.job_origin = job->origin;
    } else if (entry && entry->job) {
      TRIMTAB_ASSIGN_OR_RETURN(d.spec, ParseJobJson(*entry->job, "--workload " + entry_key + ".job", program));
      d.job_origin = "--workload " + entry_key;
    } else {
      d.spec = DefaultJobForProgram(program);
      d.job_origin = "default job graph for \"" + ProgramDisplayName(program) + "\"";
    }
    std::optional<SourcedText> workload = from_request("trimtab.workload");
    if (!workload) workload = annotated_workload;
    if (!workload) workload = from_config("trimtab.workload");
    if (workload) {
      TRIMTAB_ASSIGN_OR_RETURN(d.workload, ParseWorkloadText(*workload, d.spec));
      d.workload_origin = workload->origin;
    } else if (entry && entry->workload) {
      TRIMTAB_ASSIGN_OR_RETURN(d.workload, ParseWorkloadJson(*entry->workload, "--workload " + entry_key + ".workload", d.spec));
      d.workload_origin = "--workload " + entry_key;
    } else {
      d.workload = DefaultWorkload(d.spec);
      d.workload_origin = "default: half the initial capacity";
    }
    return d;
  };

  std::shared_ptr<ConfigMapHaStore> ha;
  if (settings.ha_enabled) ha = std::make_shared<ConfigMapHaStore>(options_.kube, ns, cluster_id, options_.clock);
  uint64_t seed = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seed = HashPair(options_.seed, ++started_ ^ std::hash<std::string>{}(kube::ObjectUid(pod) + pod_name));
  }

  // The attempt of this JobManager: one more than any TaskManager pod left by a previous one.
  int attempt = 1;
  {
    kube::ReadOptions options;
    TRIMTAB_ASSIGN_OR_RETURN(options.labels, LabelSelector::Parse("app=" + cluster_id + ",component=taskmanager"));
    TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> tms, kube.List(kube::PodsResource(), ns, options));
    for (const Json& tm : tms) {
      if (auto parsed = ParseTaskManagerPodName(cluster_id, kube::ObjectName(tm))) attempt = std::max(attempt, parsed->first + 1);
    }
  }

  FlinkClusterOptions fo;
  fo.cluster.config = config;
  fo.cluster.settings = settings;
  fo.cluster.topics = topics_;
  fo.cluster.fs = fs_;
  fo.cluster.ha = ha;
  fo.cluster.resolver = resolver;
  fo.cluster.auto_task_managers = false;
  fo.cluster.host = ctx.pod_ip;
  fo.cluster.reader = ns + "/" + pod_name;
  fo.cluster.seed = seed;
  fo.cluster.max_step_seconds = options_.max_step_seconds;
  fo.clock = options_.clock;
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<FlinkCluster> created, FlinkCluster::Create(std::move(fo)));
  std::shared_ptr<FlinkCluster> cluster = std::move(created);
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<FlinkRestServer> rest,
                           FlinkRestServer::Create({.address = ctx.pod_ip, .port = settings.rest_port}, cluster.get()));
  if (ha) {
    const Status leader = ha->WriteLeader(ctx.pod_ip, rest->port(), IdGenerator(seed).Uuid());
    if (!leader.ok()) return leader.WithContext("writing the HA leader of Flink cluster " + cluster_id);
  }

  JobManagerProcess::Init init;
  init.kube = options_.kube;
  init.cluster = cluster;
  init.ha = ha;
  init.pod = pod;
  init.namespace_name = ns;
  init.cluster_id = cluster_id;
  init.tm_template.namespace_name = ns;
  init.tm_template.cluster_id = cluster_id;
  init.tm_template.image = container->value("image", "flink:" + settings.version.String());
  init.tm_template.config_map = ConfigMapForConfDir(pod, *container);
  init.tm_template.service_account = pod["spec"].value("serviceAccountName", "");
  init.tm_template.owner = TaskManagerOwner(chain, kube, ns, cluster_id);
  TRIMTAB_ASSIGN_OR_RETURN(init.tm_template.pod_template, ReadTaskManagerPodTemplate(kube, pod, *container, config));
  init.tm_template.image_configured =
      config.Has("kubernetes.container.image") || config.Has("kubernetes.container.image.ref");
  init.tm_template.service_account_configured =
      config.Has("kubernetes.taskmanager.service-account") || config.Has("kubernetes.service-account");
  init.tm_shape = settings.task_manager;
  init.standalone = IsStandaloneEntrypoint(ContainerArgs(*container));
  init.attempt = attempt;
  init.sync_interval = options_.sync_interval;
  init.start_log = {
      "Starting simulated Flink JobManager (" + std::string(settings.mode == DeploymentMode::kApplication ? "application" : "session") +
          " mode, Flink " + settings.version.String() + ") for cluster " + ns + "/" + cluster_id,
      "Rest endpoint listening at " + rest->base_url(),
      "TaskManager pods: attempt " + std::to_string(attempt) + ", " + std::to_string(settings.task_manager.slots) +
          " slot(s) each"};
  cluster->Locked([&](ClusterState& s) {
    for (const auto& j : s.jobs()) init.start_log.push_back("Submitting job " + j->name() + " (" + j->id() + ")");
  });
  init.rest = std::move(rest);
  {
    std::lock_guard<std::mutex> lock(mu_);
    clusters_[ns + "/" + pod_name] = cluster;
  }
  return std::unique_ptr<cluster::PodProcess>(new JobManagerProcess(std::move(init)));
}

}  // namespace trimtab::sim::flink
