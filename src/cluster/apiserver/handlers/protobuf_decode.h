// Decoding of Kubernetes protobuf request bodies (Content-Type application/vnd.kubernetes.protobuf)
// into the JSON objects the rest of the API server works with.
//
// kubectl 1.32's typed generator commands (`create deployment|service|job|role|secret ...`)
// send their bodies as protobuf. The body is the envelope
//   "k8s\0" + runtime.Unknown{1: typeMeta{1: apiVersion, 2: kind}, 2: raw (the object's own
//   message), 3: contentEncoding, 4: contentType}
// and `raw` is encoded with the field numbers of the k8s.io/api generated.proto of its group.
// Supported kinds: every message of protobuf_messages.h (the built-in kinds of the groups listed
// there, including those this server does not serve, which then fail as unknown resources) and
// the authentication/authorization reviews (auth/protobuf_auth.h). The result is the object as
// encoding/json would write the same Go object (zero values of omitempty fields dropped, bytes
// as base64, times as RFC 3339, the zero time left out), so the caller validates and defaults it
// exactly like a JSON body.
//
// ProtoReader is a bounds-checked reader of the protobuf wire format: it never reads past its
// input and reports malformed input as InvalidArgument.
//
// Thread-safety: free functions and a value-type reader over caller-owned bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "cluster/apiserver/api_errors.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

// The four magic bytes that start every Kubernetes protobuf payload.
inline constexpr std::string_view kK8sProtobufMagic{"k8s\0", 4};

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// One field as read off the wire. `varint` holds the value of varint/fixed32/fixed64 fields,
// `bytes` the payload of length-delimited fields and the content of (deprecated) groups, as a
// view into the reader's input.
struct ProtoField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;
  std::string_view bytes;
};

class ProtoReader {
 public:
  explicit ProtoReader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }

  // Reads the next field; REQUIRES !done(). A group is read whole up to its matching end-group
  // and returned as one kStartGroup field. A bad tag or wire type, a truncated value, an
  // over-long varint, an unmatched end-group or groups nested deeper than 32 is InvalidArgument.
  StatusOr<ProtoField> Next();

  // Reads one bare varint (the elements of a packed repeated field); REQUIRES !done().
  StatusOr<uint64_t> NextVarint();

 private:
  StatusOr<uint64_t> ReadVarint();
  StatusOr<ProtoField> ReadField(int depth);

  std::string_view data_;
  size_t pos_ = 0;
};

// Whether a Content-Type media type (lower case, no parameters) is the Kubernetes protobuf one.
bool IsKubernetesProtobufMediaType(std::string_view media_type);

// Decodes a protobuf request body into its JSON object. Malformed protobuf is 400 BadRequest;
// a body without the "k8s\0" magic, a content encoding, or an unsupported kind is
// 415 UnsupportedMediaType with a message naming the kind and the client-side workaround.
ApiResult<Json> DecodeProtobufBody(std::string_view body);

}  // namespace trimtab::cluster
