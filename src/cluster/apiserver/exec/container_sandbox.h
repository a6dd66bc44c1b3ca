// ContainerSandbox: what `kubectl exec` runs in a container of `trimtab local`. The containers are
// simulated (no image is pulled, no process runs), so a command runs here, against an in-memory
// file system seeded from the pod (SandboxFs), with the container's environment. Every exec of the
// same container shares the sandbox, so `kubectl cp` into a pod and a later `cat` agree.
//
// The commands (docs/local-cluster.md lists them with their options; busybox's wording):
//   sh/bash/ash/dash -c SCRIPT | sh (script from stdin): `;`, `&&`, `||`, newlines, `|`,
//     redirections (`<`, `>`, `>>`, `2>`, `2>>`, `2>&1`, `>&2`), quoting, `$VAR`, `${VAR}`,
//     `$?`, `VAR=value`, export, unset, cd, exit; `#` comments
//   echo, cat, ls, pwd, env, printenv, hostname, whoami, id, uname, date, sleep (returns at once),
//   true, false, mkdir, rm, touch, cp, mv, test / [, wc, head, tail, grep (fixed strings), which,
//   ps, tar (c, x, t; f, C, v, m; what `kubectl cp` runs)
// A direct exec of anything else fails as the container runtime fails it (exec.h turns that into
// the 500 Status kubectl prints); inside a script it is "sh: X: not found" with exit code 127.
//
// Thread-safety: Run may be called concurrently; execs of one sandbox are serialized.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/apiserver/exec/sandbox_fs.h"

namespace trimtab::cluster::exec {

struct SandboxSetup {
  std::string hostname;                                 // the pod's name
  std::vector<std::pair<std::string, std::string>> env;  // in order, duplicates: last wins
  std::string working_dir = "/";
  std::string main_command;  // the container's command line, shown by ps as PID 1
  // Files (absolute paths) and directories to create, e.g. /etc/hosts and volume mounts.
  std::map<std::string, std::string> files;
  std::vector<std::string> dirs;
  // Below the HTTP server's 16 MiB per-stream backlog, so that a tar of everything can be sent.
  size_t capacity_bytes = 12 << 20;
  int64_t created = 0;  // mtime of the seeded files
};

struct ExecResult {
  std::string out;
  std::string err;
  int exit_code = 0;
  // The runtime could not start the command at all (a direct exec of an unknown binary): the
  // message of the error kubectl prints; out/err/exit_code are then unused.
  std::optional<std::string> start_error;
};

class ContainerSandbox {
 public:
  explicit ContainerSandbox(const SandboxSetup& setup);

  // Whether running `argv` reads its standard input, so that the caller collects stdin until
  // the client closes it before calling Run (a command that does not read it runs at once).
  static bool ReadsStdin(const std::vector<std::string>& argv);

  // Runs `argv` with `stdin_data`; `now` is the time (seconds since the epoch) for mtimes and
  // date.
  ExecResult Run(const std::vector<std::string>& argv, const std::string& stdin_data, int64_t now);

  // What an interactive shell (`kubectl exec -it POD -- sh`) keeps from one line to the next.
  struct ShellState {
    std::map<std::string, std::string> vars;
    std::string cwd;
    bool exited = false;  // `exit` ran
    int status = 0;       // the last line's exit status (the exit code once exited)
  };
  ShellState NewShellState();
  // Runs one line of an interactive shell against `state` (its variables, cd, exit).
  ExecResult RunLine(const std::string& line, ShellState* state, int64_t now);
  // Whether `argv` starts a shell that reads its commands from stdin (no -c, no script file).
  static bool IsInteractiveShell(const std::vector<std::string>& argv);

  class Shell;  // one exec (container_sandbox.cc)

 private:
  std::mutex mu_;
  SandboxFs fs_;                                // guarded by mu_
  std::map<std::string, std::string> env_;      // guarded by mu_ (each exec starts from it)
  std::string working_dir_;
  std::string hostname_;
  std::string main_command_;
};

}  // namespace trimtab::cluster::exec
