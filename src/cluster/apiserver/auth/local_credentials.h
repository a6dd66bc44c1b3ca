// LocalCredentials: the TLS material and the administrator's token of `trimtab local`, made on
// first start and kept in the data directory so that a restart (and every kubeconfig written
// before it) keeps working:
//
//   <dir>/pki/ca.crt, ca.key                 the cluster CA (ECDSA P-256, 10 years), self-signed
//   <dir>/pki/apiserver.crt, apiserver.key   the serving certificate the CA issued (1 year) for
//                                            127.0.0.1, ::1, localhost, kubernetes(.default(.svc
//                                            (.cluster.local))), the bind address and the extra
//                                            names; issued again when a name is missing, it
//                                            expires within 30 days or the CA changed
//   <dir>/pki/admin.crt, admin.key           the administrator's client certificate (1 year):
//                                            CN kubernetes-admin, O system:masters (kubeadm's
//                                            admin.conf user); issued again when it expires
//                                            within 30 days or the CA changed
//   <dir>/admin.token                        the bearer token of the administrator (system:admin,
//                                            group system:masters): 32 random bytes, hex
//
// Keys and the token are written with mode 0600 in directories of mode 0700 (as kubeadm keeps
// /etc/kubernetes/pki). An empty `dir` makes everything in memory (tests).
//
// Thread-safety: LoadOrCreate is not safe to run twice at once on the same directory.
#pragma once

#include <string>
#include <vector>

#include "adapters/http/x509.h"
#include "common/status.h"

namespace trimtab::cluster::auth {

struct LocalCredentialsOptions {
  std::string dir;  // the data directory; "" = in memory
  // More subject alternative names for the serving certificate: IP literals become IP SANs,
  // anything else DNS SANs (the bind address, --tls-san values).
  std::vector<std::string> extra_names;
};

struct LocalCredentials {
  http::KeyPair ca;
  http::KeyPair server;
  http::KeyPair admin_client;  // the administrator's client certificate and key
  std::string admin_token;
  std::vector<std::string> dns_names;  // the serving certificate's DNS names
};

// The administrator's client certificate: its user (CommonName) and group (Organization).
inline constexpr char kAdminCertificateUser[] = "kubernetes-admin";
inline constexpr char kAdminCertificateGroup[] = "system:masters";

StatusOr<LocalCredentials> LoadOrCreateLocalCredentials(const LocalCredentialsOptions& options);

}  // namespace trimtab::cluster::auth
