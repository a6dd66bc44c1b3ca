#include "cluster/apiserver/auth/service_account_tokens.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/auth/sha256.h"
#include "common/json.h"

namespace trimtab::cluster::auth {
namespace {

constexpr char kBase64Url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                 (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                 uint32_t{static_cast<uint8_t>(bytes[i + 2])};
    for (int k = 3; k >= 0; --k) out.push_back(kBase64Url[(v >> (6 * k)) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out.push_back(kBase64Url[(v >> 18) & 63]);
    out.push_back(kBase64Url[(v >> 12) & 63]);
    if (rest == 2) out.push_back(kBase64Url[(v >> 6) & 63]);
  }
  return out;
}

// Unpadded base64url; false on any other character or an impossible length.
bool Base64UrlDecode(std::string_view text, std::string* out) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const char* p = c ? std::strchr(kBase64Url, c) : nullptr;
    if (!p) return false;
    acc = (acc << 6) | static_cast<uint32_t>(p - kBase64Url);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return text.size() % 4 != 1;
}

std::string DigestBytes(const Sha256Digest& d) {
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

std::string RandomBytes(size_t n) {
  std::random_device rd;
  std::string out;
  while (out.size() < n) {
    uint32_t v = rd();
    for (int i = 0; i < 4 && out.size() < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  }
  return out;
}

Status Invalid(const std::string& why) { return PermissionDeniedError("invalid bearer token: " + why); }

int64_t Int(const Json& o, const char* field) {
  auto it = o.find(field);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string Str(const Json& o, const char* field) {
  if (!o.is_object()) return "";
  auto it = o.find(field);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string RandomUuid() {
  std::string b = RandomBytes(16);
  b[6] = static_cast<char>((b[6] & 0x0F) | 0x40);
  b[8] = static_cast<char>((b[8] & 0x3F) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[(static_cast<uint8_t>(b[i]) >> 4) & 15]);
    out.push_back(kHex[static_cast<uint8_t>(b[i]) & 15]);
  }
  return out;
}

StatusOr<std::unique_ptr<TokenIssuer>> TokenIssuer::Create(const std::string& key_file) {
  if (key_file.empty()) return std::make_unique<TokenIssuer>(RandomBytes(32));
  if (std::filesystem::exists(key_file)) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(key_file));
    std::string key;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (!Base64UrlDecode(text, &key) || key.size() < 32) {
      return InvalidArgumentError("service-account signing key " + key_file +
                                  " is not 32 or more base64url bytes; delete it to make a new "
                                  "one (tokens issued before stop working)");
    }
    return std::make_unique<TokenIssuer>(std::move(key));
  }
  std::string key = RandomBytes(32);
  std::string tmp = key_file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << Base64UrlEncode(key) << "\n";
    if (!out.flush()) return UnavailableError("cannot write " + tmp);
  }
  ::chmod(tmp.c_str(), 0600);
  std::error_code ec;
  std::filesystem::rename(tmp, key_file, ec);
  if (ec) return UnavailableError("cannot write " + key_file + ": " + ec.message());
  return std::make_unique<TokenIssuer>(std::move(key));
}

std::string TokenIssuer::Issue(TokenClaims c) const {
  if (c.id.empty()) c.id = RandomUuid();
  if (c.audiences.empty()) c.audiences = {std::string(kTokenIssuer)};
  Json k8s = {{"namespace", c.ns},
              {"serviceaccount", {{"name", c.service_account}, {"uid", c.service_account_uid}}}};
  if (!c.pod_name.empty()) k8s["pod"] = {{"name", c.pod_name}, {"uid", c.pod_uid}};
  if (!c.secret_name.empty()) k8s["secret"] = {{"name", c.secret_name}, {"uid", c.secret_uid}};
  if (c.warn_after > 0) k8s["warnafter"] = c.warn_after;
  Json payload = {{"aud", c.audiences},
                  {"exp", c.expires_at},
                  {"iat", c.issued_at},
                  {"iss", std::string(kTokenIssuer)},
                  {"jti", c.id},
                  {"kubernetes.io", std::move(k8s)},
                  {"nbf", c.issued_at},
                  {"sub", std::string("system:serviceaccount:") + c.ns + ":" + c.service_account}};
  Json header = {{"alg", "HS256"},
                 {"kid", Base64UrlEncode(DigestBytes(Sha256(key_))).substr(0, 43)}};
  std::string signing_input =
      Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(payload.dump());
  return signing_input + "." + Base64UrlEncode(DigestBytes(HmacSha256(key_, signing_input)));
}

StatusOr<TokenClaims> TokenIssuer::Verify(std::string_view token, TimePoint now) const {
  size_t first = token.find('.');
  size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return Invalid("not a JSON Web Token");
  }
  std::string_view signing_input = token.substr(0, second);
  std::string signature;
  if (!Base64UrlDecode(token.substr(second + 1), &signature)) return Invalid("bad signature");
  if (!ConstantTimeEquals(signature, DigestBytes(HmacSha256(key_, signing_input)))) {
    return Invalid("signature does not verify");
  }
  std::string header_text, payload_text;
  if (!Base64UrlDecode(token.substr(0, first), &header_text) ||
      !Base64UrlDecode(token.substr(first + 1, second - first - 1), &payload_text)) {
    return Invalid("bad encoding");
  }
  Json header = Json::parse(header_text, nullptr, false);
  Json payload = Json::parse(payload_text, nullptr, false);
  if (!header.is_object() || !payload.is_object() || Str(header, "alg") != "HS256") {
    return Invalid("bad header or payload");
  }
  if (Str(payload, "iss") != kTokenIssuer) return Invalid("wrong issuer");
  TokenClaims c;
  if (payload.contains("aud") && payload["aud"].is_array()) {
    for (const Json& a : payload["aud"]) {
      if (a.is_string()) c.audiences.push_back(a.get<std::string>());
    }
  }
  if (std::find(c.audiences.begin(), c.audiences.end(), kTokenIssuer) == c.audiences.end()) {
    return Invalid("token audiences do not include the API server");
  }
  c.issued_at = Int(payload, "iat");
  c.expires_at = Int(payload, "exp");
  const int64_t now_s = ToUnixMillis(now) / 1000;
  // The kube-apiserver allows 60 s of clock skew on both ends.
  if (now_s > c.expires_at + 60) return Invalid("token has expired");
  if (now_s + 60 < Int(payload, "nbf")) return Invalid("token is not valid yet");
  const Json k8s = payload.value("kubernetes.io", Json::object());
  c.ns = Str(k8s, "namespace");
  const Json sa = k8s.value("serviceaccount", Json::object());
  c.service_account = Str(sa, "name");
  c.service_account_uid = Str(sa, "uid");
  const Json pod = k8s.value("pod", Json::object());
  c.pod_name = Str(pod, "name");
  c.pod_uid = Str(pod, "uid");
  const Json secret = k8s.value("secret", Json::object());
  c.secret_name = Str(secret, "name");
  c.secret_uid = Str(secret, "uid");
  c.warn_after = Int(k8s, "warnafter");
  c.id = Str(payload, "jti");
  if (c.ns.empty() || c.service_account.empty()) return Invalid("no service account");
  return c;
}

}  // namespace trimtab::cluster::auth
