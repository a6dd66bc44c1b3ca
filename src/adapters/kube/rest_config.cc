#include "adapters/kube/rest_config.h"

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::kube {
namespace {

std::string ResolvePath(std::string_view base_dir, const std::string& path) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

std::string TrimSpace(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// Finds the entry named `name` in a kubeconfig list (clusters, users, contexts) and returns its
// inner object (entry[field]).
StatusOr<const Json*> FindNamed(const Json& doc, std::string_view list, std::string_view field,
                                const std::string& name) {
  const auto it = doc.find(std::string(list));
  if (it != doc.end() && it->is_array()) {
    for (const Json& entry : *it) {
      const auto n = entry.find("name");
      if (n != entry.end() && n->is_string() && n->get<std::string>() == name) {
        const auto inner = entry.find(std::string(field));
        if (inner == entry.end() || !inner->is_object()) {
          return InvalidArgumentError("kubeconfig: " + std::string(list) + " entry \"" + name +
                                      "\" has no " + std::string(field) + " object");
        }
        return &*inner;
      }
    }
  }
  return InvalidArgumentError("kubeconfig: no " + std::string(field) + " named \"" + name +
                              "\" in " + std::string(list));
}

std::string StringField(const Json& obj, std::string_view key) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool BoolField(const Json& obj, std::string_view key) {
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) return it->get<std::string>() == "true";
  return false;
}

StatusOr<std::string> DecodeDataField(const Json& obj, std::string_view key, std::string_view where) {
  const std::string raw = StringField(obj, key);
  if (raw.empty()) return std::string();
  StatusOr<std::string> decoded = Base64Decode(raw);
  if (!decoded.ok()) {
    return InvalidArgumentError("kubeconfig: " + std::string(where) + "." + std::string(key) +
                                ": " + decoded.status().message());
  }
  return decoded;
}

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

}  // namespace

StatusOr<std::string> Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t padding = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return InvalidArgumentError("invalid base64: data after padding");
    const int v = value(c);
    if (v < 0) return InvalidArgumentError(std::string("invalid base64 character '") + c + "'");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  if (bits >= 6) return InvalidArgumentError("invalid base64: truncated input");
  return out;
}

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, std::string_view base_dir,
                                     std::string_view context) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(yaml, "kubeconfig"));
  if (!doc.is_object()) return InvalidArgumentError("kubeconfig: expected a mapping at top level");
  std::string context_name(context);
  if (context_name.empty()) context_name = StringField(doc, "current-context");
  if (context_name.empty()) {
    return InvalidArgumentError("kubeconfig: no current-context set and no context given");
  }
  TRIMTAB_ASSIGN_OR_RETURN(const Json* ctx, FindNamed(doc, "contexts", "context", context_name));
  const std::string cluster_name = StringField(*ctx, "cluster");
  const std::string user_name = StringField(*ctx, "user");
  if (cluster_name.empty()) {
    return InvalidArgumentError("kubeconfig: context \"" + context_name + "\" names no cluster");
  }
  TRIMTAB_ASSIGN_OR_RETURN(const Json* cluster,
                           FindNamed(doc, "clusters", "cluster", cluster_name));

  RestConfig config;
  config.context_name = context_name;
  config.server = StringField(*cluster, "server");
  while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
  if (config.server.empty()) {
    return InvalidArgumentError("kubeconfig: cluster \"" + cluster_name + "\" has no server");
  }
  if (!config.server.starts_with("https://") && !config.server.starts_with("http://")) {
    return InvalidArgumentError("kubeconfig: cluster \"" + cluster_name + "\": server \"" +
                                config.server + "\" must start with https:// or http://");
  }
  if (!StringField(*cluster, "tls-server-name").empty()) {
    return InvalidArgumentError("kubeconfig: cluster \"" + cluster_name +
                                "\": tls-server-name is not supported");
  }
  if (!StringField(*cluster, "proxy-url").empty()) {
    return InvalidArgumentError("kubeconfig: cluster \"" + cluster_name +
                                "\": proxy-url is not supported");
  }
  const std::string cluster_where = "clusters[" + cluster_name + "]";
  TRIMTAB_ASSIGN_OR_RETURN(config.tls.ca_data,
                           DecodeDataField(*cluster, "certificate-authority-data", cluster_where));
  if (config.tls.ca_data.empty()) {
    config.tls.ca_file = ResolvePath(base_dir, StringField(*cluster, "certificate-authority"));
  }
  config.tls.insecure_skip_verify = BoolField(*cluster, "insecure-skip-tls-verify");

  if (!user_name.empty()) {
    TRIMTAB_ASSIGN_OR_RETURN(const Json* user, FindNamed(doc, "users", "user", user_name));
    const std::string where = "users[" + user_name + "]";
    for (const char* unsupported : {"exec", "auth-provider", "username", "password"}) {
      if (user->contains(unsupported)) {
        return InvalidArgumentError("kubeconfig: " + where + ": \"" + unsupported +
                                    "\" authentication is not supported; use a token, token "
                                    "file or client certificate");
      }
    }
    TRIMTAB_ASSIGN_OR_RETURN(config.tls.client_cert_data,
                             DecodeDataField(*user, "client-certificate-data", where));
    if (config.tls.client_cert_data.empty()) {
      config.tls.client_cert_file =
          ResolvePath(base_dir, StringField(*user, "client-certificate"));
    }
    TRIMTAB_ASSIGN_OR_RETURN(config.tls.client_key_data,
                             DecodeDataField(*user, "client-key-data", where));
    if (config.tls.client_key_data.empty()) {
      config.tls.client_key_file = ResolvePath(base_dir, StringField(*user, "client-key"));
    }
    config.bearer_token = StringField(*user, "token");
    if (config.bearer_token.empty()) {
      const std::string token_file = StringField(*user, "tokenFile");
      if (!token_file.empty()) {
        config.bearer_token_file = ResolvePath(base_dir, token_file);
        StatusOr<std::string> token = ReadFile(config.bearer_token_file);
        if (!token.ok()) return token.status().WithContext("kubeconfig: " + where + ".tokenFile");
        config.bearer_token = TrimSpace(*token);
      }
    }
  }
  const std::string ns = StringField(*ctx, "namespace");
  if (!ns.empty()) config.namespace_name = ns;
  return config;
}

StatusOr<RestConfig> LoadKubeconfigFile(const std::string& path, std::string_view context) {
  StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status().WithContext("kubeconfig");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  StatusOr<RestConfig> config = ParseKubeconfig(*text, dir, context);
  if (!config.ok()) return config.status().WithContext(path);
  return config;
}

StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options) {
  const auto getenv = options.getenv ? options.getenv : ProcessEnv;
  const std::optional<std::string> host = getenv("KUBERNETES_SERVICE_HOST");
  const std::optional<std::string> port = getenv("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty()) {
    return FailedPreconditionError(
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  RestConfig config;
  // trimtab local's process pods (docs/local-cluster.md): the pod's service-account files
  // (token, namespace, ca.crt) live in a directory of its own; an in-process test's API server
  // may speak plain HTTP (scheme http, no ca.crt).
  const std::optional<std::string> scheme = getenv("TRIMTAB_KUBERNETES_SERVICE_SCHEME");
  const bool plain_http = scheme && *scheme == "http";
  if (scheme && !scheme->empty() && *scheme != "http" && *scheme != "https") {
    return InvalidArgumentError("in-cluster config: TRIMTAB_KUBERNETES_SERVICE_SCHEME must be "
                                "http or https, got \"" + *scheme + "\"");
  }
  const std::optional<std::string> dir_override = getenv("TRIMTAB_SERVICE_ACCOUNT_DIR");
  // IPv6 service addresses need brackets in a URL.
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = std::string(plain_http ? "http://" : "https://") +
                  (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  const std::filesystem::path dir(dir_override && !dir_override->empty()
                                      ? *dir_override
                                      : options.service_account_dir);
  config.bearer_token_file = (dir / "token").string();
  StatusOr<std::string> token = ReadFile(config.bearer_token_file);
  if (!token.ok()) return token.status().WithContext("in-cluster config: service account token");
  config.bearer_token = TrimSpace(*token);
  if (!plain_http) config.tls.ca_file = (dir / "ca.crt").string();
  if (!plain_http && !std::filesystem::exists(config.tls.ca_file)) {
    return FailedPreconditionError("in-cluster config: " + config.tls.ca_file + " does not exist");
  }
  StatusOr<std::string> ns = ReadFile((dir / "namespace").string());
  if (ns.ok() && !TrimSpace(*ns).empty()) config.namespace_name = TrimSpace(*ns);
  return config;
}

StatusOr<RestConfig> LoadDefaultConfig(const std::string& explicit_path, std::string_view context) {
  if (!explicit_path.empty()) return LoadKubeconfigFile(explicit_path, context);
  if (std::optional<std::string> env = ProcessEnv("KUBECONFIG"); env && !env->empty()) {
    return LoadKubeconfigFile(env->substr(0, env->find(':')), context);
  }
  if (std::optional<std::string> host = ProcessEnv("KUBERNETES_SERVICE_HOST"); host && !host->empty()) {
    return InClusterConfig({});
  }
  if (std::optional<std::string> home = ProcessEnv("HOME"); home && !home->empty()) {
    return LoadKubeconfigFile(*home + "/.kube/config", context);
  }
  return FailedPreconditionError(
      "no Kubernetes configuration: pass --kubeconfig, set KUBECONFIG, or run in a cluster");
}

}  // namespace trimtab::kube
