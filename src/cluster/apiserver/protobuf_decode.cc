#include "cluster/apiserver/protobuf_decode.h"

#include <string>
#include <utility>

#include "cluster/apiserver/auth/protobuf_auth.h"

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

// A map<string, string|bytes> entry {1: key, 2: value} added to `out`; bytes values are
// base64-encoded as in JSON.
Status AddMapEntry(const ProtoField& f, bool bytes_value, std::string_view what, Json* out) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string_view entry, Bytes(f, what));
  std::string key;
  Json value = "";
  ProtoReader r(entry);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField e, r.Next());
    if (e.number == 1) {
      TRIMTAB_ASSIGN_OR_RETURN(key, String(e, std::string(what) + " key"));
    } else if (e.number == 2) {
      if (bytes_value) {
        TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(e, std::string(what) + " value"));
        value = Base64(b);
      } else {
        TRIMTAB_ASSIGN_OR_RETURN(value, String(e, std::string(what) + "[" + key + "]"));
      }
    }
  }
  if (!out->is_object()) *out = Json::object();
  (*out)[key] = std::move(value);
  return Status::Ok();
}

// Sets out[name] to a non-empty string field (proto2 generators send "" for unset strings).
Status SetString(const ProtoField& f, std::string_view what, const char* name, Json* out) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string s, String(f, what));
  if (!s.empty()) (*out)[name] = std::move(s);
  return Status::Ok();
}

Status AppendString(const ProtoField& f, std::string_view what, const char* name, Json* out) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string s, String(f, what));
  (*out)[name].push_back(std::move(s));
  return Status::Ok();
}

// meta/v1 OwnerReference: 1 kind, 3 name, 4 uid, 5 apiVersion, 6 controller,
// 7 blockOwnerDeletion.
StatusOr<Json> DecodeOwnerReference(std::string_view bytes) {
  Json out = Json::object();
  ProtoReader r(bytes);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    switch (f.number) {
      case 1:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "ownerReferences.kind", "kind", &out));
        break;
      case 3:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "ownerReferences.name", "name", &out));
        break;
      case 4:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "ownerReferences.uid", "uid", &out));
        break;
      case 5:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "ownerReferences.apiVersion", "apiVersion", &out));
        break;
      case 6: {
        TRIMTAB_ASSIGN_OR_RETURN(out["controller"], Bool(f, "ownerReferences.controller"));
        break;
      }
      case 7: {
        TRIMTAB_ASSIGN_OR_RETURN(out["blockOwnerDeletion"],
                                 Bool(f, "ownerReferences.blockOwnerDeletion"));
        break;
      }
      default:
        break;
    }
  }
  return out;
}

// meta/v1 ObjectMeta: 1 name, 2 generateName, 3 namespace, 5 uid, 6 resourceVersion,
// 11 labels, 12 annotations, 13 ownerReferences, 14 finalizers. Server-populated fields
// (selfLink, generation, timestamps, managedFields...) are ignored as on a JSON create.
StatusOr<Json> DecodeObjectMeta(std::string_view bytes) {
  Json out = Json::object();
  ProtoReader r(bytes);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    switch (f.number) {
      case 1:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "metadata.name", "name", &out));
        break;
      case 2:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "metadata.generateName", "generateName", &out));
        break;
      case 3:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "metadata.namespace", "namespace", &out));
        break;
      case 5:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "metadata.uid", "uid", &out));
        break;
      case 6:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "metadata.resourceVersion", "resourceVersion", &out));
        break;
      case 11:
        TRIMTAB_RETURN_IF_ERROR(AddMapEntry(f, false, "metadata.labels", &out["labels"]));
        break;
      case 12:
        TRIMTAB_RETURN_IF_ERROR(AddMapEntry(f, false, "metadata.annotations", &out["annotations"]));
        break;
      case 13: {
        TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, "metadata.ownerReferences"));
        TRIMTAB_ASSIGN_OR_RETURN(Json ref, DecodeOwnerReference(b));
        out["ownerReferences"].push_back(std::move(ref));
        break;
      }
      case 14:
        TRIMTAB_RETURN_IF_ERROR(AppendString(f, "metadata.finalizers", "finalizers", &out));
        break;
      default:
        break;
    }
  }
  return out;
}

Json ObjectShell(const std::string& api_version, const std::string& kind) {
  return Json{{"apiVersion", api_version}, {"kind", kind}, {"metadata", Json::object()}};
}

Status DecodeMetadataField(const ProtoField& f, Json* out) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, "metadata"));
  TRIMTAB_ASSIGN_OR_RETURN((*out)["metadata"], DecodeObjectMeta(b));
  return Status::Ok();
}

// core/v1 Namespace: 1 metadata, 2 spec{1 finalizers}, 3 status{1 phase}.
StatusOr<Json> DecodeNamespace(std::string_view raw, Json out) {
  ProtoReader r(raw);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    if (f.number == 1) {
      TRIMTAB_RETURN_IF_ERROR(DecodeMetadataField(f, &out));
    } else if (f.number == 2) {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, "spec"));
      Json spec = Json::object();
      ProtoReader s(b);
      while (!s.done()) {
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, s.Next());
        if (g.number == 1) {
          TRIMTAB_RETURN_IF_ERROR(AppendString(g, "spec.finalizers", "finalizers", &spec));
        }
      }
      if (!spec.empty()) out["spec"] = std::move(spec);
    } else if (f.number == 3) {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, "status"));
      Json status = Json::object();
      ProtoReader s(b);
      while (!s.done()) {
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, s.Next());
        if (g.number == 1) TRIMTAB_RETURN_IF_ERROR(SetString(g, "status.phase", "phase", &status));
      }
      if (!status.empty()) out["status"] = std::move(status);
    }
  }
  return out;
}

// core/v1 ConfigMap: 1 metadata, 2 data, 3 binaryData, 4 immutable.
StatusOr<Json> DecodeConfigMap(std::string_view raw, Json out) {
  ProtoReader r(raw);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    switch (f.number) {
      case 1:
        TRIMTAB_RETURN_IF_ERROR(DecodeMetadataField(f, &out));
        break;
      case 2:
        TRIMTAB_RETURN_IF_ERROR(AddMapEntry(f, false, "data", &out["data"]));
        break;
      case 3:
        TRIMTAB_RETURN_IF_ERROR(AddMapEntry(f, true, "binaryData", &out["binaryData"]));
        break;
      case 4: {
        TRIMTAB_ASSIGN_OR_RETURN(out["immutable"], Bool(f, "immutable"));
        break;
      }
      default:
        break;
    }
  }
  return out;
}

// core/v1 Secret: 1 metadata, 2 data (bytes), 3 type, 4 stringData, 5 immutable.
StatusOr<Json> DecodeSecret(std::string_view raw, Json out) {
  ProtoReader r(raw);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    switch (f.number) {
      case 1:
        TRIMTAB_RETURN_IF_ERROR(DecodeMetadataField(f, &out));
        break;
      case 2:
        TRIMTAB_RETURN_IF_ERROR(AddMapEntry(f, true, "data", &out["data"]));
        break;
      case 3:
        TRIMTAB_RETURN_IF_ERROR(SetString(f, "type", "type", &out));
        break;
      case 4:
        TRIMTAB_RETURN_IF_ERROR(AddMapEntry(f, false, "stringData", &out["stringData"]));
        break;
      case 5: {
        TRIMTAB_ASSIGN_OR_RETURN(out["immutable"], Bool(f, "immutable"));
        break;
      }
      default:
        break;
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

StatusOr<int32_t> Int32(const ProtoField& f, std::string_view what) {
  if (f.type != WireType::kVarint) {
    return Malformed(std::string(what) + ": expected a varint field, got wire type " +
                     std::to_string(static_cast<int>(f.type)));
  }
  return static_cast<int32_t>(static_cast<uint32_t>(f.varint));
}

// autoscaling/v1 HorizontalPodAutoscaler (what `kubectl autoscale` sends): 1 metadata,
// 2 spec{1 scaleTargetRef{1 kind, 2 name, 3 apiVersion}, 2 minReplicas, 3 maxReplicas,
// 4 targetCPUUtilizationPercentage}; status is not read (a create resets it).
StatusOr<Json> DecodeHorizontalPodAutoscalerV1(std::string_view raw, Json out) {
  ProtoReader r(raw);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    if (f.number == 1) {
      TRIMTAB_RETURN_IF_ERROR(DecodeMetadataField(f, &out));
    } else if (f.number == 2) {
      TRIMTAB_ASSIGN_OR_RETURN(std::string_view b, Bytes(f, "spec"));
      Json spec = Json::object();
      ProtoReader s(b);
      while (!s.done()) {
        TRIMTAB_ASSIGN_OR_RETURN(ProtoField g, s.Next());
        if (g.number == 1) {
          TRIMTAB_ASSIGN_OR_RETURN(std::string_view rb, Bytes(g, "spec.scaleTargetRef"));
          Json ref = Json::object();
          ProtoReader rr(rb);
          while (!rr.done()) {
            TRIMTAB_ASSIGN_OR_RETURN(ProtoField h, rr.Next());
            if (h.number == 1) TRIMTAB_RETURN_IF_ERROR(SetString(h, "spec.scaleTargetRef.kind", "kind", &ref));
            if (h.number == 2) TRIMTAB_RETURN_IF_ERROR(SetString(h, "spec.scaleTargetRef.name", "name", &ref));
            if (h.number == 3) {
              TRIMTAB_RETURN_IF_ERROR(SetString(h, "spec.scaleTargetRef.apiVersion", "apiVersion", &ref));
            }
          }
          spec["scaleTargetRef"] = std::move(ref);
        } else if (g.number == 2) {
          TRIMTAB_ASSIGN_OR_RETURN(spec["minReplicas"], Int32(g, "spec.minReplicas"));
        } else if (g.number == 3) {
          TRIMTAB_ASSIGN_OR_RETURN(spec["maxReplicas"], Int32(g, "spec.maxReplicas"));
        } else if (g.number == 4) {
          TRIMTAB_ASSIGN_OR_RETURN(spec["targetCPUUtilizationPercentage"],
                                   Int32(g, "spec.targetCPUUtilizationPercentage"));
        }
      }
      out["spec"] = std::move(spec);
    }
  }
  return out;
}

ApiError Unsupported(std::string what) {
  return UnsupportedMediaType(
      std::move(what) +
      "; this server decodes protobuf request bodies only for v1 Namespace, ConfigMap and "
      "Secret, autoscaling/v1 HorizontalPodAutoscaler and the authentication/authorization "
      "reviews and TokenRequest - send JSON instead, e.g. `kubectl create ... --dry-run=client -o yaml | "
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
  Json shell = ObjectShell(env->api_version, env->kind);
  if (env->api_version == "v1" && env->kind == "Namespace") {
    decoded = DecodeNamespace(env->raw, std::move(shell));
  } else if (env->api_version == "v1" && env->kind == "ConfigMap") {
    decoded = DecodeConfigMap(env->raw, std::move(shell));
  } else if (env->api_version == "v1" && env->kind == "Secret") {
    decoded = DecodeSecret(env->raw, std::move(shell));
  } else if (env->api_version == "autoscaling/v1" && env->kind == "HorizontalPodAutoscaler") {
    decoded = DecodeHorizontalPodAutoscalerV1(env->raw, std::move(shell));
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
