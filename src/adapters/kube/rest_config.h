// RestConfig: where the Kubernetes API is and how to authenticate to it, loaded from a kubeconfig
// file (as kubectl reads it) or from the in-cluster service account (as client-go's
// rest.InClusterConfig does).
//
// Kubeconfig support: current-context (or an explicit context), clusters[].cluster.{server,
// certificate-authority, certificate-authority-data, insecure-skip-tls-verify, tls-server-name is
// rejected}, users[].user.{client-certificate(-data), client-key(-data), token, tokenFile},
// contexts[].context.{cluster, user, namespace}. Relative file paths resolve against the
// kubeconfig's directory; *-data fields are base64. Auth plugins (exec, auth-provider) and basic
// auth are rejected with a clear error rather than silently ignored.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(RestConfig config, LoadKubeconfigFile(path, /*context=*/""));
//   TRIMTAB_ASSIGN_OR_RETURN(RestConfig config, InClusterConfig({}));
//
// Thread-safety: plain values.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/http/client.h"
#include "common/status.h"

namespace trimtab::kube {

struct RestConfig {
  std::string server;  // "https://10.0.0.1:6443" (no trailing slash)
  http::TlsOptions tls;
  std::string bearer_token;
  // When set, the token is (re-)read from this file (projected service account tokens rotate).
  std::string bearer_token_file;
  std::string namespace_name = "default";  // the context's namespace
  std::string context_name;                // "" for in-cluster
};

// Parses kubeconfig YAML. `base_dir` resolves relative paths; `context` overrides
// current-context when not empty.
StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, std::string_view base_dir,
                                     std::string_view context);
StatusOr<RestConfig> LoadKubeconfigFile(const std::string& path, std::string_view context);

// Two environment variables adapt it to `trimtab local`'s process pods, which share the host's
// file system and reach a plain-HTTP API server: TRIMTAB_SERVICE_ACCOUNT_DIR replaces
// service_account_dir, TRIMTAB_KUBERNETES_SERVICE_SCHEME=http drops TLS (no ca.crt needed).
struct InClusterOptions {
  // Directory with token, ca.crt and namespace.
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  // Environment lookup (tests inject a map); default reads the process environment.
  std::function<std::optional<std::string>(const std::string&)> getenv;
};
StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options);

// Resolution order used by the operator binary: explicit path, $KUBECONFIG (first entry),
// in-cluster when KUBERNETES_SERVICE_HOST is set, then ~/.kube/config.
StatusOr<RestConfig> LoadDefaultConfig(const std::string& explicit_path, std::string_view context);

// Standard base64 (with or without padding); used for *-data fields and Secrets.
StatusOr<std::string> Base64Decode(std::string_view text);
std::string Base64Encode(std::string_view bytes);

}  // namespace trimtab::kube
