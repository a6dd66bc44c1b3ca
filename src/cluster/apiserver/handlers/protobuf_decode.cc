#include "cluster/apiserver/handlers/protobuf_decode.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/auth/protobuf_auth.h"
#include "cluster/apiserver/handlers/protobuf_messages.h"

namespace trimtab::cluster {

namespace {

constexpr int kMaxGroupDepth = 32;
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;

Status Malformed(std::string what) { return InvalidArgumentError("invalid protobuf: " + what); }

// Strict UTF-8 check (no overlongs, surrogates or code points above U+10FFFF): the JSON layer
// cannot carry anything else in a string.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = 0;
    uint32_t cp = 0;
    uint32_t min = 0;
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i <= n) return false;
    for (size_t k = 1; k <= n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint32_t{static_cast<unsigned char>(in[i])} << 16) |
                 (uint32_t{static_cast<unsigned char>(in[i + 1])} << 8) |
                 uint32_t{static_cast<unsigned char>(in[i + 2])};
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (size_t rest = in.size() - i; rest > 0) {
    uint32_t v = uint32_t{static_cast<unsigned char>(in[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<unsigned char>(in[i + 1])} << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// The payload of a length-delimited field; `what` names the field in errors.
StatusOr<std::string_view> Bytes(const ProtoField& f, std::string_view what) {
  if (f.type != WireType::kLengthDelimited) {
    return Malformed(std::string(what) + ": expected a length-delimited field, got wire type " +
                     std::to_string(static_cast<int>(f.type)));
  }
  return f.bytes;
}

StatusOr<std::string> String(const ProtoField& f, std::string_view what) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, what));
  if (!IsUtf8(b)) return Malformed(std::string(what) + ": string is not valid UTF-8");
  return std::string(b);
}

StatusOr<bool> Bool(const ProtoField& f, std::string_view what) {
  if (f.type != WireType::kVarint) {
    return Malformed(std::string(what) + ": expected a varint field, got wire type " +
                     std::to_string(static_cast<int>(f.type)));
  }
  return f.varint != 0;
}

constexpr int kMaxMessageDepth = 64;
// A zero metav1.Time marshals as the Unix time of 0001-01-01T00:00:00Z; JSON writes it as null.
constexpr int64_t kZeroTimeSeconds = -62135596800;

StatusOr<uint64_t> Varint(const ProtoField& f, std::string_view what) {
  if (f.type != WireType::kVarint) {
    return Malformed(std::string(what) + ": expected a varint field, got wire type " +
                     std::to_string(static_cast<int>(f.type)));
  }
  return f.varint;
}

// metav1.Time / MicroTime {1 seconds, 2 nanos} as RFC 3339 (UTC); nullopt for the zero time.
StatusOr<std::optional<Json>> DecodeTime(std::string_view bytes, bool micro,
                                         std::string_view what) {
  int64_t seconds = kZeroTimeSeconds;
  int64_t nanos = 0;
  bool has_seconds = false;
  ProtoReader r(bytes);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    if (f.number == 1) {
      TRIMTAB_ASSIGN_OR_RETURN(uint64_t v, Varint(f, what));
      seconds = static_cast<int64_t>(v);
      has_seconds = true;
    } else if (f.number == 2) {
      TRIMTAB_ASSIGN_OR_RETURN(uint64_t v, Varint(f, what));
      nanos = static_cast<int32_t>(static_cast<uint32_t>(v));
    }
  }
  if (!has_seconds || (seconds == kZeroTimeSeconds && nanos == 0)) return std::nullopt;
  // Years 1..9999 only: what RFC 3339 (and Go's JSON encoding of a Time) can write.
  if (seconds < kZeroTimeSeconds || seconds > 253402300799 || nanos < 0 || nanos > 999999999) {
    return Malformed(std::string(what) + ": time out of range");
  }
  int64_t days = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) rem += 86400, days -= 1;
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t day = doy - (153 * mp + 2) / 5 + 1;
  int64_t month = mp < 10 ? mp + 3 : mp - 9;
  int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  char buf[48];
  int n = std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld",
                        static_cast<long long>(year), static_cast<long long>(month),
                        static_cast<long long>(day), static_cast<long long>(rem / 3600),
                        static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60));
  std::string out(buf, static_cast<size_t>(n));
  if (micro) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(nanos / 1000));
    out += buf;
  }
  return Json(out + "Z");
}

StatusOr<Json> DecodeMessage(const ProtoMessageSpec& spec, std::string_view bytes,
                             const std::string& path, int depth);

// One value of `field` read from `f`; nullopt when it is a zero value the JSON encoding omits.
StatusOr<std::optional<Json>> DecodeValue(const ProtoFieldSpec& field, const ProtoField& f,
                                          const std::string& path, int depth, bool keep_zero) {
  switch (field.type) {
    case ProtoType::kString: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string s, String(f, path));
      if (s.empty() && !keep_zero) return std::nullopt;
      return Json(std::move(s));
    }
    case ProtoType::kBytes: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, path));
      if (b.empty() && !keep_zero) return std::nullopt;
      return Json(Base64(b));
    }
    case ProtoType::kInt32: {
      TRIMTAB_ASSIGN_OR_RETURN(uint64_t v, Varint(f, path));
      auto i = static_cast<int32_t>(static_cast<uint32_t>(v));
      if (i == 0 && !keep_zero) return std::nullopt;
      return Json(i);
    }
    case ProtoType::kInt64: {
      TRIMTAB_ASSIGN_OR_RETURN(uint64_t v, Varint(f, path));
      auto i = static_cast<int64_t>(v);
      if (i == 0 && !keep_zero) return std::nullopt;
      return Json(i);
    }
    case ProtoType::kBool: {
      TRIMTAB_ASSIGN_OR_RETURN(bool b, Bool(f, path));
      if (!b && !keep_zero) return std::nullopt;
      return Json(b);
    }
    case ProtoType::kQuantity: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, path));
      std::string q;
      ProtoReader r(b);
      while (!r.done()) {
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, r.Next());
        if (g.number == 1) {
          TRIMTAB_ASSIGN_OR_RETURN(q, String(g, path));
        }
      }
      if (q.empty()) q = "0";
      return Json(std::move(q));
    }
    case ProtoType::kIntOrString: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, path));
      uint64_t type = 0;
      int32_t int_val = 0;
      std::string str_val;
      ProtoReader r(b);
      while (!r.done()) {
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, r.Next());
        if (g.number == 1) {
          TRIMTAB_ASSIGN_OR_RETURN(type, Varint(g, path));
        }
        if (g.number == 2) {
          TRIMTAB_ASSIGN_OR_RETURN(uint64_t v, Varint(g, path));
          int_val = static_cast<int32_t>(static_cast<uint32_t>(v));
        }
        if (g.number == 3) {
          TRIMTAB_ASSIGN_OR_RETURN(str_val, String(g, path));
        }
      }
      if (type == 1) return Json(std::move(str_val));
      return Json(int_val);
    }
    case ProtoType::kTime:
    case ProtoType::kMicroTime: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, path));
      return DecodeTime(b, field.type == ProtoType::kMicroTime, path);
    }
    case ProtoType::kFieldsV1: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, path));
      std::string_view raw;
      ProtoReader r(b);
      while (!r.done()) {
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, r.Next());
        if (g.number == 1) {
          TRIMTAB_ASSIGN_OR_RETURN(raw, Bytes(g, path));
        }
      }
      if (raw.empty()) return Json::object();
      Json parsed = Json::parse(raw, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_discarded()) return Malformed(path + ": fieldsV1 is not JSON");
      return parsed;
    }
    case ProtoType::kMessage: {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, path));
      if (depth >= kMaxMessageDepth) return Malformed(path + ": messages nested too deeply");
      TRIMTAB_ASSIGN_OR_RETURN(Json m, DecodeMessage(*field.message, b, path, depth + 1));
      return m;
    }
  }
  return std::nullopt;
}

bool IsScalar(ProtoType t) {
  return t == ProtoType::kInt32 || t == ProtoType::kInt64 || t == ProtoType::kBool;
}

// A map entry {1 key, 2 value} of `field`, added to `out`.
Status AddMapEntry(const ProtoFieldSpec& field, const ProtoField& f, const std::string& path,
                   int depth, Json* out) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string_view entry, Bytes(f, path));
  std::string key;
  std::optional<Json> value;
  ProtoReader r(entry);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField e, r.Next());
    if (e.number == 1) {
      TRIMTAB_ASSIGN_OR_RETURN(key, String(e, path + " key"));
    } else if (e.number == 2) {
      TRIMTAB_ASSIGN_OR_RETURN(value, DecodeValue(field, e, path + "[" + key + "]", depth, true));
    }
  }
  if (!value) {  // an absent value is the zero value
    switch (field.type) {
      case ProtoType::kInt32:
      case ProtoType::kInt64: value = 0; break;
      case ProtoType::kBool: value = false; break;
      case ProtoType::kQuantity: value = "0"; break;
      case ProtoType::kMessage: value = Json::object(); break;
      default: value = ""; break;
    }
  }
  if (!out->is_object()) *out = Json::object();
  (*out)[key] = std::move(*value);
  return Status::Ok();
}

StatusOr<Json> DecodeMessage(const ProtoMessageSpec& spec, std::string_view bytes,
                             const std::string& path, int depth) {
  Json out = Json::object();
  ProtoReader r(bytes);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    const ProtoFieldSpec* field = spec.Find(f.number);
    if (field == nullptr) continue;  // unknown fields are skipped, as proto2 readers do
    std::string where = path.empty() ? field->json_name : path + "." + field->json_name;
    if (field->map) {
      TRIMTAB_RETURN_IF_ERROR(AddMapEntry(*field, f, where, depth, &out[field->json_name]));
      continue;
    }
    if (field->repeated) {
      Json& list = out[field->json_name];
      if (!list.is_array()) list = Json::array();
      if (IsScalar(field->type) && f.type == WireType::kLengthDelimited) {
        ProtoReader packed(f.bytes);  // a packed repeated scalar: varints back to back
        while (!packed.done()) {
          ProtoField one;
          one.number = f.number;
          one.type = WireType::kVarint;
          TRIMTAB_ASSIGN_OR_RETURN(one.varint, packed.NextVarint());
          TRIMTAB_ASSIGN_OR_RETURN(auto v, DecodeValue(*field, one, where, depth, true));
          list.push_back(std::move(*v));
        }
        continue;
      }
      TRIMTAB_ASSIGN_OR_RETURN(auto v, DecodeValue(*field, f, where, depth, true));
      list.push_back(v ? std::move(*v) : Json());
      continue;
    }
    TRIMTAB_ASSIGN_OR_RETURN(auto v, DecodeValue(*field, f, where, depth, field->keep_zero));
    if (!v) {
      out.erase(field->json_name);  // a later zero value overrides an earlier one
      continue;
    }
    if (field->inlined) {
      for (auto& [k, value] : v->items()) out[k] = std::move(value);
    } else {
      out[field->json_name] = std::move(*v);
    }
  }
  return out;
}

struct Envelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;
  std::string content_encoding;
  std::string content_type;
};

// runtime.Unknown: 1 typeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType.
StatusOr<Envelope> DecodeEnvelope(std::string_view message) {
  Envelope env;
  ProtoReader r(message);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    switch (f.number) {
      case 1: {
        TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, "typeMeta"));
        ProtoReader t(b);
        while (!t.done()) {
          TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, t.Next());
          if (g.number == 1) {
            TRIMTAB_ASSIGN_OR_RETURN(env.api_version, String(g, "typeMeta.apiVersion"));
          } else if (g.number == 2) {
            TRIMTAB_ASSIGN_OR_RETURN(env.kind, String(g, "typeMeta.kind"));
          }
        }
        break;
      }
      case 2: {
        TRIMTAB_ASSIGN_OR_RETURN(env.raw, Bytes(f, "raw"));
        break;
      }
      case 3: {
        TRIMTAB_ASSIGN_OR_RETURN(env.content_encoding, String(f, "contentEncoding"));
        break;
      }
      case 4: {
        TRIMTAB_ASSIGN_OR_RETURN(env.content_type, String(f, "contentType"));
        break;
      }
      default:
        break;
    }
  }
  return env;
}

Json ObjectShell(const std::string& api_version, const std::string& kind) {
  return Json{{"apiVersion", api_version}, {"kind", kind}, {"metadata", Json::object()}};
}

ApiError Unsupported(std::string what) {
  return UnsupportedMediaType(
      std::move(what) +
      "; this server decodes protobuf request bodies of the built-in kinds of core/v1, apps/v1, "
      "batch/v1, networking.k8s.io/v1, policy/v1, rbac.authorization.k8s.io/v1, "
      "scheduling.k8s.io/v1, coordination.k8s.io/v1, discovery.k8s.io/v1, events.k8s.io/v1, "
      "autoscaling/v1 and v2, storage.k8s.io/v1 and of the authentication/authorization "
      "reviews - send JSON instead, e.g. `kubectl create ... --dry-run=client -o yaml | "
      "kubectl apply -f -`");
}

}  // namespace

StatusOr<uint64_t> ProtoReader::ReadVarint() {
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= data_.size()) return Malformed("truncated varint");
    auto b = static_cast<uint8_t>(data_[pos_++]);
    if (i == 9 && b > 1) return Malformed("varint overflows 64 bits");
    value |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  return Malformed("varint overflows 64 bits");
}

StatusOr<ProtoField> ProtoReader::ReadField(int depth) {
  TRIMTAB_ASSIGN_OR_RETURN(uint64_t tag, ReadVarint());
  uint64_t number = tag >> 3;
  if (number == 0 || number > kMaxFieldNumber) {
    return Malformed("invalid field number " + std::to_string(number));
  }
  ProtoField f;
  f.number = static_cast<uint32_t>(number);
  size_t left = data_.size() - pos_;
  switch (tag & 7) {
    case 0: {
      f.type = WireType::kVarint;
      TRIMTAB_ASSIGN_OR_RETURN(f.varint, ReadVarint());
      return f;
    }
    case 1:
    case 5: {
      size_t width = (tag & 7) == 1 ? 8 : 4;
      f.type = width == 8 ? WireType::kFixed64 : WireType::kFixed32;
      if (left < width) return Malformed("truncated fixed-width field " + std::to_string(number));
      for (size_t k = 0; k < width; ++k) {
        f.varint |= uint64_t{static_cast<unsigned char>(data_[pos_ + k])} << (8 * k);
      }
      pos_ += width;
      return f;
    }
    case 2: {
      f.type = WireType::kLengthDelimited;
      TRIMTAB_ASSIGN_OR_RETURN(uint64_t len, ReadVarint());
      left = data_.size() - pos_;
      if (len > left) {
        return Malformed("field " + std::to_string(number) + " is " + std::to_string(len) +
                         " bytes long but only " + std::to_string(left) + " remain");
      }
      f.bytes = data_.substr(pos_, static_cast<size_t>(len));
      pos_ += static_cast<size_t>(len);
      return f;
    }
    case 3: {
      f.type = WireType::kStartGroup;
      size_t start = pos_;
      if (depth >= kMaxGroupDepth) return Malformed("groups nested too deeply");
      // SkipGroup leaves pos_ after the end-group tag; bytes is the group's content.
      size_t before_end = pos_;
      while (true) {
        if (done()) return Malformed("unterminated group " + std::to_string(number));
        before_end = pos_;
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField inner, ReadField(depth + 1));
        if (inner.type == WireType::kEndGroup) {
          if (inner.number != f.number) {
            return Malformed("end-group " + std::to_string(inner.number) +
                             " does not match group " + std::to_string(number));
          }
          break;
        }
      }
      f.bytes = data_.substr(start, before_end - start);
      return f;
    }
    case 4:
      f.type = WireType::kEndGroup;
      return f;
    default:
      return Malformed("invalid wire type " + std::to_string(tag & 7) + " for field " +
                       std::to_string(number));
  }
}

StatusOr<uint64_t> ProtoReader::NextVarint() {
  if (done()) return Malformed("read past the end of the message");
  return ReadVarint();
}

StatusOr<ProtoField> ProtoReader::Next() {
  if (done()) return Malformed("read past the end of the message");
  TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, ReadField(0));
  if (f.type == WireType::kEndGroup) {
    return Malformed("unexpected end-group for field " + std::to_string(f.number));
  }
  return f;
}

bool IsKubernetesProtobufMediaType(std::string_view media_type) {
  return media_type == "application/vnd.kubernetes.protobuf";
}

ApiResult<Json> DecodeProtobufBody(std::string_view body) {
  if (body.substr(0, kK8sProtobufMagic.size()) != kK8sProtobufMagic) {
    return Unsupported(
        "the body of the request was in an unknown format: a protobuf body must "
        "start with the \"k8s\\0\" prefix");
  }
  auto env = DecodeEnvelope(body.substr(kK8sProtobufMagic.size()));
  if (!env.ok()) return BadRequest(env.status().message());
  if (!env->content_encoding.empty()) {
    return Unsupported("protobuf content encoding \"" + env->content_encoding +
                       "\" is not supported");
  }
  if (!env->content_type.empty() && env->content_type != "application/vnd.kubernetes.protobuf") {
    return Unsupported("protobuf envelope content type \"" + env->content_type +
                       "\" is not supported");
  }
  if (env->kind.empty()) return BadRequest("invalid protobuf: the envelope has no kind");
  StatusOr<Json> decoded = InvalidArgumentError("unreachable");
  if (const ProtoMessageSpec* spec = FindProtoMessageForKind(env->api_version, env->kind)) {
    decoded = DecodeMessage(*spec, env->raw, "", 0);
    if (decoded.ok()) {
      Json object = ObjectShell(env->api_version, env->kind);
      object.update(*decoded);
      decoded = std::move(object);
    }
  } else if (auto review = auth::DecodeAuthProtobuf(env->api_version, env->kind, env->raw)) {
    decoded = std::move(*review);
  } else {
    std::string gvk =
        env->api_version.empty() ? env->kind : env->api_version + ", Kind=" + env->kind;
    return Unsupported("protobuf request bodies of kind " + gvk + " are not supported");
  }
  if (!decoded.ok()) return BadRequest(decoded.status().message());
  return std::move(decoded).value();
}

}  // namespace trimtab::cluster
