// HostCheck: DNS-rebinding protection for the local API server. A web page can make a browser
// send requests to a loopback port by pointing its own DNS name at 127.0.0.1; such requests
// carry that name in Host (and the page's origin in Origin). The check accepts a request only
// when its Host and, if present, its Origin name an IP address, `localhost`, or one of the
// server's own names (the DNS names in its certificate, --tls-san); anything else is the
// kube-apiserver-style 403 Status naming the host. A request without Host (HTTP/1.0 tools)
// passes: browsers always send one.
//
// Usage:
//   if (auto denied = CheckHostAndOrigin(request, {"kubernetes.default.svc"})) return *denied;
//
// Thread-safety: pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/server.h"
#include "cluster/apiserver/api_errors.h"

namespace trimtab::cluster::auth {

// The host part of a Host header value or of an origin ("https://[::1]:6443" -> "::1"),
// lower-cased; "" when it cannot be parsed.
std::string HostOf(std::string_view value, bool is_origin);

// Whether `host` (as HostOf returns it) may address this server.
bool HostAllowed(const std::string& host, const std::vector<std::string>& names);

std::optional<ApiError> CheckHostAndOrigin(const http::HttpRequest& request,
                                           const std::vector<std::string>& names);

}  // namespace trimtab::cluster::auth
