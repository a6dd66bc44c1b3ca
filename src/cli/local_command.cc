// `trimtab local`: runs the local cluster until SIGINT/SIGTERM: the Kubernetes-compatible API
// server and, in the same process, the runtime that makes things run (nodes, scheduler, kubelet,
// controllers, service proxy; docs/local-cluster.md).
#include <CLI/CLI.hpp>

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/rest_config.h"
#include "cli/autoscaler_factory.h"
#include "cli/commands.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/metrics/local_metrics.h"
#include "cluster/metrics/prometheus_external.h"
#include "cluster/runtime/process_pod_runner.h"
#include "cluster/runtime/runtime.h"
#include "cluster/volcano/volcano_scheduler.h"
#include "common/duration.h"
#include "common/feature_gates.h"
#include "core/scheduling/scheduler_config.h"
#include "dashboard/dashboard.h"
#include "operator/wiring/bundled_crds.h"
#include "operator/wiring/operator.h"
#include "cluster/flink/flink_pod_runner.h"

namespace trimtab::cli {
namespace {

constexpr int kPreferredPort = 6443;

struct LocalFlags {
  std::string data_dir = ".trimtab";
  std::string address = "127.0.0.1";
  int port = -1;  // -1: 6443 when free, else any free port
  int threads = 4;
  int nodes = 4;
  std::string node_cpu = "8";
  std::string node_memory = "32Gi";
  int64_t node_pods = 110;
  std::string nodes_file;
  double speed = 1.0;
  std::string service_cidr = "127.10.0.0/16";
  std::string pod_cidr = "127.20.0.0/16";
  bool api_only = false;
  // The simulated Flink clusters and the operator.
  std::string workload_file;
  bool no_operator = false;
  std::string executor_chain;
  std::string plugins_dir;
  std::string prometheus_url;
  std::string operator_config;
  std::string autoscaler_defaults = "trimtab";
  uint64_t seed = 1;
  // The embedded operator's /healthz, /readyz and /metrics on --address (0 = a free port).
  int operator_metrics_port = 0;
  // The Volcano scheduler's volcano-scheduler.conf ("" = Volcano's default).
  std::string scheduler_conf;
  // Kubernetes feature gates and the HPA controller (docs/hpa-local.md).
  std::string feature_gates;
  std::string hpa_sync_period = "15s";
  std::string external_metrics_rules;
  // More names (DNS or IP) for the API server's certificate and Host check.
  std::vector<std::string> tls_sans;
};

// PodRunners built into `trimtab local`, tried in this order before the default runner (the
// first whose Handles() is true runs a pod): the simulated Flink JobManagers and TaskManagers
// (docs/design/flink-pods.md), then pods of the trimtab image as real processes
// (process_pod_runner.h). Add in-tree runners here.
// The simulated Flink clusters also feed the metrics APIs (`metrics`, may be null): topics and
// TaskManager CPU (docs/hpa-local.md).
std::vector<cluster::runtime::PodRunnerFactory> InTreePodRunners(
    const LocalFlags& flags, const kube::RestConfig& admin,
    const std::map<std::string, sim::flink::WorkloadEntry>& workloads,
    std::shared_ptr<cluster::metrics::LocalMetricsProvider> metrics) {
  cluster::runtime::PodRunnerFactory flink =
      [data_dir = flags.data_dir, seed = flags.seed, admin, workloads,
       metrics](const cluster::runtime::RuntimeContext& context)
      -> StatusOr<std::shared_ptr<cluster::PodRunner>> {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<kube::KubeClient> client,
                             kube::KubeClient::Create(admin, {}));
    auto runner = std::make_shared<sim::flink::FlinkPodRunner>(sim::flink::FlinkPodRunnerOptions{
        .kube = std::shared_ptr<const kube::KubeClient>(std::move(client)),
        .clock = context.clock,
        .data_dir = data_dir,
        .workloads = workloads,
        .seed = seed});
    if (metrics) metrics->AddStreamingSource(runner);
    return std::shared_ptr<cluster::PodRunner>(std::move(runner));
  };
  // Pods of the trimtab image (deploy/): the real binary as a child process.
  cluster::runtime::PodRunnerFactory process =
      [data_dir = flags.data_dir, admin](const cluster::runtime::RuntimeContext& context)
      -> StatusOr<std::shared_ptr<cluster::PodRunner>> {
    return std::shared_ptr<cluster::PodRunner>(std::make_shared<cluster::runtime::ProcessPodRunner>(
        cluster::runtime::ProcessPodRunnerOptions{.data_dir = data_dir,
                                                  .api_server_url = admin.server,
                                                  .api_server_ca = admin.tls.ca_data,
                                                  .client = context.client,
                                                  .clock = context.clock,
                                                  .events = context.events}));
  };
  return {flink, process};
}

// Schedulers built into `trimtab local`, tried in this order before the default scheduler (the
// first that Serves() a pod's schedulerName places it): Volcano's, for schedulerName volcano
// (docs/gang-scheduling.md). Add in-tree schedulers here.
std::vector<cluster::runtime::SchedulerFactory> InTreeSchedulers(
    core::scheduling::SchedulerConfig volcano_config) {
  return {cluster::volcano::VolcanoSchedulerFactory({.config = std::move(volcano_config)})};
}

// --scheduler-conf, or Volcano's default configuration.
StatusOr<core::scheduling::SchedulerConfig> VolcanoConfig(const LocalFlags& flags) {
  if (flags.scheduler_conf.empty()) return core::scheduling::DefaultSchedulerConfig();
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(flags.scheduler_conf));
  return core::scheduling::ParseSchedulerConfig(text, flags.scheduler_conf);
}

// The HPA controller's options: the sync period and the HPAScaleToZero gate; the rest as
// kube-controller-manager's defaults.
cluster::runtime::HpaControllerOptions HpaOptions(const FeatureGates& gates,
                                                  std::chrono::nanoseconds sync_period) {
  cluster::runtime::HpaControllerOptions options;
  options.sync_period = std::chrono::duration_cast<Duration>(sync_period);
  options.engine.scale_to_zero = gates.Enabled(kHpaScaleToZero);
  return options;
}

// What the metrics APIs serve: the pod usage model and, with --external-metrics-rules, the
// external metrics of a Prometheus (docs/hpa-local.md).
StatusOr<std::shared_ptr<cluster::metrics::LocalMetricsProvider>> MakeMetricsProvider(
    const LocalFlags& flags) {
  auto provider = std::make_shared<cluster::metrics::LocalMetricsProvider>();
  if (flags.external_metrics_rules.empty()) return provider;
  if (flags.prometheus_url.empty()) {
    return InvalidArgumentError("--external-metrics-rules needs --prometheus-url");
  }
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(flags.external_metrics_rules));
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, flags.external_metrics_rules));
  TRIMTAB_ASSIGN_OR_RETURN(auto rules,
                           cluster::metrics::ParsePrometheusRules(doc, flags.external_metrics_rules));
  TRIMTAB_RETURN_IF_ERROR(
      cluster::metrics::AddPrometheusRules(flags.prometheus_url, rules, provider.get()));
  return provider;
}

// The operator in the same process, against the API server over loopback HTTPS with the
// administrator's credentials, exactly as `trimtab operator` would run against a real one.
StatusOr<std::unique_ptr<op::Operator>> StartOperator(const LocalFlags& flags,
                                                      const kube::RestConfig& admin, Clock* clock) {
  op::OperatorOptions options{.rest_config = admin, .clock = clock};
  options.health_port = flags.operator_metrics_port;
  options.health_address = flags.address;
  TRIMTAB_ASSIGN_OR_RETURN(options.autoscaler_factory,
                           MakeAutoscalerFactory(flags.executor_chain, flags.plugins_dir,
                                                 flags.prometheus_url));
  options.plugins_dir = flags.plugins_dir;
  if (!flags.operator_config.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(flags.operator_config));
    TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, flags.operator_config));
    TRIMTAB_ASSIGN_OR_RETURN(options.default_configuration,
                             api::FlattenFlinkConfiguration(doc, flags.operator_config));
  }
  TRIMTAB_RETURN_IF_ERROR(
      ApplyAutoscalerDefaultsFlag(flags.autoscaler_defaults, &options.default_configuration));
  TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<op::Operator> op, op::Operator::Create(std::move(options)));
  TRIMTAB_RETURN_IF_ERROR(op->Start());
  return op;
}

// How the in-process clients (operator, runtime, pod runners) reach the API server: its URL,
// its CA and the administrator's token, as the kubeconfig below gives them to kubectl.
kube::RestConfig AdminConfig(const cluster::ApiServer& server) {
  kube::RestConfig config;
  config.server = server.url();
  // A wildcard address names no host (and is not in the certificate): clients use loopback.
  for (const auto& [wildcard, loopback] : {std::pair{"//0.0.0.0:", "//127.0.0.1:"},
                                           std::pair{"//[::]:", "//[::1]:"}}) {
    const size_t at = config.server.find(wildcard);
    if (at != std::string::npos) config.server.replace(at, std::strlen(wildcard), loopback);
  }
  config.tls.ca_data = server.ca_certificate_pem();
  config.bearer_token = server.admin_token();
  return config;
}

// The administrator's kubeconfig: the server, the CA that signed its certificate
// (certificate-authority-data) and the bearer token of system:admin in the context
// trimtab-local (the current one); with a client certificate, a second user and context
// trimtab-local-cert that authenticate with it instead (kubernetes-admin, system:masters).
std::string Kubeconfig(const kube::RestConfig& admin, const http::KeyPair& client_certificate) {
  std::string cluster = "    server: " + admin.server + "\n";
  if (!admin.tls.ca_data.empty()) {
    cluster += "    certificate-authority-data: " + kube::Base64Encode(admin.tls.ca_data) + "\n";
  }
  const std::string user =
      admin.bearer_token.empty() ? "  user: {}\n" : "  user:\n    token: " + admin.bearer_token + "\n";
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: trimtab-local\n"
         "  cluster:\n" + cluster +
         "users:\n"
         "- name: trimtab-local\n" + user +
         (client_certificate.certificate_pem.empty()
              ? std::string()
              : "- name: trimtab-local-cert\n"
                "  user:\n"
                "    client-certificate-data: " +
                    kube::Base64Encode(client_certificate.certificate_pem) +
                    "\n"
                    "    client-key-data: " +
                    kube::Base64Encode(client_certificate.key_pem) + "\n") +
         "contexts:\n"
         "- name: trimtab-local\n"
         "  context:\n"
         "    cluster: trimtab-local\n"
         "    user: trimtab-local\n"
         "    namespace: default\n" +
         (client_certificate.certificate_pem.empty()
              ? std::string()
              : "- name: trimtab-local-cert\n"
                "  context:\n"
                "    cluster: trimtab-local\n"
                "    user: trimtab-local-cert\n"
                "    namespace: default\n") +
         "current-context: trimtab-local\n";
}

// Writes `text` readable by the owner only (the kubeconfig holds the administrator's token).
Status WriteFileAtomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) return UnavailableError("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::permissions(tmp,
                               std::filesystem::perms::owner_read |
                                   std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::replace, ec);
  std::filesystem::rename(tmp, path, ec);
  if (ec) return UnavailableError("cannot write " + path.string() + ": " + ec.message());
  return Status::Ok();
}

StatusOr<std::vector<cluster::runtime::NodeConfig>> NodesFromFlags(const LocalFlags& flags) {
  if (flags.nodes_file.empty()) {
    auto nodes = cluster::runtime::UniformNodes(flags.nodes, flags.node_cpu, flags.node_memory,
                                                flags.node_pods);
    TRIMTAB_RETURN_IF_ERROR(cluster::runtime::ValidateNodes(nodes));
    return nodes;
  }
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(flags.nodes_file));
  return cluster::runtime::ParseNodesFile(text, flags.nodes_file);
}

std::string DescribeNodes(const std::vector<cluster::runtime::NodeConfig>& nodes) {
  bool uniform = true;
  for (const auto& n : nodes) {
    uniform = uniform && n.cpu == nodes[0].cpu && n.memory == nodes[0].memory &&
              n.pods == nodes[0].pods && n.extended_resources.empty();
  }
  if (uniform) {
    return std::to_string(nodes.size()) + " x (" + nodes[0].cpu + " cpu, " + nodes[0].memory +
           ", " + std::to_string(nodes[0].pods) + " pods)";
  }
  std::string out;
  for (const auto& n : nodes) {
    out += (out.empty() ? "" : ", ") + n.name + " (" + n.cpu + " cpu, " + n.memory + ")";
  }
  return out;
}

int RunLocal(const LocalFlags& flags) {
  auto gates = FeatureGates::Parse(flags.feature_gates);
  if (!gates.ok()) {
    std::fprintf(stderr, "trimtab local: --feature-gates: %s\n", gates.status().ToString().c_str());
    return 2;
  }
  auto hpa_sync = ParseGoDuration(flags.hpa_sync_period);
  if (!hpa_sync.ok() || *hpa_sync <= std::chrono::nanoseconds::zero()) {
    std::fprintf(stderr, "trimtab local: --hpa-sync-period: %s is not a positive duration\n",
                 flags.hpa_sync_period.c_str());
    return 2;
  }
  auto volcano_config = VolcanoConfig(flags);
  if (!volcano_config.ok()) {
    std::fprintf(stderr, "trimtab local: --scheduler-conf: %s\n",
                 volcano_config.status().ToString().c_str());
    return 2;
  }
  auto nodes = NodesFromFlags(flags);
  if (!nodes.ok()) {
    std::fprintf(stderr, "trimtab local: %s\n", nodes.status().ToString().c_str());
    return 2;
  }
  std::map<std::string, sim::flink::WorkloadEntry> workloads;
  if (!flags.workload_file.empty()) {
    auto loaded = sim::flink::LoadWorkloadFile(flags.workload_file);
    if (!loaded.ok()) {
      std::fprintf(stderr, "trimtab local: --workload: %s\n", loaded.status().ToString().c_str());
      return 2;
    }
    workloads = std::move(loaded).value();
  }
  // One clock for the API server's timestamps and the runtime's delays.
  std::unique_ptr<ScaledClock> scaled;
  Clock* clock = RealClock::Default();
  if (flags.speed != 1.0) {
    scaled = std::make_unique<ScaledClock>(flags.speed);
    clock = scaled.get();
  }

  // Block the termination signals before any thread starts, so only sigwait() sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // `kubectl logs` asks the runtime, which starts after the API server.
  auto runtime_for_logs = std::make_shared<std::atomic<cluster::runtime::Runtime*>>(nullptr);
  cluster::ApiServerOptions options{
      .data_dir = flags.data_dir,
      .address = flags.address,
      .port = flags.port < 0 ? kPreferredPort : flags.port,
      .threads = flags.threads,
      .clock = clock,
      .service_cluster_ip_range = flags.service_cidr,
      .pod_logs = [runtime_for_logs](const Json& pod, const std::string& container,
                                     bool previous) -> std::optional<std::string> {
        cluster::runtime::Runtime* runtime = runtime_for_logs->load();
        if (!runtime) return previous ? std::nullopt : std::optional<std::string>("");
        return runtime->PodLogs(pod, container, previous);
      }};
  // TLS with the local CA, every request authenticated, Host checked (docs/security.md).
  options.security = cluster::ApiServerSecurity::Local();
  options.security.extra_names = flags.tls_sans;
  options.feature_gates = *gates;
  std::shared_ptr<cluster::metrics::LocalMetricsProvider> local_metrics;
  if (!flags.api_only) {
    auto metrics = MakeMetricsProvider(flags);
    if (!metrics.ok()) {
      std::fprintf(stderr, "trimtab local: %s\n", metrics.status().ToString().c_str());
      return 2;
    }
    local_metrics = std::move(metrics).value();
    options.metrics = local_metrics;
  }
  auto server = cluster::ApiServer::Create(options);
  if (!server.ok() && flags.port < 0 && server.status().code() == StatusCode::kUnavailable &&
      server.status().message().find("cannot listen") != std::string::npos) {
    options.port = 0;  // 6443 is taken: any free port will do
    server = cluster::ApiServer::Create(options);
  }
  if (!server.ok()) {
    std::fprintf(stderr, "trimtab local: %s\n", server.status().ToString().c_str());
    return 1;
  }
  const kube::RestConfig admin = AdminConfig(**server);
  std::unique_ptr<cluster::runtime::Runtime> runtime;
  if (!flags.api_only) {
    auto created = cluster::runtime::Runtime::Create({.server_url = (*server)->url(),
                                                      .rest_config = admin,
                                                      .clock = clock,
                                                      .nodes = *nodes,
                                                      .pod_cidr = flags.pod_cidr,
                                                      .service_cidr = flags.service_cidr,
                                                      .pod_runners = InTreePodRunners(
                                                          flags, admin, workloads,
                                                          local_metrics),
                                                      .schedulers = InTreeSchedulers(*volcano_config),
                                                      .hpa = HpaOptions(*gates, *hpa_sync)});
    if (!created.ok()) {
      std::fprintf(stderr, "trimtab local: %s\n", created.status().ToString().c_str());
      (*server)->Stop();
      return 1;
    }
    runtime = std::move(created).value();
    runtime_for_logs->store(runtime.get());
    if (local_metrics) local_metrics->AddStreamingSource(runtime->simulated_consumers());
  }
  // The Flink CRDs, so that FlinkDeployments apply right away (a CRD already there is kept),
  // and the operator. --api-only serves a bare API server: no CRDs, no operator.
  std::unique_ptr<op::Operator> flink_operator;
  Status crds_and_operator = [&]() -> Status {
    if (flags.api_only) return Status::Ok();
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<kube::KubeClient> client,
                             kube::KubeClient::Create(admin, {}));
    TRIMTAB_RETURN_IF_ERROR(op::InstallBundledCrds(*client).status());
    if (flags.no_operator) return Status::Ok();
    TRIMTAB_ASSIGN_OR_RETURN(flink_operator, StartOperator(flags, admin, clock));
    return Status::Ok();
  }();
  if (!crds_and_operator.ok()) {
    std::fprintf(stderr, "trimtab local: %s\n", crds_and_operator.ToString().c_str());
    if (runtime) runtime->Stop();
    (*server)->Stop();
    return 1;
  }
  // The dashboard on the API server's port, reading the API server like any client.
  std::unique_ptr<kube::KubeClient> dashboard_client;
  std::unique_ptr<dashboard::Dashboard> dash;
  if (!flags.api_only) {
    auto client = kube::KubeClient::Create(admin, {.user_agent = "trimtab-dashboard"});
    if (client.ok()) {
      dashboard_client = std::move(client).value();
      auto created = dashboard::Dashboard::Create({.client = dashboard_client.get()});
      if (created.ok()) {
        dash = std::move(created).value();
        (*server)->Mount("/dashboard", [d = dash.get()](const http::HttpRequest& request) {
          return d->Handle(request);
        });
      } else {
        std::fprintf(stderr, "trimtab local: dashboard: %s\n", created.status().ToString().c_str());
      }
    }
  }
  std::filesystem::path kubeconfig =
      std::filesystem::absolute(std::filesystem::path(flags.data_dir) / "kubeconfig");
  Status written =
      WriteFileAtomically(kubeconfig, Kubeconfig(admin, (*server)->admin_client_certificate()));
  if (!written.ok()) {
    std::fprintf(stderr, "trimtab local: %s\n", written.ToString().c_str());
    if (flink_operator) flink_operator->Stop();
    if (runtime) runtime->Stop();
    (*server)->Stop();
    return 1;
  }
  std::printf("trimtab local: API server on %s (data in %s)\n", (*server)->url().c_str(),
              std::filesystem::absolute(flags.data_dir).c_str());
  if (runtime) {
    std::printf("nodes:      %s; pods from %s, services from %s\n", DescribeNodes(*nodes).c_str(),
                flags.pod_cidr.c_str(), flags.service_cidr.c_str());
  }
  std::printf("operator:   %s\n",
              flink_operator ? "running (FlinkDeployment, FlinkSessionJob; autoscaler on request)"
                             : "off");
  std::printf("metrics:    %s/metrics (API server)", (*server)->url().c_str());
  if (flink_operator && flink_operator->health_port() > 0) {
    std::printf(", http://%s:%d/metrics (operator)", flags.address.c_str(),
                flink_operator->health_port());
  }
  std::printf("\n");
  if (dash) {
    std::printf("dashboard:  %s/dashboard/ (authenticated; from a browser: kubectl proxy, then "
                "http://127.0.0.1:8001/dashboard/)\n",
                (*server)->url().c_str());
  }
  if (flags.speed != 1.0) {
    std::printf("clock:      %gx wall time (timestamps run ahead of the wall clock)\n", flags.speed);
  }
  std::printf("kubeconfig: %s\n", kubeconfig.c_str());
  std::printf("try:        kubectl --kubeconfig=%s get nodes\n", kubeconfig.c_str());
  std::printf("stop with Ctrl-C\n");
  std::fflush(stdout);

  int received = 0;
  sigwait(&signals, &received);
  std::printf("trimtab local: %s received, stopping\n", received == SIGINT ? "SIGINT" : "SIGTERM");
  std::fflush(stdout);
  // The operator first (it talks to the others), then the pods, then the API server.
  if (dash) dash->Stop();
  if (flink_operator) flink_operator->Stop();
  runtime_for_logs->store(nullptr);
  if (runtime) runtime->Stop();
  (*server)->Stop();
  return 0;
}

}  // namespace

void RegisterLocalCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<LocalFlags>();
  CLI::App* cmd = app.add_subcommand(
      "local",
      "Run a local Kubernetes-compatible cluster: an API server with SQLite storage and, in the\n"
      "same process, simulated nodes, a scheduler, a kubelet, the ReplicaSet / Deployment /\n"
      "Endpoints controllers, a service proxy (docs/local-cluster.md), simulated Flink clusters\n"
      "behind every JobManager pod serving the Flink REST API (docs/design/flink-pods.md) and the\n"
      "Flink operator with its autoscaler (docs/operator.md). The FlinkDeployment,\n"
      "FlinkSessionJob and FlinkStateSnapshot CRDs are installed at start when absent.\n\n"
      "State lives in --data-dir (default ./.trimtab, relative to the working directory) and\n"
      "survives restarts with the same resourceVersions. A kubeconfig for kubectl is written to\n"
      "<data-dir>/kubeconfig (cluster, user and context \"trimtab-local\"): the API server speaks\n"
      "HTTPS with a certificate from a CA made on first start (<data-dir>/pki) and answers only\n"
      "authenticated requests; the kubeconfig carries the CA and the administrator's token\n"
      "(<data-dir>/admin.token), its context \"trimtab-local-cert\" the administrator's client\n"
      "certificate (<data-dir>/pki/admin.crt); certificates the CA issues authenticate their\n"
      "CommonName as user, their Organizations as groups. docs/security.md describes the model.\n"
      "Pod IPs and Service clusterIPs live in 127.0.0.0/8, so `curl http://<clusterIP>:<port>/`\n"
      "reaches what a pod serves on its pod IP. Runs until SIGINT or SIGTERM.");
  cmd->add_option("--data-dir", flags->data_dir, "directory for state.db and the kubeconfig")
      ->capture_default_str();
  cmd->add_option("--address", flags->address,
                  "address to listen on (loopback by default; another address exposes the API\n"
                  "server, which still requires TLS and credentials)")
      ->capture_default_str();
  cmd->add_option("--tls-san", flags->tls_sans,
                  "another DNS name or IP address for the API server's certificate and Host\n"
                  "check (repeatable), e.g. the host name when --address is not loopback");
  cmd->add_option("--port", flags->port,
                  "port to listen on; 0 picks a free one; default: 6443 when free, else any");
  cmd->add_option("--threads", flags->threads, "HTTP serving threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--nodes", flags->nodes, "number of simulated nodes (node-1 .. node-N)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--node-cpu", flags->node_cpu, "cpu capacity of each node (a quantity)")
      ->capture_default_str();
  cmd->add_option("--node-memory", flags->node_memory, "memory capacity of each node")
      ->capture_default_str();
  cmd->add_option("--node-pods", flags->node_pods, "pods each node may run")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  cmd->add_option("--nodes-file", flags->nodes_file,
                  "YAML list of nodes (name, count, cpu, memory, pods, labels, taints, resources);\n"
                  "replaces --nodes/--node-cpu/--node-memory/--node-pods")
      ->check(CLI::ExistingFile);
  cmd->add_option("--speed", flags->speed,
                  "run every part on one clock N times faster than wall time: API timestamps,\n"
                  "start delays, back-offs, the simulated Flink jobs (metrics, checkpoints,\n"
                  "restarts) and the operator's intervals; with N > 1 timestamps run ahead of the\n"
                  "wall clock")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 10000.0));
  cmd->add_option("--service-cidr", flags->service_cidr,
                  "Service clusterIP range (inside 127.0.0.0/8)")
      ->capture_default_str();
  cmd->add_option("--pod-cidr", flags->pod_cidr,
                  "pod IP range (inside 127.0.0.0/8); each node gets a /24 of it")
      ->capture_default_str();
  cmd->add_flag("--api-only", flags->api_only,
                "serve the API only: no nodes, scheduler, kubelet, controllers, proxy, operator\n"
                "or bundled CRDs (a bare Kubernetes-compatible API server)");
  cmd->add_flag("--no-operator", flags->no_operator,
                "run the cluster without the Flink operator (e.g. to run `trimtab operator`\n"
                "against it in another process)");
  cmd->add_option("--workload", flags->workload_file,
                  "YAML/JSON map \"<namespace>/<cluster-id>\" -> {job, workload}: the simulated\n"
                  "job graph and input rate of a Flink cluster (docs/design/flink-pods.md); the\n"
                  "trimtab.dev/job and trimtab.dev/workload annotations take precedence")
      ->check(CLI::ExistingFile);
  cmd->add_option("--executor-chain", flags->executor_chain,
                  "the autoscaler's executor plugin chain (docs/plugins.md)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--plugins-dir", flags->plugins_dir,
                  "directory of shared-library executor plugins");
  cmd->add_option("--prometheus-url", flags->prometheus_url,
                  "Prometheus HTTP API (http://prometheus:9090) for the custom metrics plugins "
                  "declare with source prometheus (docs/plugins.md); default: none");
  cmd->add_option("--autoscaler-defaults", flags->autoscaler_defaults,
                  "which defaults the autoscaler takes for job.autoscaler.* options a job does not set:\n"
                  "trimtab (tuned on bench/autoscaling; with the restart-cost-gate plugin) or flink\n"
                  "(upstream's, exactly); a job's job.autoscaler.defaults chooses for itself\n"
                  "(docs/operator.md)")
      ->check(CLI::IsMember({"trimtab", "flink"}))
      ->capture_default_str();
  cmd->add_option("--operator-config", flags->operator_config,
                  "operator default configuration (kubernetes.operator.* and Flink defaults)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--seed", flags->seed, "seed of the simulated Flink clusters")
      ->capture_default_str();
  cmd->add_option("--operator-metrics-port", flags->operator_metrics_port,
                  "port of the operator's /metrics (and /healthz, /readyz) on --address; 0 picks a\n"
                  "free one (printed at start); -1 = off. The API server's own /metrics is on\n"
                  "its port (docs/metrics.md)")
      ->capture_default_str();
  cmd->add_option("--scheduler-conf", flags->scheduler_conf,
                  "volcano-scheduler.conf of the Volcano scheduler (pods with schedulerName\n"
                  "volcano; docs/gang-scheduling.md); default: Volcano's default configuration")
      ->check(CLI::ExistingFile);
  cmd->add_option("--feature-gates", flags->feature_gates,
                  "Kubernetes feature gates, Name=bool[,...]; known: HPAScaleToZero (default\n"
                  "false as in Kubernetes 1.32)");
  cmd->add_option("--external-metrics-rules", flags->external_metrics_rules,
                  "YAML rules mapping external metric names to Prometheus series, served on\n"
                  "external.metrics.k8s.io from --prometheus-url (docs/hpa-local.md)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--hpa-sync-period", flags->hpa_sync_period,
                  "how often the HPA controller looks at each HorizontalPodAutoscaler, in\n"
                  "cluster time (kube-controller-manager's\n"
                  "--horizontal-pod-autoscaler-sync-period)")
      ->capture_default_str();
  cmd->callback([flags, exit_code] { *exit_code = RunLocal(*flags); });
}

}  // namespace trimtab::cli
