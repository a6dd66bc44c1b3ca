#include "operator/wiring/operator.h"

#include <unistd.h>

#include <cctype>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kube/client_metrics.h"
#include "operator/controller_shared/kube_resources.h"

namespace trimtab::op {
namespace {

Json AnnotationsWithout(const Json& object, const char* skip) {
  Json a = object.value("metadata", Json::object()).value("annotations", Json::object());
  a.erase(skip);
  return a;
}

// Enqueue on spec (generation), deletion, finalizer, label or annotation changes and on resyncs,
// not on status-only writes (our own).
bool Relevant(const Json& before, const Json& after) {
  const Json& mb = before["metadata"];
  const Json& ma = after["metadata"];
  if (mb.value("resourceVersion", "") == ma.value("resourceVersion", "")) return true;  // resync
  return mb.value("generation", 0) != ma.value("generation", 0) ||
         mb.contains("deletionTimestamp") != ma.contains("deletionTimestamp") ||
         mb.value("finalizers", Json::array()) != ma.value("finalizers", Json::array()) ||
         mb.value("labels", Json::object()) != ma.value("labels", Json::object()) ||
         AnnotationsWithout(before, kScalingDecisionAnnotation) !=
             AnnotationsWithout(after, kScalingDecisionAnnotation);
}

std::string DefaultIdentity() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "_" + std::to_string(getpid());
}

}  // namespace

Operator::Operator(OperatorOptions options) : options_(std::move(options)) {}

StatusOr<std::unique_ptr<Operator>> Operator::Create(OperatorOptions options) {
  if (options.workers < 1) return InvalidArgumentError("workers: must be at least 1");
  if (!options.clock) options.clock = RealClock::Default();
  std::unique_ptr<Operator> op(new Operator(std::move(options)));
  OperatorOptions& o = op->options_;
  op->metrics_ = o.metrics;
  if (op->metrics_ == nullptr) {
    op->owned_metrics_ = std::make_unique<MetricsRegistry>();
    op->metrics_ = op->owned_metrics_.get();
  }
  MetricsRegistry& m = *op->metrics_;
  const std::vector<std::string> kinds = {"controller", "resourcetype"};
  op->reconciles_ = &m.Counter("flink_k8soperator_JOSDK_Reconciliation_Count",
                               "Reconcile passes started.", kinds);
  op->reconcile_failures_ = &m.Counter("flink_k8soperator_JOSDK_Reconciliation_failed_Count",
                                       "Reconcile passes that failed (retried with backoff).",
                                       kinds);
  op->reconcile_retries_ = &m.Counter("flink_k8soperator_JOSDK_Reconciliation_retries_Count",
                                      "Reconcile passes that retried a failed one.", kinds);
  op->reconcile_seconds_ = &m.Histogram(
      "flink_k8soperator_JOSDK_Reconciliation_TimeSeconds",
      "Duration of reconcile passes, by result (success or failed).",
      {"controller", "resourcetype", "result"},
      {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60});
  MetricFamily* leader = &m.Gauge(
      "leader_election_master_status",
      "1 while this operator leads (always 1 without leader election), 0 otherwise.", {"name"});
  op->leader_collector_ = m.AddCollector([raw = op.get(), leader] {
    leader->Set({raw->options_.lease_name}, raw->leading_.load() ? 1 : 0);
  });
  TRIMTAB_ASSIGN_OR_RETURN(
      op->client_,
      kube::KubeClient::Create(o.rest_config, {.clock = o.clock,
                                               .on_request = kube::KubeClientMetricsHook(&m)}));
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<http::HttpClient> http,
                           http::HttpClient::Create({.user_agent = "trimtab-operator"}));
  op->events_ = std::make_unique<EventRecorder>(OperatorEventOptions(op->client_.get(), o.clock));
  if (!o.autoscaler && o.autoscaler_factory) {
    TRIMTAB_ASSIGN_OR_RETURN(op->owned_autoscaler_,
                             o.autoscaler_factory({.client = op->client_.get(),
                                                   .clock = o.clock,
                                                   .events = op->events_.get(),
                                                   .plugins_dir = o.plugins_dir,
                                                   .metrics = op->metrics_}));
    o.autoscaler = op->owned_autoscaler_.get();
  }
  const RestEndpointResolver* resolver = o.resolver;
  if (!resolver) {
    op->owned_resolver_ = std::make_unique<ServiceRestEndpointResolver>(
        op->client_.get(), ServiceResolverOptions{.resolve_via_api = o.resolve_services_via_api});
    resolver = op->owned_resolver_.get();
  }
  ControllerDeps deps{.client = op->client_.get(),
                      .clock = o.clock,
                      .events = op->events_.get(),
                      .resolver = resolver,
                      .http = std::shared_ptr<const http::HttpClient>(std::move(http)),
                      .default_config = o.default_configuration,
                      .autoscaler = o.autoscaler,
                      .tcp_probe = o.tcp_probe,
                      .fetch_artifact = o.fetch_artifact};
  op->deployments_ = std::make_unique<FlinkDeploymentController>(deps);
  op->session_jobs_ = std::make_unique<FlinkSessionJobController>(deps);
  op->snapshots_ = std::make_unique<FlinkStateSnapshotController>(deps);
  if (o.leader_election) {
    if (o.identity.empty()) o.identity = DefaultIdentity();
    TRIMTAB_ASSIGN_OR_RETURN(
        op->elector_,
        kube::LeaderElector::Create(
            op->client_.get(),
            {.lease_namespace = o.lease_namespace,
             .lease_name = o.lease_name,
             .identity = o.identity,
             .clock = o.clock,
             .on_started_leading =
                 [raw = op.get()] {
                   raw->leading_ = true;
                   Status s = raw->StartControllers();
                   if (!s.ok()) spdlog::error("operator: start controllers: {}", s.ToString());
                 },
             .on_stopped_leading =
                 [raw = op.get()] {
                   raw->leading_ = false;
                   spdlog::warn("operator: leadership lost; stopping the controllers");
                   raw->StopControllers();
                   raw->MarkStopped();
                 }}));
  }
  if (o.health_port >= 0) {
    Operator* raw = op.get();
    TRIMTAB_ASSIGN_OR_RETURN(
        op->health_,
        http::HttpServer::Create({.address = o.health_address, .port = o.health_port, .threads = 1},
                                 [raw](const http::HttpRequest& req) {
                                   if (req.path == "/healthz" || req.path == "/livez") {
                                     return http::HttpResponse::Text(200, "ok\n");
                                   }
                                   if (req.path == "/readyz") {
                                     return raw->Healthy() ? http::HttpResponse::Text(200, "ok\n")
                                                           : http::HttpResponse::Text(503, "not ready\n");
                                   }
                                   if (req.path == "/metrics") {
                                     return http::HttpResponse::Text(200, raw->metrics_->Render(),
                                                                     kPrometheusTextContentType);
                                   }
                                   return http::HttpResponse::Text(404, "not found\n");
                                 }));
  }
  return op;
}

Operator::~Operator() {
  Stop();
  if (metrics_ && leader_collector_) metrics_->RemoveCollector(leader_collector_);
}

bool Operator::Healthy() const {
  if (stopped_.load()) return false;
  if (options_.leader_election && !leading_.load()) return true;  // a ready standby
  std::lock_guard<std::mutex> lock(mu_);
  if (!controllers_running_) return false;
  for (const auto& informer : informers_) {
    if (!informer->HasSynced()) return false;
  }
  return true;
}

void Operator::AddInformer(const kube::GroupVersionResource& gvr, const std::string& ns,
                           const std::string& label_selector, kube::EventHandler handler) {
  StatusOr<std::unique_ptr<kube::Informer>> informer = kube::Informer::Create(
      client_.get(), {.gvr = gvr,
                      .namespace_name = ns,
                      .label_selector = label_selector,
                      .resync_period = options_.resync_period,
                      .clock = options_.clock});
  if (!informer.ok()) {
    spdlog::error("operator: informer for {}: {}", gvr.String(), informer.status().ToString());
    return;
  }
  (*informer)->AddEventHandler(std::move(handler));
  informers_.push_back(std::move(*informer));
}

std::unique_ptr<kube::Controller> Operator::NewController(
    const std::string& controller, const std::string& resource_type,
    std::function<StatusOr<ReconcileResult>(const std::string& ns, const std::string& name)>
        reconcile) {
  const LabelValues labels = {controller, resource_type};
  return std::make_unique<kube::Controller>(
      kube::ControllerOptions{
          .name = controller,
          .clock = options_.clock,
          .workers = options_.workers,
          .rate_limiter = std::make_unique<kube::ExponentialBackoffLimiter>(
              options_.error_backoff_base, options_.error_backoff_max),
          .metrics = metrics_,
          .queue_name = [&] {
            std::string q = resource_type;
            for (char& c : q) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return q;
          }(),
          .on_pass =
              [this, labels, controller, resource_type](const kube::PassReport& pass) {
                reconciles_->Inc(labels);
                if (pass.requeues_before > 0) reconcile_retries_->Inc(labels);
                reconcile_seconds_->Observe(
                    {controller, resource_type, pass.result.failed() ? "failed" : "success"},
                    std::chrono::duration<double>(pass.elapsed).count());
                if (pass.result.failed()) {
                  reconcile_failures_->Inc(labels);
                  spdlog::warn("reconcile {} {}: {}", resource_type, pass.key, pass.result.error);
                }
              }},
      [reconcile = std::move(reconcile)](const std::string& key) {
        const auto [ns, name] = kube::SplitObjectKey(key);
        StatusOr<ReconcileResult> r = reconcile(ns, name);
        if (!r.ok()) return kube::ReconcileResult::Retry(r.status().ToString());
        if (r->requeue_after) return kube::ReconcileResult::After(*r->requeue_after);
        return kube::ReconcileResult::Done();
      });
}

Status Operator::StartControllers() {
  std::lock_guard<std::mutex> lock(mu_);
  if (controllers_running_) return Status::Ok();
  informers_.clear();  // the previous run's (stopped), whose handlers point at the old loops
  // Upstream's controller names (the reconciler classes, lower case).
  deployment_loop_ = NewController(
      "flinkdeploymentcontroller", "FlinkDeployment",
      [this](const std::string& ns, const std::string& name) {
        return deployments_->Reconcile(ns, name);
      });
  session_job_loop_ = NewController(
      "flinksessionjobcontroller", "FlinkSessionJob",
      [this](const std::string& ns, const std::string& name) {
        return session_jobs_->Reconcile(ns, name);
      });
  kube::Controller* dq = deployment_loop_.get();
  kube::Controller* sq = session_job_loop_.get();
  auto handler = [](kube::Controller* q) {
    return kube::EventHandler{
        .on_add = [q](const Json& o) { q->Enqueue(kube::ObjectKey(o)); },
        .on_update = [q](const Json& before, const Json& after) {
          if (Relevant(before, after)) q->Enqueue(kube::ObjectKey(after));
        },
        .on_delete = nullptr};
  };
  // JobManager Deployments wake up their FlinkDeployment (readiness, failures, deletion).
  kube::EventHandler jm_handler{
      .on_add = nullptr,
      .on_update =
          [dq](const Json&, const Json& after) {
            for (const Json& owner :
                 after["metadata"].value("ownerReferences", Json::array())) {
              if (owner.value("kind", "") == "FlinkDeployment") {
                dq->Enqueue(kube::ObjectKey(kube::ObjectNamespace(after), owner.value("name", "")));
              }
            }
          },
      .on_delete =
          [dq](const Json& o) {
            for (const Json& owner : o["metadata"].value("ownerReferences", Json::array())) {
              if (owner.value("kind", "") == "FlinkDeployment") {
                dq->Enqueue(kube::ObjectKey(kube::ObjectNamespace(o), owner.value("name", "")));
              }
            }
          }};
  const std::vector<std::string> namespaces =
      options_.namespaces.empty() ? std::vector<std::string>{""} : options_.namespaces;
  const bool snapshots = SnapshotsServed(namespaces.front());
  snapshot_loop_.reset();
  if (snapshots) {
    snapshot_loop_ = NewController(
        "flinkstatesnapshotcontroller", "FlinkStateSnapshot",
        [this](const std::string& ns, const std::string& name) {
          return snapshots_->Reconcile(ns, name);
        });
  } else {
    spdlog::warn("operator: the API server does not serve flinkstatesnapshots.flink.apache.org; "
                 "FlinkStateSnapshots are not reconciled");
  }
  for (const std::string& ns : namespaces) {
    AddInformer(FlinkDeploymentsResource(), ns, "", handler(dq));
    AddInformer(FlinkSessionJobsResource(), ns, "", handler(sq));
    if (snapshots) AddInformer(FlinkStateSnapshotsResource(), ns, "", handler(snapshot_loop_.get()));
    AddInformer(DeploymentsResource(), ns, "type=flink-native-kubernetes,component=jobmanager",
                jm_handler);
  }
  for (auto& informer : informers_) {
    threads_.emplace_back([i = informer.get()] { i->Run(); });
  }
  deployment_loop_->Start();
  session_job_loop_->Start();
  if (snapshot_loop_) snapshot_loop_->Start();
  controllers_running_ = true;
  spdlog::info("operator: controllers started ({} namespace(s), {} workers each)",
               options_.namespaces.empty() ? std::string("all") : std::to_string(namespaces.size()),
               options_.workers);
  return Status::Ok();
}

void Operator::StopControllers() {
  std::vector<std::thread> threads;
  std::vector<kube::Controller*> loops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!controllers_running_) return;
    controllers_running_ = false;
    for (auto& informer : informers_) informer->Stop();
    threads.swap(threads_);
    // The loops stay (informer handlers point at them) until the controllers start again.
    loops = {deployment_loop_.get(), session_job_loop_.get(), snapshot_loop_.get()};
  }
  for (kube::Controller* loop : loops) {
    if (loop) loop->Stop();  // joins its workers
  }
  for (std::thread& t : threads) t.join();
}

bool Operator::SnapshotsServed(const std::string& ns) const {
  StatusOr<Json> page = client_->ListPage(FlinkStateSnapshotsResource(), ns, {.limit = 1});
  // Only a definite "no such resource" turns the controller off; other errors are the
  // informer's to retry.
  return page.ok() || page.status().code() != StatusCode::kNotFound;
}

Status Operator::Start() {
  stopped_ = false;
  if (elector_) {
    elector_thread_ = std::thread([this] { elector_->Run(); });
    return Status::Ok();
  }
  leading_ = true;
  TRIMTAB_RETURN_IF_ERROR(StartControllers());
  std::vector<kube::Informer*> informers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& i : informers_) informers.push_back(i.get());
  }
  for (kube::Informer* i : informers) {
    if (!i->WaitForSync(std::chrono::seconds(60))) {
      return DeadlineExceededError("operator: informer caches did not sync within 60 s");
    }
  }
  return Status::Ok();
}

void Operator::Stop() {
  if (elector_) {
    elector_->Stop();
    if (elector_thread_.joinable()) elector_thread_.join();
  }
  StopControllers();
  leading_ = false;
  MarkStopped();
  if (health_) health_->Stop();
}

void Operator::MarkStopped() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopped_ = true;
  }
  stop_cv_.notify_all();
}

void Operator::Wait() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  stop_cv_.wait(lock, [this] { return stopped_.load(); });
}

}  // namespace trimtab::op
