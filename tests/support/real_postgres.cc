#include "tests/support/real_postgres.h"

#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

#include <pqxx/pqxx>

#include "adapters/http/server.h"
#include "tests/support/subprocess.h"

namespace trimtab::testing {
namespace {

constexpr const char kUser[] = "trimtab";
constexpr const char kServiceUser[] = "postgres";  // Debian's postgresql package creates it

int FreePort() {
  auto server = http::HttpServer::Create(
      {.port = 0, .threads = 1}, [](const http::HttpRequest&) { return http::HttpResponse{}; });
  if (!server.ok()) return -1;
  const int port = (*server)->port();
  (*server)->Stop();
  return port;
}

// Runs `args` to completion (as the service user when we are root), logging to `log`.
Status RunTool(std::vector<std::string> args, const std::string& log) {
  if (::geteuid() == 0) args.insert(args.begin(), {"runuser", "-u", kServiceUser, "--"});
  const std::string what = args[::geteuid() == 0 ? 4 : 0];
  TRIMTAB_ASSIGN_OR_RETURN(pid_t pid, SpawnLogged(args, log));
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return InternalError(what + " failed; see " + log);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> RealPostgres::FindBinDir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("TRIMTAB_POSTGRES_BINDIR"); env && *env) {
    if (fs::exists(fs::path(env) / "initdb")) return std::string(env);
    return NotFoundError(std::string("TRIMTAB_POSTGRES_BINDIR=") + env + " has no initdb");
  }
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(entry.path() / "bin" / "initdb") && fs::exists(entry.path() / "bin" / "pg_ctl")) {
      found.push_back(entry.path() / "bin");
    }
  }
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    return std::atoi(a.parent_path().filename().c_str()) <
           std::atoi(b.parent_path().filename().c_str());
  });
  if (!found.empty()) return found.back().string();
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && fs::exists(fs::path(dir) / "initdb") &&
          fs::exists(fs::path(dir) / "pg_ctl")) {
        return dir;
      }
    }
  }
  return NotFoundError(
      "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's postgresql "
      "package (scripts/install-deps.sh does) or set TRIMTAB_POSTGRES_BINDIR");
}

StatusOr<std::unique_ptr<RealPostgres>> RealPostgres::Start(const std::string& bin_dir,
                                                            const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  if (::geteuid() == 0) {
    const struct passwd* pw = ::getpwnam(kServiceUser);
    if (pw == nullptr) {
      return FailedPreconditionError(
          "running as root and there is no user \"postgres\" to run the server as (Debian's "
          "postgresql package creates it)");
    }
    if (::chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return InternalError("cannot hand " + dir.string() + " to the postgres user");
    }
  }
  const int port = FreePort();
  if (port <= 0) return UnavailableError("no free port for postgres");
  std::unique_ptr<RealPostgres> pg(new RealPostgres(bin_dir, dir, port));
  const std::string tool_log = (dir / "tools.log").string();
  const std::string data = (dir / "data").string();
  TRIMTAB_RETURN_IF_ERROR(RunTool({bin_dir + "/initdb", "-D", data, "-U", kUser, "-A", "trust",
                                   "-E", "UTF8", "--no-sync", "--no-instructions"},
                                  tool_log));
  TRIMTAB_RETURN_IF_ERROR(RunTool(
      {bin_dir + "/pg_ctl", "-D", data, "-l", (dir / "postgres.log").string(), "-w", "-t", "30",
       "-o",
       "-p " + std::to_string(port) + " -k " + dir.string() +
           " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
       "start"},
      tool_log));
  pg->started_ = true;
  return pg;
}

RealPostgres::~RealPostgres() {
  if (started_) {
    RunTool({bin_dir_ + "/pg_ctl", "-D", (dir_ / "data").string(), "-m", "immediate", "-w",
             "stop"},
            (dir_ / "tools.log").string())
        .IgnoreError();
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string RealPostgres::ConnectionString(const std::string& dbname) const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=" + kUser + " dbname=" + dbname;
}

Status RealPostgres::CreateDatabase(const std::string& name) const {
  try {
    pqxx::connection c(ConnectionString());
    pqxx::nontransaction tx(c);
    tx.exec0("CREATE DATABASE " + tx.quote_name(name));
  } catch (const std::exception& e) {
    return UnavailableError("postgres: CREATE DATABASE " + name + ": " + e.what());
  }
  return Status::Ok();
}

}  // namespace trimtab::testing
