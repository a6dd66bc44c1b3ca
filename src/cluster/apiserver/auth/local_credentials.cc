#include "cluster/apiserver/auth/local_credentials.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

namespace trimtab::cluster::auth {

namespace fs = std::filesystem;

namespace {

constexpr char kCaName[] = "trimtab-local-ca";
constexpr auto kCaValidity = std::chrono::hours(24 * 3650);
constexpr auto kServerValidity = std::chrono::hours(24 * 365);
constexpr auto kRenewBefore = std::chrono::hours(24 * 30);

bool IsIp(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// The file's text, or "" when it does not exist or cannot be read.
std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `path` with mode 0600 (through a temporary file and a rename).
Status WritePrivate(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return UnavailableError("credentials: cannot write " + tmp.string());
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      return UnavailableError("credentials: cannot write " + tmp.string());
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return UnavailableError("credentials: cannot write " + path.string() + ": " + ec.message());
  return Status::Ok();
}

Status MakePrivateDir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return UnavailableError("credentials: cannot create " + dir.string() + ": " + ec.message());
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  return Status::Ok();
}

std::string Hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

bool Covers(const http::CertificateInfo& info, const http::CertificateRequest& want) {
  auto has = [](const std::vector<std::string>& in, const std::string& x) {
    return std::find(in.begin(), in.end(), x) != in.end();
  };
  for (const auto& d : want.dns_names) {
    if (!has(info.dns_names, d)) return false;
  }
  for (const auto& ip : want.ip_addresses) {
    if (!has(info.ip_addresses, ip)) return false;
  }
  return true;
}

}  // namespace

StatusOr<LocalCredentials> LoadOrCreateLocalCredentials(const LocalCredentialsOptions& options) {
  LocalCredentials out;
  http::CertificateRequest serving{.common_name = "trimtab-local-apiserver",
                                   .dns_names = {"localhost", "kubernetes", "kubernetes.default",
                                                 "kubernetes.default.svc",
                                                 "kubernetes.default.svc.cluster.local"},
                                   .ip_addresses = {"127.0.0.1", "::1"},
                                   .server = true,
                                   .validity = kServerValidity};
  for (const std::string& name : options.extra_names) {
    if (name.empty() || name == "0.0.0.0" || name == "::") continue;  // wildcards name no host
    auto& list = IsIp(name) ? serving.ip_addresses : serving.dns_names;
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  }
  out.dns_names = serving.dns_names;

  const bool persistent = !options.dir.empty();
  const fs::path pki = fs::path(options.dir) / "pki";
  if (persistent) TRIMTAB_RETURN_IF_ERROR(MakePrivateDir(pki));

  // The CA: kept for as long as its files are there and belong together.
  if (persistent) {
    out.ca.certificate_pem = ReadText(pki / "ca.crt");
    out.ca.key_pem = ReadText(pki / "ca.key");
  }
  bool new_ca = false;
  if (out.ca.certificate_pem.empty() || out.ca.key_pem.empty() ||
      !http::KeyMatches(out.ca.certificate_pem, out.ca.key_pem)) {
    if (!out.ca.certificate_pem.empty()) {
      spdlog::warn("credentials: {} and ca.key do not belong together; making a new CA "
                   "(kubeconfigs written before no longer verify)",
                   (pki / "ca.crt").string());
    }
    TRIMTAB_ASSIGN_OR_RETURN(out.ca,
                             http::GenerateCa({.common_name = kCaName, .validity = kCaValidity}));
    new_ca = true;
    if (persistent) {
      TRIMTAB_RETURN_IF_ERROR(WritePrivate(pki / "ca.key", out.ca.key_pem));
      TRIMTAB_RETURN_IF_ERROR(WritePrivate(pki / "ca.crt", out.ca.certificate_pem));
    }
  }

  // The serving certificate: issued again when it does not fit any more.
  if (persistent && !new_ca) {
    out.server.certificate_pem = ReadText(pki / "apiserver.crt");
    out.server.key_pem = ReadText(pki / "apiserver.key");
  }
  bool reuse = !out.server.certificate_pem.empty() &&
               http::KeyMatches(out.server.certificate_pem, out.server.key_pem) &&
               http::SignedBy(out.server.certificate_pem, out.ca.certificate_pem);
  if (reuse) {
    auto info = http::InspectCertificate(out.server.certificate_pem);
    reuse = info.ok() && Covers(*info, serving) &&
            info->not_after > std::chrono::system_clock::now() + kRenewBefore;
  }
  if (!reuse) {
    TRIMTAB_ASSIGN_OR_RETURN(out.server, http::IssueCertificate(out.ca, serving));
    if (persistent) {
      TRIMTAB_RETURN_IF_ERROR(WritePrivate(pki / "apiserver.key", out.server.key_pem));
      TRIMTAB_RETURN_IF_ERROR(WritePrivate(pki / "apiserver.crt", out.server.certificate_pem));
    }
  }

  // The administrator's client certificate: issued again like the serving certificate.
  if (persistent && !new_ca) {
    out.admin_client.certificate_pem = ReadText(pki / "admin.crt");
    out.admin_client.key_pem = ReadText(pki / "admin.key");
  }
  bool reuse_client =
      !out.admin_client.certificate_pem.empty() &&
      http::KeyMatches(out.admin_client.certificate_pem, out.admin_client.key_pem) &&
      http::SignedBy(out.admin_client.certificate_pem, out.ca.certificate_pem);
  if (reuse_client) {
    auto info = http::InspectCertificate(out.admin_client.certificate_pem);
    reuse_client = info.ok() && info->not_after > std::chrono::system_clock::now() + kRenewBefore;
  }
  if (!reuse_client) {
    TRIMTAB_ASSIGN_OR_RETURN(
        out.admin_client, http::IssueCertificate(out.ca, {.common_name = kAdminCertificateUser,
                                                          .organizations = {kAdminCertificateGroup},
                                                          .server = false,
                                                          .validity = kServerValidity}));
    if (persistent) {
      TRIMTAB_RETURN_IF_ERROR(WritePrivate(pki / "admin.key", out.admin_client.key_pem));
      TRIMTAB_RETURN_IF_ERROR(WritePrivate(pki / "admin.crt", out.admin_client.certificate_pem));
    }
  }

  // The administrator's token.
  const fs::path token_file = fs::path(options.dir) / "admin.token";
  if (persistent) {
    out.admin_token = ReadText(token_file);
    while (!out.admin_token.empty() &&
           (out.admin_token.back() == '\n' || out.admin_token.back() == ' ')) {
      out.admin_token.pop_back();
    }
  }
  if (out.admin_token.size() < 32) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string random, http::RandomBytes(32));
    out.admin_token = Hex(random);
    if (persistent) TRIMTAB_RETURN_IF_ERROR(WritePrivate(token_file, out.admin_token + "\n"));
  }
  return out;
}

}  // namespace trimtab::cluster::auth
