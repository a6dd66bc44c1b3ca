// `trimtab scenario from-flink URL`: a `trimtab simulate` scenario measured from a running Flink
// job (src/sim/capture/scenario_capture.h, docs/simulate.md "Capturing a running job").
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "adapters/http/client.h"
#include "cli/commands.h"
#include "sim/capture/scenario_capture.h"
#include "common/flink_values.h"

namespace trimtab::cli {

namespace {

constexpr const char kScenarioHelp[] =
    "Write scenario files for `trimtab simulate` (docs/simulate.md).";

constexpr const char kFromFlinkHelp[] = R"(Measure a running Flink job and write a scenario for `trimtab simulate`.

Reads the job over the Flink REST API as the autoscaler does (a few samples apart) and writes its
job graph with what each vertex carries: parallelism, max parallelism, capacity per subtask
(records in per second at full busy time), selectivity, source partitions and backlog, state per
vertex from the latest checkpoint, checkpoint interval and bandwidth, edges with their ship
strategy, and a constant workload at the arrival rate now. Key skew and the input's history are
not in Flink's metrics: the file says where to set them. Then compare policies on your own job:

  trimtab scenario from-flink http://jobmanager:8081 -o myjob.yaml
  trimtab simulate myjob.yaml --report myjob.html

With --prometheus and --rate-query the workload is the job's real input over the last --history
(default 7 d), and the simulation runs that long:

  trimtab scenario from-flink http://jobmanager:8081 -o myjob.yaml \
      --prometheus http://prometheus:9090 \
      --rate-query 'sum(rate(kafka_topic_partition_current_offset{topic="bids"}[5m]))'

The job must be RUNNING and keep its parallelism while it is sampled. Exit code 0 on success,
1 when the job cannot be read (the error names the request or the job's state), 2 on usage
errors.)";

struct FromFlinkFlags {
  std::string url;
  std::string job;
  int samples = 3;
  std::string interval = "20 s";
  std::string timeout = "10 s";
  std::string out;
  std::string prometheus;
  std::string rate_query;
  std::string history = "7 d";
  std::string history_step = "1 min";
};

int RunFromFlink(const FromFlinkFlags& flags) {
  auto fail = [](const Status& s) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  };
  auto usage = [](const Status& s) {
    std::cerr << "error: " << s.message() << "\n";
    return 2;
  };
  auto duration = [](const std::string& flag, const std::string& text) -> StatusOr<Millis> {
    return ParseFlinkDurationMillis(flag, text);
  };
  StatusOr<Millis> interval = duration("--interval", flags.interval);
  if (!interval.ok()) return usage(interval.status());
  StatusOr<Millis> timeout = duration("--timeout", flags.timeout);
  if (!timeout.ok()) return usage(timeout.status());
  if (flags.samples < 1) return usage(InvalidArgumentError("--samples: must be at least 1"));
  if (flags.prometheus.empty() != flags.rate_query.empty()) {
    return usage(InvalidArgumentError(
        "--prometheus and --rate-query go together: where to ask, and the query for the job's "
        "arrival rate"));
  }
  StatusOr<Millis> history = duration("--history", flags.history);
  if (!history.ok()) return usage(history.status());
  StatusOr<Millis> history_step = duration("--history-step", flags.history_step);
  if (!history_step.ok()) return usage(history_step.status());

  // Opened first, so that a path that cannot be written fails before the sampling.
  std::ofstream out;
  if (!flags.out.empty() && flags.out != "-") {
    out.open(flags.out, std::ios::binary | std::ios::trunc);
    if (!out) return fail(InvalidArgumentError("-o: cannot open " + flags.out + " for writing"));
  }
  StatusOr<std::unique_ptr<http::HttpClient>> http = http::HttpClient::Create({});
  if (!http.ok()) return fail(http.status());
  StatusOr<std::unique_ptr<adapters::FlinkMetricsCollector>> collector =
      adapters::FlinkMetricsCollector::Create({.http = http->get()});
  if (!collector.ok()) return fail(collector.status());

  ScenarioCaptureOptions o;
  o.rest_url = flags.url;
  o.job_id = flags.job;
  o.samples = flags.samples;
  o.interval = *interval;
  o.timeout = *timeout;
  o.clock = RealClock::Default();
  std::filesystem::path csv_path;
  if (!flags.rate_query.empty()) {
    o.history = RateHistory{.http = http->get(),
                            .prometheus_url = flags.prometheus,
                            .query = flags.rate_query,
                            .span = *history,
                            .step = *history_step};
    if (out.is_open()) {
      // Beside the scenario: myjob.yaml -> myjob.rate.csv.
      csv_path = std::filesystem::path(flags.out).replace_extension(".rate.csv");
      o.rate_csv_file = csv_path.filename().string();
    }
  }
  if (flags.samples > 1) {
    std::cerr << "sampling " << flags.url << " " << flags.samples << " times, " << flags.interval
              << " apart\n";
  }
  StatusOr<CapturedScenario> captured = CaptureScenario(**collector, o);
  if (!captured.ok()) return fail(captured.status());
  if (!csv_path.empty()) {
    std::ofstream csv(csv_path, std::ios::binary | std::ios::trunc);
    csv << captured->rate_csv;
    csv.close();
    if (!csv) return fail(InternalError("failed to write " + csv_path.string()));
    std::cerr << "wrote " << csv_path.string() << " (the input rate's history)\n";
  }
  if (out.is_open()) {
    out << captured->yaml;
    out.close();
    if (!out) return fail(InternalError("failed to write " + flags.out));
    std::cerr << "wrote " << flags.out << " (job " << captured->job_id << ")\n";
  } else {
    std::cout << captured->yaml;
  }
  return 0;
}

}  // namespace

void RegisterScenarioCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("scenario", kScenarioHelp);
  cmd->require_subcommand(1);
  CLI::App* from = cmd->add_subcommand("from-flink", kFromFlinkHelp);
  auto flags = std::make_shared<FromFlinkFlags>();
  from->add_option("url", flags->url, "The JobManager's REST address, e.g. http://jobmanager:8081")
      ->required();
  from->add_option("--job", flags->job, "Job id (32 hex); default: the only RUNNING job");
  from->add_option("--samples", flags->samples,
                   "How many times to read the metrics (averaged; 2 or more also measure how "
                   "fast the sources' backlog grows)")
      ->capture_default_str();
  from->add_option("--interval", flags->interval, "Time between samples (Flink notation)")
      ->capture_default_str();
  from->add_option("--timeout", flags->timeout, "Timeout of each REST request")
      ->capture_default_str();
  from->add_option("-o,--output", flags->out, "Write the scenario here instead of stdout");
  from->add_option("--prometheus", flags->prometheus,
                   "Prometheus to read the input rate's history from (http://prometheus:9090)");
  from->add_option("--rate-query", flags->rate_query,
                   "PromQL for the job's arrival rate in records/s, one series, e.g. "
                   "sum(rate(kafka_topic_partition_current_offset{topic=\"bids\"}[5m])); the "
                   "workload then replays it (with -o, as FILE.rate.csv beside the scenario)");
  from->add_option("--history", flags->history, "How far back the history goes")
      ->capture_default_str();
  from->add_option("--history-step", flags->history_step, "Resolution of the history")
      ->capture_default_str();
  from->callback([flags, exit_code] { *exit_code = RunFromFlink(*flags); });
}

}  // namespace trimtab::cli
