// `trimtab local`: runs the local Kubernetes-compatible API server until SIGINT/SIGTERM.
#include <CLI/CLI.hpp>

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cluster/apiserver/apiserver.h"

namespace trimtab::cli {
namespace {

constexpr int kPreferredPort = 6443;

struct LocalFlags {
  std::string data_dir = ".trimtab";
  std::string address = "127.0.0.1";
  int port = -1;  // -1: 6443 when free, else any free port
  int threads = 4;
};

std::string Kubeconfig(const std::string& server_url) {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: trimtab-local\n"
         "  cluster:\n"
         "    server: " + server_url + "\n"
         "users:\n"
         "- name: trimtab-local\n"
         "  user: {}\n"
         "contexts:\n"
         "- name: trimtab-local\n"
         "  context:\n"
         "    cluster: trimtab-local\n"
         "    user: trimtab-local\n"
         "    namespace: default\n"
         "current-context: trimtab-local\n";
}

Status WriteFileAtomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) return UnavailableError("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return UnavailableError("cannot write " + path.string() + ": " + ec.message());
  return Status::Ok();
}

int RunLocal(const LocalFlags& flags) {
  // Block the termination signals before any thread starts, so only sigwait() sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  cluster::ApiServerOptions options{.data_dir = flags.data_dir,
                                    .address = flags.address,
                                    .port = flags.port < 0 ? kPreferredPort : flags.port,
                                    .threads = flags.threads};
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
  std::filesystem::path kubeconfig =
      std::filesystem::absolute(std::filesystem::path(flags.data_dir) / "kubeconfig");
  Status written = WriteFileAtomically(kubeconfig, Kubeconfig((*server)->url()));
  if (!written.ok()) {
    std::fprintf(stderr, "trimtab local: %s\n", written.ToString().c_str());
    return 1;
  }
  std::printf("trimtab local: API server on %s (data in %s)\n", (*server)->url().c_str(),
              std::filesystem::absolute(flags.data_dir).c_str());
  std::printf("kubeconfig: %s\n", kubeconfig.c_str());
  std::printf("try:        kubectl --kubeconfig=%s get namespaces\n", kubeconfig.c_str());
  std::printf("stop with Ctrl-C\n");
  std::fflush(stdout);

  int received = 0;
  sigwait(&signals, &received);
  std::printf("trimtab local: %s received, stopping\n", received == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->Stop();
  return 0;
}

}  // namespace

void RegisterLocalCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<LocalFlags>();
  CLI::App* cmd = app.add_subcommand(
      "local",
      "Run a local Kubernetes-compatible control plane (API server with SQLite storage).\n\n"
      "State lives in --data-dir (default ./.trimtab, relative to the working directory) and\n"
      "survives restarts with the same resourceVersions. A kubeconfig for kubectl is written to\n"
      "<data-dir>/kubeconfig (cluster, user and context \"trimtab-local\", plain http).\n"
      "Runs until SIGINT or SIGTERM.");
  cmd->add_option("--data-dir", flags->data_dir, "directory for state.db and the kubeconfig")
      ->capture_default_str();
  cmd->add_option("--address", flags->address, "address to listen on")->capture_default_str();
  cmd->add_option("--port", flags->port,
                  "port to listen on; 0 picks a free one; default: 6443 when free, else any");
  cmd->add_option("--threads", flags->threads, "HTTP serving threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->callback([flags, exit_code] { *exit_code = RunLocal(*flags); });
}

}  // namespace trimtab::cli
