// A TCP connect probe: whether something accepts connections on host:port within a timeout.
// The operator uses it to tell a JobManager whose REST port is open (DEPLOYED_NOT_READY) from one
// still starting (DEPLOYING), as upstream does with a raw socket connect (1 s timeout).
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <string>

#include "common/status.h"

namespace trimtab::flink {

// OK when a connection was established (and closed again); kUnavailable when refused or
// unreachable; kDeadlineExceeded on timeout; kInvalidArgument for an unresolvable host.
Status ProbeTcp(const std::string& host, int port, std::chrono::milliseconds timeout);

// Splits "http://host:port/..." (or "https://...", IPv6 in brackets) into host and port; the
// port defaults to 80 / 443.
StatusOr<std::pair<std::string, int>> HostPortOf(const std::string& url);

}  // namespace trimtab::flink
