// `trimtab operator`: the Flink Kubernetes operator (FlinkDeployment, FlinkSessionJob) against
// any Kubernetes API server, until SIGINT/SIGTERM or lost leadership.
#include <CLI/CLI.hpp>

#include <signal.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/kube/rest_config.h"
#include "cli/autoscaler_factory.h"
#include "cli/commands.h"
#include "common/flink_values.h"
#include "dashboard/dashboard.h"
#include "operator/wiring/operator.h"

namespace trimtab::cli {
namespace {

struct OperatorFlags {
  std::string kubeconfig;
  std::string context;
  std::vector<std::string> namespaces;
  std::string plugins_dir;
  std::string prometheus_url;
  std::string executor_chain;
  std::string autoscaler_defaults = "trimtab";
  std::string config_file;
  std::string leader_elect = "auto";  // auto: on when --replicas > 1
  int replicas = 1;
  std::string lease_name = "trimtab-operator";
  std::string lease_namespace;
  std::string reconcile_interval;
  int health_port = 8085;
  std::string health_address = "127.0.0.1";
  int dashboard_port = -1;  // -1: no dashboard
  std::string dashboard_address = "127.0.0.1";
  int workers = 4;
  std::string resolve_services = "auto";  // auto: through the API server unless in-cluster
};

// The cluster clock of `trimtab local --speed N`, handed to the process pods it runs as
// TRIMTAB_LOCAL_CLOCK="<speed>,<cluster now, Unix ms>,<wall now, Unix ms>": time runs `speed`
// times faster than the wall clock from that shared point, as it does in trimtab local.
class LocalPodClock final : public Clock {
 public:
  LocalPodClock(double speed, int64_t virtual_ms, int64_t wall_ms)
      : speed_(speed), virtual_ms_(virtual_ms), wall_ms_(wall_ms) {}
  TimePoint Now() const override {
    const double wall = static_cast<double>(ToUnixMillis(std::chrono::system_clock::now()));
    return FromUnixMillis(virtual_ms_ + static_cast<int64_t>((wall - wall_ms_) * speed_));
  }
  void SleepFor(Duration d) override {
    if (d <= Duration{0}) return;
    std::this_thread::sleep_for(std::chrono::duration_cast<Duration>(d / speed_));
  }

 private:
  double speed_;
  int64_t virtual_ms_;
  int64_t wall_ms_;
};

StatusOr<std::unique_ptr<Clock>> LocalPodClockFromEnv() {
  const char* text = std::getenv("TRIMTAB_LOCAL_CLOCK");
  if (!text || !*text) return std::unique_ptr<Clock>();
  double speed = 0;
  long long virtual_ms = 0, wall_ms = 0;
  if (std::sscanf(text, "%lf,%lld,%lld", &speed, &virtual_ms, &wall_ms) != 3 || speed <= 0) {
    return InvalidArgumentError(std::string("TRIMTAB_LOCAL_CLOCK: expected "
                                            "<speed>,<cluster ms>,<wall ms>, got \"") +
                                text + "\"");
  }
  return std::unique_ptr<Clock>(std::make_unique<LocalPodClock>(speed, virtual_ms, wall_ms));
}

StatusOr<bool> Tristate(const std::string& flag, const std::string& value, bool automatic) {
  if (value == "auto") return automatic;
  if (value == "true") return true;
  if (value == "false") return false;
  return InvalidArgumentError(flag + ": expected true, false or auto, got \"" + value + "\"");
}

StatusOr<op::OperatorOptions> BuildOptions(const OperatorFlags& flags,
                                           std::unique_ptr<Clock>* clock) {
  op::OperatorOptions o;
  TRIMTAB_ASSIGN_OR_RETURN(*clock, LocalPodClockFromEnv());
  if (*clock) o.clock = clock->get();
  TRIMTAB_ASSIGN_OR_RETURN(o.rest_config, kube::LoadDefaultConfig(flags.kubeconfig, flags.context));
  const bool in_cluster = flags.kubeconfig.empty() && !std::getenv("KUBECONFIG") &&
                          std::getenv("KUBERNETES_SERVICE_HOST");
  TRIMTAB_ASSIGN_OR_RETURN(o.resolve_services_via_api,
                           Tristate("--resolve-services-via-api", flags.resolve_services, !in_cluster));
  TRIMTAB_ASSIGN_OR_RETURN(o.leader_election,
                           Tristate("--leader-elect", flags.leader_elect, flags.replicas > 1));
  o.namespaces = flags.namespaces;
  o.plugins_dir = flags.plugins_dir;
  o.lease_name = flags.lease_name;
  o.lease_namespace = flags.lease_namespace.empty() ? o.rest_config.namespace_name
                                                    : flags.lease_namespace;
  o.health_port = flags.health_port;
  o.health_address = flags.health_address;
  // In a pod the host name is the pod's name; trimtab local's process pods pass it as HOSTNAME.
  if (const char* host = std::getenv("HOSTNAME"); in_cluster && host && *host) {
    o.identity = std::string(host) + "_" + std::to_string(::getpid());
  }
  o.workers = flags.workers;
  if (!flags.config_file.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(flags.config_file));
    TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, flags.config_file));
    TRIMTAB_ASSIGN_OR_RETURN(o.default_configuration,
                             api::FlattenFlinkConfiguration(doc, flags.config_file));
  }
  if (!flags.reconcile_interval.empty()) {
    const char* key = "kubernetes.operator.reconcile.interval";
    TRIMTAB_RETURN_IF_ERROR(ParseFlinkDuration("--reconcile-interval",
                                                            flags.reconcile_interval).status());
    o.default_configuration[key] = flags.reconcile_interval;
  }
  TRIMTAB_RETURN_IF_ERROR(
      ApplyAutoscalerDefaultsFlag(flags.autoscaler_defaults, &o.default_configuration));
  TRIMTAB_ASSIGN_OR_RETURN(o.autoscaler_factory,
                           MakeAutoscalerFactory(flags.executor_chain, flags.plugins_dir,
                                                 flags.prometheus_url));
  return o;
}

int RunOperator(const OperatorFlags& flags) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::unique_ptr<Clock> clock;  // outlives the operator
  StatusOr<op::OperatorOptions> options = BuildOptions(flags, &clock);
  if (!options.ok()) {
    std::fprintf(stderr, "trimtab operator: %s\n", options.status().ToString().c_str());
    return 2;
  }
  const std::string server = options->rest_config.server;
  const kube::RestConfig rest_config = options->rest_config;
  const bool leader_election = options->leader_election;
  StatusOr<std::unique_ptr<op::Operator>> op = op::Operator::Create(std::move(*options));
  if (!op.ok()) {
    std::fprintf(stderr, "trimtab operator: %s\n", op.status().ToString().c_str());
    return 1;
  }
  Status started = (*op)->Start();
  if (!started.ok()) {
    std::fprintf(stderr, "trimtab operator: %s\n", started.ToString().c_str());
    (*op)->Stop();
    return 1;
  }
  std::printf("trimtab operator: API server %s, namespaces %s%s\n", server.c_str(),
              flags.namespaces.empty() ? "all" : "given",
              leader_election ? ", leader election on" : "");
  if ((*op)->health_port() > 0) {
    std::printf("health: :%d/healthz, metrics: :%d/metrics\n", (*op)->health_port(),
                (*op)->health_port());
  }
  // The dashboard: a read-only page of its own on --dashboard-port (docs/dashboard.md).
  std::unique_ptr<dashboard::DashboardServer> dash;
  if (flags.dashboard_port >= 0) {
    auto served = dashboard::ServeDashboard(rest_config, flags.namespaces,
                                            flags.dashboard_address, flags.dashboard_port);
    if (!served.ok()) {
      std::fprintf(stderr, "trimtab operator: %s\n", served.status().ToString().c_str());
      (*op)->Stop();
      return 1;
    }
    dash = std::move(served).value();
    std::printf("dashboard: %s/dashboard/\n", dash->server->base_url().c_str());
  }
  std::fflush(stdout);
  std::thread signal_waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    std::printf("trimtab operator: %s received, stopping\n", received == SIGINT ? "SIGINT" : "SIGTERM");
    (*op)->Stop();
  });
  (*op)->Wait();
  const bool lost_leadership = leader_election && (*op)->IsLeader() == false;
  if (dash) dash->Stop();
  (*op)->Stop();
  // Leadership lost: exit so that the pod restarts as a standby (as upstream does).
  if (signal_waiter.joinable()) {
    pthread_kill(signal_waiter.native_handle(), SIGTERM);
    signal_waiter.join();
  }
  return lost_leadership ? 1 : 0;
}

}  // namespace

void RegisterOperatorCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<OperatorFlags>();
  CLI::App* cmd = app.add_subcommand(
      "operator",
      "Run the Flink Kubernetes operator: reconcile FlinkDeployment and FlinkSessionJob resources\n"
      "(flink.apache.org/v1beta1, upstream-compatible) against a Kubernetes API server, with the\n"
      "trimtab autoscaler (job.autoscaler.enabled: \"true\"). See docs/autoscaler-operator.md.\n\n"
      "The API server comes from --kubeconfig, $KUBECONFIG, the in-cluster service account, or\n"
      "~/.kube/config, in that order. Runs until SIGINT or SIGTERM.");
  cmd->add_option("--kubeconfig", flags->kubeconfig, "kubeconfig file");
  cmd->add_option("--context", flags->context, "kubeconfig context (default: current-context)");
  cmd->add_option("--namespace,-n", flags->namespaces,
                  "namespace to watch; repeat for several (default: all namespaces)");
  cmd->add_option("--plugins-dir", flags->plugins_dir,
                  "directory of shared-library executor plugins for the autoscaler chain");
  cmd->add_option("--prometheus-url", flags->prometheus_url,
                  "Prometheus HTTP API (http://prometheus:9090) for the custom metrics plugins "
                  "declare with source prometheus (docs/plugins.md); default: none");
  cmd->add_option("--executor-chain", flags->executor_chain,
                  "the autoscaler's executor plugin chain, JSON or YAML as in docs/plugins.md\n"
                  "(plugins with type, priority and config; libraries; pluginDirectory).\n"
                  "Default: no plugins, plus trimtab's default plugins for jobs with trimtab's defaults")
      ->check(CLI::ExistingFile);
  cmd->add_option("--autoscaler-defaults", flags->autoscaler_defaults,
                  "which defaults the autoscaler takes for job.autoscaler.* options a job does not set:\n"
                  "trimtab (tuned on bench/autoscaling; with the restart-cost-gate plugin) or flink\n"
                  "(upstream's, exactly); a job's job.autoscaler.defaults chooses for itself\n"
                  "(docs/operator.md)")
      ->check(CLI::IsMember({"trimtab", "flink"}))
      ->capture_default_str();
  cmd->add_option("--config", flags->config_file,
                  "operator default configuration (YAML, flat or nested keys): kubernetes.operator.* "
                  "options and defaults for every Flink cluster");
  cmd->add_option("--leader-elect", flags->leader_elect,
                  "Lease-based leader election: true, false or auto (on when --replicas > 1)")
      ->capture_default_str();
  cmd->add_option("--replicas", flags->replicas, "operator replicas in this deployment")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--lease-name", flags->lease_name, "leader election Lease name")
      ->capture_default_str();
  cmd->add_option("--lease-namespace", flags->lease_namespace,
                  "leader election Lease namespace (default: the kubeconfig/in-cluster namespace)");
  cmd->add_option("--reconcile-interval", flags->reconcile_interval,
                  "kubernetes.operator.reconcile.interval, a Flink duration (default 1 min)");
  cmd->add_option("--health-port", flags->health_port,
                  "port of /healthz, /readyz and /metrics (Prometheus, docs/metrics.md); -1 = off")
      ->capture_default_str();
  cmd->add_option("--health-address", flags->health_address,
                  "address the health port binds: loopback unless configured (the deploy/ "
                  "manifests and trimtab local's process pods set TRIMTAB_HEALTH_ADDRESS to the "
                  "pod IP)")
      ->envname("TRIMTAB_HEALTH_ADDRESS")
      ->capture_default_str();
  cmd->add_option("--dashboard-port", flags->dashboard_port,
                  "serve the read-only dashboard (docs/dashboard.md) on this port at /dashboard/; "
                  "0 = a free port, -1 = off")
      ->capture_default_str();
  cmd->add_option("--dashboard-address", flags->dashboard_address,
                  "address the dashboard port binds (it has no authentication of its own: keep it "
                  "on loopback and reach it with kubectl port-forward)")
      ->capture_default_str();
  cmd->add_option("--workers", flags->workers, "reconcile workers per resource kind")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--resolve-services-via-api", flags->resolve_services,
                  "reach JobManager REST services through their cluster IP read from the API "
                  "server instead of cluster DNS: true, false or auto (on outside a cluster; "
                  "trimtab local's process pods set TRIMTAB_RESOLVE_SERVICES_VIA_API=true)")
      ->envname("TRIMTAB_RESOLVE_SERVICES_VIA_API")
      ->capture_default_str();
  cmd->callback([flags, exit_code] { *exit_code = RunOperator(*flags); });
}

}  // namespace trimtab::cli
