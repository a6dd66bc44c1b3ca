// SpawnLogged: starts a program for a test (a real peer: openssl s_server, prometheus, promtool)
// with stdin from /dev/null and stdout and stderr appended to a log file.
//
// Thread-safety: a plain function.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace trimtab::testing {

// args[0] is looked up on PATH. Fails (FailedPrecondition) when it cannot be started; the message
// names the program.
StatusOr<pid_t> SpawnLogged(std::vector<std::string> args, const std::string& log);

}  // namespace trimtab::testing
