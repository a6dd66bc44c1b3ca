#include "cluster/apiserver/auth/host_check.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace trimtab::cluster::auth {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

ApiError HostForbidden(const std::string& what, const std::string& value) {
  return ApiError{403, "Forbidden",
                  what + " \"" + value +
                      "\" is not allowed: this server answers requests addressed to an IP "
                      "address, localhost or one of its own names (--tls-san), as a guard "
                      "against DNS rebinding",
                  nullptr};
}

}  // namespace

std::string HostOf(std::string_view value, bool is_origin) {
  if (is_origin) {
    const size_t scheme = value.find("://");
    if (scheme == std::string_view::npos) return "";
    value.remove_prefix(scheme + 3);
    value = value.substr(0, value.find('/'));
  }
  if (value.empty()) return "";
  if (value.front() == '[') {
    const size_t close = value.find(']');
    if (close == std::string_view::npos) return "";
    return Lower(value.substr(1, close - 1));
  }
  const size_t colon = value.find(':');
  if (colon != std::string_view::npos && value.find(':', colon + 1) != std::string_view::npos) {
    return Lower(value);  // a bare IPv6 address
  }
  std::string host = Lower(value.substr(0, colon));
  while (!host.empty() && host.back() == '.') host.pop_back();  // "localhost." is localhost
  return host;
}

bool HostAllowed(const std::string& host, const std::vector<std::string>& names) {
  if (host.empty()) return false;
  if (host == "localhost" || IsIpLiteral(host)) return true;
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return Lower(n) == host; });
}

std::optional<ApiError> CheckHostAndOrigin(const http::HttpRequest& request,
                                           const std::vector<std::string>& names) {
  const std::string host_header = request.Header("Host");
  if (!host_header.empty() && !HostAllowed(HostOf(host_header, false), names)) {
    return HostForbidden("host", host_header);
  }
  const std::string origin = request.Header("Origin");
  if (!origin.empty() && !HostAllowed(HostOf(origin, true), names)) {
    return HostForbidden("origin", origin);
  }
  return std::nullopt;
}

}  // namespace trimtab::cluster::auth
