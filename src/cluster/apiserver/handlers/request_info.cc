#include "cluster/apiserver/handlers/request_info.h"

#include <vector>

namespace trimtab::cluster {

std::optional<RequestInfo> ParseResourcePath(std::string_view path,
                                             const ResourceRegistry& registry) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  RequestInfo info;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    info.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  if (i < parts.size() && parts[i] == "watch") {
    info.legacy_watch = true;
    ++i;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  if (rest.empty()) return std::nullopt;
  if (rest[0] == "namespaces" && rest.size() >= 3 &&
      registry.Contains(info.group, info.version, rest[2])) {
    info.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() > 3 && rest[2] != "proxy") return std::nullopt;  // proxy/<path>
  info.resource = rest[0];
  if (rest.size() >= 2) info.name = rest[1];
  if (rest.size() >= 3) info.subresource = rest[2];
  return info;
}

}  // namespace trimtab::cluster
