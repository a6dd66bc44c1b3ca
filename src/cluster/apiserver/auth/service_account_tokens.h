// Service-account tokens of the local API server: JSON Web Tokens with the claims the
// kube-apiserver puts into the tokens of the TokenRequest API (`kubectl create token`, the
// kubelet's projected service-account volume):
//
//   {"aud":["https://kubernetes.default.svc.cluster.local"],"exp":...,"iat":...,"nbf":...,
//    "iss":"https://kubernetes.default.svc.cluster.local","jti":"<uuid>",
//    "sub":"system:serviceaccount:<ns>:<name>",
//    "kubernetes.io":{"namespace":"<ns>","serviceaccount":{"name":..,"uid":..},
//                     "pod":{"name":..,"uid":..},"warnafter":...}}
//
// Unlike a real cluster (RS256 with the service-account key pair, public keys at
// /openid/v1/jwks) they are signed with HMAC-SHA-256 (alg HS256) under a 32-byte key that only
// this server knows: the server verifies its own tokens and nobody else needs to. The key is
// kept in <data-dir>/service-account.key (mode 0600), so tokens survive a restart of
// `trimtab local`; without a data directory it lives in memory.
//
// Verify checks the signature, the issuer, the audience and the validity window; whether the
// service account (and a bound pod) still exists with the token's uid is the caller's check.
//
// Thread-safety: a TokenIssuer is immutable after Create and safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace trimtab::cluster::auth {

inline constexpr std::string_view kTokenIssuer = "https://kubernetes.default.svc.cluster.local";

struct TokenClaims {
  std::string ns;
  std::string service_account;
  std::string service_account_uid;
  std::string pod_name;  // bound to a pod ("" = not bound)
  std::string pod_uid;
  std::string secret_name;  // bound to a Secret ("" = not bound)
  std::string secret_uid;
  std::vector<std::string> audiences;
  int64_t issued_at = 0;   // Unix seconds
  int64_t expires_at = 0;  // Unix seconds
  int64_t warn_after = 0;  // 0 = none (extended kubelet tokens carry it)
  std::string id;          // jti
};

class TokenIssuer {
 public:
  // Loads the signing key from `key_file`, creating it (random, mode 0600) when absent; an empty
  // path keeps a random key in memory.
  static StatusOr<std::unique_ptr<TokenIssuer>> Create(const std::string& key_file);
  explicit TokenIssuer(std::string key) : key_(std::move(key)) {}

  // The signed token; claims.id is filled with a random UUID when empty.
  std::string Issue(TokenClaims claims) const;
  // The claims of a token this issuer signed, valid at `now`; PermissionDenied otherwise
  // (malformed, bad signature, wrong issuer or audience, expired, not yet valid).
  StatusOr<TokenClaims> Verify(std::string_view token, TimePoint now) const;

 private:
  std::string key_;
};

// A random RFC 4122 version-4 UUID (token ids).
std::string RandomUuid();

}  // namespace trimtab::cluster::auth
