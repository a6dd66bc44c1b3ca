// X.509 material for a local TLS deployment, on OpenSSL: a self-signed certificate authority
// and certificates it issues (for a server: its DNS names and IP addresses as subject
// alternative names; for a client: the user as CommonName and its groups as Organization, as
// Kubernetes reads client certificates). Keys are ECDSA P-256; everything is PEM text.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(KeyPair ca, GenerateCa({.common_name = "trimtab-local-ca"}));
//   TRIMTAB_ASSIGN_OR_RETURN(KeyPair server,
//       IssueCertificate(ca, {.common_name = "apiserver", .dns_names = {"localhost"},
//                             .ip_addresses = {"127.0.0.1"}, .server = true}));
//
// Thread-safety: free functions without shared state.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"

namespace trimtab::http {

struct KeyPair {
  std::string certificate_pem;
  std::string key_pem;  // PKCS#8, unencrypted
};

struct CertificateRequest {
  std::string common_name;
  std::vector<std::string> organizations;  // subject O= (Kubernetes: the groups)
  std::vector<std::string> dns_names;      // subjectAltName DNS
  std::vector<std::string> ip_addresses;   // subjectAltName IP (IPv4 or IPv6 literals)
  bool server = true;                      // extendedKeyUsage serverAuth, else clientAuth
  std::chrono::hours validity{24 * 365};
};

// A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign) with a new key.
StatusOr<KeyPair> GenerateCa(const CertificateRequest& request);
// A leaf certificate with a new key, signed by `ca`. Bad IP literals are InvalidArgument.
StatusOr<KeyPair> IssueCertificate(const KeyPair& ca, const CertificateRequest& request);

struct CertificateInfo {
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  std::chrono::system_clock::time_point not_after;
};
// The SANs and expiry of a PEM certificate; whether `certificate_pem` was signed by `ca_pem`.
StatusOr<CertificateInfo> InspectCertificate(const std::string& certificate_pem);
bool SignedBy(const std::string& certificate_pem, const std::string& ca_pem);
// Whether `key_pem` is the private key of `certificate_pem`.
bool KeyMatches(const std::string& certificate_pem, const std::string& key_pem);

// `bytes` bytes from the operating system's cryptographic random generator.
StatusOr<std::string> RandomBytes(size_t bytes);

}  // namespace trimtab::http
