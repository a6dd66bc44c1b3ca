#include "adapters/http/x509.h"

#include <arpa/inet.h>

#include <memory>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace trimtab::http {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(ASN1_OCTET_STRING* p) const { ASN1_OCTET_STRING_free(p); }
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
};
template <typename T>
using Ptr = std::unique_ptr<T, Free>;

Status OpensslError(const std::string& what) {
  unsigned long code = ERR_get_error();
  char buf[256] = "unknown error";
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return InternalError("x509: " + what + ": " + buf);
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

StatusOr<Ptr<X509>> ReadCertificate(const std::string& pem) {
  Ptr<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Ptr<X509> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return OpensslError("reading a PEM certificate");
  return cert;
}

StatusOr<Ptr<EVP_PKEY>> ReadKey(const std::string& pem) {
  Ptr<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Ptr<EVP_PKEY> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return OpensslError("reading a PEM private key");
  return key;
}

StatusOr<Ptr<EVP_PKEY>> NewKey() {
  Ptr<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (!key) return OpensslError("generating a P-256 key");
  return key;
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return OpensslError("extension " + value);
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (!ok) return OpensslError("adding extension " + value);
  return Status::Ok();
}

// A certificate for `key` with `request`'s subject, not yet signed.
StatusOr<Ptr<X509>> NewCertificate(const CertificateRequest& request, EVP_PKEY* key) {
  Ptr<X509> cert(X509_new());
  if (!cert) return OpensslError("allocating a certificate");
  X509_set_version(cert.get(), 2);
  // A random positive 127-bit serial, as RFC 5280 asks for unpredictable serials.
  TRIMTAB_ASSIGN_OR_RETURN(std::string serial_bytes, RandomBytes(16));
  serial_bytes[0] = static_cast<char>(serial_bytes[0] & 0x7f);
  Ptr<BIGNUM> serial(BN_bin2bn(reinterpret_cast<const unsigned char*>(serial_bytes.data()),
                               static_cast<int>(serial_bytes.size()), nullptr));
  if (!serial || !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get()))) {
    return OpensslError("setting the serial number");
  }
  // Valid from an hour ago (clock skew between processes), for request.validity.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                  static_cast<long>(std::chrono::seconds(request.validity).count()));
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const std::string& o : request.organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(
                                      request.common_name.c_str()),
                                  -1, -1, 0)) {
    return OpensslError("setting CommonName " + request.common_name);
  }
  if (!X509_set_pubkey(cert.get(), key)) return OpensslError("setting the public key");
  return cert;
}

Status AddSubjectAltNames(X509* cert, const CertificateRequest& request) {
  if (request.dns_names.empty() && request.ip_addresses.empty()) return Status::Ok();
  Ptr<GENERAL_NAMES> names(sk_GENERAL_NAME_new_null());
  for (const std::string& dns : request.dns_names) {
    GENERAL_NAME* gn = GENERAL_NAME_new();
    ASN1_IA5STRING* s = ASN1_IA5STRING_new();
    ASN1_STRING_set(s, dns.data(), static_cast<int>(dns.size()));
    GENERAL_NAME_set0_value(gn, GEN_DNS, s);
    sk_GENERAL_NAME_push(names.get(), gn);
  }
  for (const std::string& ip : request.ip_addresses) {
    ASN1_OCTET_STRING* octets = a2i_IPADDRESS(ip.c_str());
    if (octets == nullptr) {
      ERR_clear_error();
      return InvalidArgumentError("x509: \"" + ip + "\" is not an IP address");
    }
    GENERAL_NAME* gn = GENERAL_NAME_new();
    GENERAL_NAME_set0_value(gn, GEN_IPADD, octets);
    sk_GENERAL_NAME_push(names.get(), gn);
  }
  if (!X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT)) {
    return OpensslError("adding subjectAltName");
  }
  return Status::Ok();
}

StatusOr<KeyPair> Finish(X509* cert, EVP_PKEY* key, EVP_PKEY* signer) {
  if (!X509_sign(cert, signer, EVP_sha256())) return OpensslError("signing the certificate");
  Ptr<BIO> cert_bio(BIO_new(BIO_s_mem()));
  Ptr<BIO> key_bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(cert_bio.get(), cert) ||
      !PEM_write_bio_PrivateKey(key_bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return OpensslError("writing PEM");
  }
  return KeyPair{.certificate_pem = BioText(cert_bio.get()), .key_pem = BioText(key_bio.get())};
}

}  // namespace

StatusOr<std::string> RandomBytes(size_t bytes) {
  std::string out(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(bytes)) != 1) {
    return OpensslError("reading random bytes");
  }
  return out;
}

StatusOr<KeyPair> GenerateCa(const CertificateRequest& request) {
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<EVP_PKEY> key, NewKey());
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<X509> cert, NewCertificate(request, key.get()));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  TRIMTAB_RETURN_IF_ERROR(
      AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE"));
  TRIMTAB_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_key_usage,
                                       "critical,digitalSignature,keyEncipherment,keyCertSign"));
  TRIMTAB_RETURN_IF_ERROR(
      AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  TRIMTAB_RETURN_IF_ERROR(AddSubjectAltNames(cert.get(), request));
  return Finish(cert.get(), key.get(), key.get());
}

StatusOr<KeyPair> IssueCertificate(const KeyPair& ca, const CertificateRequest& request) {
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<X509> ca_cert, ReadCertificate(ca.certificate_pem));
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<EVP_PKEY> ca_key, ReadKey(ca.key_pem));
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<EVP_PKEY> key, NewKey());
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<X509> cert, NewCertificate(request, key.get()));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  TRIMTAB_RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  TRIMTAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca_cert.get(), NID_key_usage,
                                       "critical,digitalSignature,keyEncipherment"));
  TRIMTAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca_cert.get(), NID_ext_key_usage,
                                       request.server ? "serverAuth" : "clientAuth"));
  TRIMTAB_RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always"));
  TRIMTAB_RETURN_IF_ERROR(AddSubjectAltNames(cert.get(), request));
  return Finish(cert.get(), key.get(), ca_key.get());
}

StatusOr<CertificateInfo> InspectCertificate(const std::string& certificate_pem) {
  TRIMTAB_ASSIGN_OR_RETURN(Ptr<X509> cert, ReadCertificate(certificate_pem));
  CertificateInfo info;
  Ptr<GENERAL_NAMES> names(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names.get(), i);
    if (gn->type == GEN_DNS) {
      const ASN1_STRING* s = gn->d.dNSName;
      info.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                  static_cast<size_t>(ASN1_STRING_length(s)));
    } else if (gn->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = gn->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = "";
      const int family = ip->length == 4 ? AF_INET : ip->length == 16 ? AF_INET6 : 0;
      if (family != 0 && inet_ntop(family, ip->data, text, sizeof(text)) != nullptr) {
        info.ip_addresses.emplace_back(text);
      }
    }
  }
  int days = 0, seconds = 0;
  if (!ASN1_TIME_diff(&days, &seconds, nullptr, X509_get0_notAfter(cert.get()))) {
    return OpensslError("reading notAfter");
  }
  info.not_after = std::chrono::system_clock::now() + std::chrono::hours(24) * days +
                   std::chrono::seconds(seconds);
  return info;
}

bool SignedBy(const std::string& certificate_pem, const std::string& ca_pem) {
  auto cert = ReadCertificate(certificate_pem);
  auto ca = ReadCertificate(ca_pem);
  if (!cert.ok() || !ca.ok()) return false;
  EVP_PKEY* ca_key = X509_get0_pubkey(ca->get());
  bool ok = ca_key != nullptr && X509_verify(cert->get(), ca_key) == 1;
  ERR_clear_error();
  return ok;
}

bool KeyMatches(const std::string& certificate_pem, const std::string& key_pem) {
  auto cert = ReadCertificate(certificate_pem);
  auto key = ReadKey(key_pem);
  if (!cert.ok() || !key.ok()) return false;
  bool ok = X509_check_private_key(cert->get(), key->get()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace trimtab::http
