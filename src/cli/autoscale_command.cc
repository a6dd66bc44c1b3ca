// `trimtab autoscale`: the standalone autoscaler for Flink jobs no operator manages
// (src/standalone, docs/autoscale.md), until SIGINT/SIGTERM or, with --once, for one pass.
#include <CLI/CLI.hpp>

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/autoscaler_factory.h"
#include "cli/commands.h"
#include "common/flink_values.h"
#include "standalone/standalone_autoscaler.h"

namespace trimtab::cli {
namespace {

struct AutoscaleFlags {
  std::string config_file;
  std::vector<std::string> rest_urls;
  std::vector<std::string> job_ids;
  std::string state_store;
  std::string executor_chain;
  std::string plugin_dir;
  std::string interval;
  std::string rest_timeout;
  std::string autoscaler_defaults;
  std::string decision_log;
  std::string prometheus_url;
  std::vector<std::string> settings;  // key=value
  bool once = false;
};

StatusOr<standalone::StandaloneConfig> BuildConfig(const AutoscaleFlags& f) {
  standalone::StandaloneConfig c;
  if (!f.config_file.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(f.config_file));
    TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, f.config_file));
    TRIMTAB_RETURN_IF_ERROR(standalone::ParseStandaloneConfig(doc, f.config_file, &c));
  }
  for (const std::string& url : f.rest_urls) {
    TRIMTAB_RETURN_IF_ERROR(standalone::AddCluster("--rest-url", url, &c));
    c.clusters.back().job_ids = f.job_ids;
  }
  if (!f.job_ids.empty() && f.rest_urls.empty()) {
    return InvalidArgumentError("--job-id: names jobs of the --rest-url clusters; give --rest-url");
  }
  if (!f.state_store.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(c.state_store, standalone::ParseStateStore("--state-store",
                                                                        f.state_store));
  }
  if (!f.executor_chain.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(f.executor_chain));
    TRIMTAB_ASSIGN_OR_RETURN(c.executor_chain, ParseYaml(text, f.executor_chain));
    if (!c.executor_chain.is_object()) {
      return InvalidArgumentError(f.executor_chain + ": expected an object with plugins, "
                                  "libraries and pluginDirectory (docs/plugins.md)");
    }
  }
  if (!f.plugin_dir.empty()) c.plugin_directory = f.plugin_dir;
  if (!c.plugin_directory.empty()) {
    if (c.executor_chain.is_null()) c.executor_chain = Json::object();
    c.executor_chain["pluginDirectory"] = c.plugin_directory;
  }
  if (!f.interval.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(c.control_loop_interval,
                             ParseFlinkDurationMillis("--interval", f.interval));
  }
  if (!f.rest_timeout.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(c.rest_timeout,
                             ParseFlinkDurationMillis("--rest-timeout", f.rest_timeout));
  }
  if (!f.autoscaler_defaults.empty()) c.autoscaler_defaults = f.autoscaler_defaults;
  if (!f.decision_log.empty()) c.decision_log = f.decision_log;
  if (!f.prometheus_url.empty()) c.prometheus_url = f.prometheus_url;
  for (const std::string& kv : f.settings) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgumentError("--set: expected key=value, got \"" + kv + "\"");
    }
    c.configuration[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  TRIMTAB_RETURN_IF_ERROR(standalone::ValidateStandaloneConfig(&c));
  TRIMTAB_RETURN_IF_ERROR(ApplyAutoscalerDefaultsFlag(c.autoscaler_defaults, &c.configuration));
  return c;
}

int RunAutoscale(const AutoscaleFlags& flags) {
  StatusOr<standalone::StandaloneConfig> config = BuildConfig(flags);
  if (!config.ok()) {
    std::fprintf(stderr, "trimtab autoscale: %s\n", config.status().ToString().c_str());
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  if (!flags.once) pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  StatusOr<std::unique_ptr<core::AutoscalerStateStore>> store =
      standalone::OpenStateStore(config->state_store);
  if (!store.ok()) {
    std::fprintf(stderr, "trimtab autoscale: %s\n", store.status().ToString().c_str());
    return 1;
  }
  // The decision log: one JSON document per line, appended.
  std::mutex log_mu;
  std::ofstream log_file;
  std::ostream* log_out = nullptr;
  if (config->decision_log == "-") {
    log_out = &std::cout;
  } else if (!config->decision_log.empty()) {
    log_file.open(config->decision_log, std::ios::app);
    if (!log_file) {
      std::fprintf(stderr, "trimtab autoscale: decision log %s: cannot open for appending\n",
                   config->decision_log.c_str());
      return 1;
    }
    log_out = &log_file;
  }
  standalone::StandaloneAutoscalerOptions options{
      .clusters = config->clusters,
      .configuration = config->configuration,
      .state_store = store->get(),
      .executor_chain = config->executor_chain,
      .rest_timeout = config->rest_timeout,
      .prometheus_url = config->prometheus_url};
  if (log_out != nullptr) {
    options.decision_log = [&](const Json& log) {
      std::lock_guard<std::mutex> lock(log_mu);
      *log_out << log.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
      log_out->flush();
    };
  }
  StatusOr<std::unique_ptr<standalone::StandaloneAutoscaler>> autoscaler =
      standalone::StandaloneAutoscaler::Create(std::move(options));
  if (!autoscaler.ok()) {
    std::fprintf(stderr, "trimtab autoscale: %s\n", autoscaler.status().ToString().c_str());
    return 1;
  }
  std::fprintf(stderr, "trimtab autoscale: %zu cluster(s), state %s, every %s\n",
               config->clusters.size(),
               standalone::DescribeStateStore(config->state_store).c_str(),
               FormatFlinkDuration(config->control_loop_interval).c_str());
  if (flags.once) {
    standalone::PassReport report = (*autoscaler)->RunOnce();
    for (const standalone::JobPassResult& r : report.jobs) {
      std::fprintf(stderr, "%s %s: %s%s\n", r.job_key.c_str(),
                   r.status.empty() ? "(missing)" : r.status.c_str(),
                   !r.error.empty()          ? ("error: " + r.error).c_str()
                   : r.scaled                ? "scaled"
                   : !r.skipped_reason.empty() ? r.skipped_reason.c_str()
                                               : "no change",
                   r.realized.empty() ? "" : ("; " + r.realized).c_str());
    }
    return report.cluster_errors.empty() ? 0 : 1;
  }
  std::atomic<bool> stop{false};
  std::thread signal_waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    std::fprintf(stderr, "trimtab autoscale: %s received, stopping\n",
                 received == SIGINT ? "SIGINT" : "SIGTERM");
    stop = true;
  });
  (*autoscaler)->Run(stop, config->control_loop_interval);
  signal_waiter.join();
  return 0;
}

}  // namespace

void RegisterAutoscaleCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<AutoscaleFlags>();
  CLI::App* cmd = app.add_subcommand(
      "autoscale",
      "Autoscale Flink jobs that no operator manages (upstream: flink-autoscaler-standalone).\n"
      "Every --interval it lists the jobs of each Flink cluster through its JobManager REST\n"
      "endpoint (the --job-id ones, or every job: a session cluster's jobs are discovered),\n"
      "decides per-vertex parallelism exactly as `trimtab operator` does (same metrics, options,\n"
      "behavior rules, executor plugin chain and decision log), and applies a decision in place\n"
      "with Flink's resource-requirements API (PUT /jobs/:jobid/resource-requirements): the job\n"
      "keeps its id and rescales from its latest state, without a redeploy.\n\n"
      "What a job needs: the adaptive scheduler (jobmanager.scheduler: adaptive, Flink 1.18 or\n"
      "later) and job.autoscaler.enabled: \"true\" in its own configuration, in --set, or in the\n"
      "configuration of --config. Its own configuration wins, so a job can opt out.\n"
      "Memory tuning is decided and logged, but cannot be applied through REST.\n\n"
      "State (metric window, scaling history, overrides, plugin state, the last decision log)\n"
      "lives in SQLite by default (./trimtab-autoscaler.db) or PostgreSQL, keyed\n"
      "<cluster name>/<job id>, so a restart continues where it stopped and re-applies stored\n"
      "decisions. A job that finished, was cancelled or failed loses its state.\n\n"
      "Examples:\n"
      "  trimtab autoscale --rest-url http://session-jm:8081 --set job.autoscaler.enabled=true\n"
      "  trimtab autoscale --config autoscale.yaml --state-store postgresql:'host=db dbname=ts'\n"
      "  trimtab autoscale --rest-url http://jm:8081 --once --decision-log -\n"
      "See docs/autoscale.md for the configuration file and every difference from upstream.");
  cmd->add_option("--config", flags->config_file,
                  "YAML or JSON file: clusters (restUrl, name, jobs, configuration), "
                  "configuration,\nstateStore, controlLoopInterval, executorChain, ... "
                  "(docs/autoscale.md); flags override it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--rest-url", flags->rest_urls,
                  "a JobManager REST endpoint (http://host:8081); repeat for several clusters");
  cmd->add_option("--job-id", flags->job_ids,
                  "autoscale only this job of the --rest-url clusters; repeat for several "
                  "(default: every job they run)");
  cmd->add_option("--state-store", flags->state_store,
                  "sqlite:<file> (default sqlite:trimtab-autoscaler.db), "
                  "postgresql:<libpq connection string>,\npostgresql://<URI>, or memory; the "
                  "PostgreSQL password comes from the string, PGPASSWORD or ~/.pgpass");
  cmd->add_option("--executor-chain", flags->executor_chain,
                  "the executor plugin chain, JSON or YAML as in docs/plugins.md (the operator's)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--plugins-dir", flags->plugin_dir,
                  "directory of shared-library executor plugins (the operator's --plugins-dir)");
  cmd->add_option("--interval", flags->interval,
                  "time between passes, a Flink duration (default 10 s, upstream's "
                  "autoscaler.standalone.control-loop.interval)");
  cmd->add_option("--rest-timeout", flags->rest_timeout,
                  "timeout of each Flink REST call (default 10 s)");
  cmd->add_option("--autoscaler-defaults", flags->autoscaler_defaults,
                  "defaults for job.autoscaler.* options a job does not set: trimtab (default) or "
                  "flink (upstream's)");
  cmd->add_option("--decision-log", flags->decision_log,
                  "append each job's decision log of every pass to this file as one JSON line "
                  "(- = stdout)");
  cmd->add_option("--prometheus-url", flags->prometheus_url,
                  "Prometheus HTTP API for custom metrics of source prometheus (docs/plugins.md)");
  cmd->add_option("--set", flags->settings,
                  "key=value of the configuration every job starts from, e.g.\n"
                  "job.autoscaler.enabled=true; repeat for several");
  cmd->add_flag("--once", flags->once, "run one pass, print what it did per job, and exit");
  cmd->callback([flags, exit_code] { *exit_code = RunAutoscale(*flags); });
}

}  // namespace trimtab::cli
