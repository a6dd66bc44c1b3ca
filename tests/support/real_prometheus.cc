#include "tests/support/real_prometheus.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "adapters/http/client.h"
#include "adapters/http/server.h"
#include "tests/support/subprocess.h"

namespace trimtab::testing {

namespace {

using namespace std::chrono_literals;

// Starts `args` logging to `log`; a missing binary says where it comes from.
StatusOr<pid_t> Spawn(std::vector<std::string> args, const std::string& log) {
  StatusOr<pid_t> pid = SpawnLogged(std::move(args), log);
  if (!pid.ok()) {
    return FailedPreconditionError(std::string(pid.status().message()) +
                                   " (Debian package prometheus; scripts/install-deps.sh "
                                   "installs it)");
  }
  return pid;
}

int FreePort() {
  auto server = http::HttpServer::Create(
      {.port = 0, .threads = 1}, [](const http::HttpRequest&) { return http::HttpResponse{}; });
  if (!server.ok()) return -1;
  const int port = (*server)->port();
  (*server)->Stop();
  return port;
}

}  // namespace

StatusOr<std::unique_ptr<RealPrometheus>> RealPrometheus::Start(const std::string& config_yaml,
                                                                const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "data");
  std::ofstream(dir / "prometheus.yml") << config_yaml;
  const int port = FreePort();
  if (port <= 0) return UnavailableError("no free port for prometheus");
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string log = (dir / "prometheus.log").string();
  TRIMTAB_ASSIGN_OR_RETURN(
      pid_t pid, Spawn({"prometheus", "--config.file=" + (dir / "prometheus.yml").string(),
                        "--storage.tsdb.path=" + (dir / "data").string(),
                        "--storage.tsdb.retention.time=100y",
                        "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                       log));
  std::unique_ptr<RealPrometheus> p(new RealPrometheus(dir, url, pid));
  auto client = http::HttpClient::Create({});
  if (!client.ok()) return client.status();
  for (int i = 0; i < 300; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      p->pid_ = -1;
      return UnavailableError("prometheus exited; see " + log);
    }
    http::ClientRequest r;
    r.url = url + "/-/ready";
    r.timeout = 1s;
    StatusOr<http::ClientResponse> response = (*client)->Do(r);
    if (response.ok() && response->status == 200) return p;
    std::this_thread::sleep_for(100ms);
  }
  return UnavailableError("prometheus did not get ready in 30 s; see " + log);
}

RealPrometheus::~RealPrometheus() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

Status Backfill(const std::string& openmetrics, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "data");
  const std::filesystem::path input = dir / "backfill.om";
  std::ofstream(input) << openmetrics;
  const std::string log = (dir / "promtool.log").string();
  TRIMTAB_ASSIGN_OR_RETURN(pid_t pid, Spawn({"promtool", "tsdb", "create-blocks-from",
                                             "openmetrics", input.string(),
                                             (dir / "data").string()},
                                            log));
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return InternalError("promtool could not backfill; see " + log);
  }
  return Status::Ok();
}

}  // namespace trimtab::testing
