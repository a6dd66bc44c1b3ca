// Field tables of the Kubernetes protobuf messages (k8s.io/api v1.32 generated.proto) that the
// API server decodes from protobuf request bodies (protobuf_decode.h).
//
// Each message is written as one spec string of space-separated fields
//   <jsonName>=<number><type>[modifiers]
// with types s string, b bytes (base64 in JSON), i int32, l int64, o bool, q Quantity (a string),
// x IntOrString, t Time (RFC 3339, seconds), T MicroTime (RFC 3339, microseconds), f FieldsV1
// (raw JSON) and <pkg.version.Message> a nested message; modifiers * repeated, % map<string, type>,
// ~ inline (the message's fields belong to the parent JSON object, Go's `json:",inline"`) and
// ? kept when zero or empty (a Go pointer, or a JSON field without omitempty: what encoding/json
// writes for the same object). Messages are named "<group>.<version>.<Kind>" with the group's
// first DNS label ("core" for the legacy group, "meta" for apimachinery meta/v1).
//
// The table covers every kind trimtab serves or kubectl creates with a typed client: core/v1
// objects, apps/v1, batch/v1, networking/v1, policy/v1, rbac/v1, scheduling/v1, coordination/v1,
// discovery/v1, events/v1, autoscaling/v1 and v2, storage/v1.
//
// Thread-safety: the table is parsed once, on first use, and immutable afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab::cluster {

enum class ProtoType : uint8_t {
  kString,
  kBytes,
  kInt32,
  kInt64,
  kBool,
  kQuantity,
  kIntOrString,
  kTime,
  kMicroTime,
  kFieldsV1,
  kMessage,
};

struct ProtoMessageSpec;

struct ProtoFieldSpec {
  uint32_t number = 0;
  std::string json_name;
  ProtoType type = ProtoType::kString;
  const ProtoMessageSpec* message = nullptr;  // for kMessage
  bool repeated = false;
  bool map = false;         // map<string, type>
  bool inlined = false;     // fields merge into the parent object
  bool keep_zero = false;   // zero / empty values are written, not dropped
};

struct ProtoMessageSpec {
  std::string name;
  std::vector<ProtoFieldSpec> fields;

  // The field with this number, or nullptr (unknown fields are skipped by readers).
  const ProtoFieldSpec* Find(uint32_t number) const;
};

// The message named "<group>.<version>.<Kind>", or nullptr.
const ProtoMessageSpec* FindProtoMessage(std::string_view name);

// The message of an object of `kind` in `api_version` ("v1", "apps/v1",
// "rbac.authorization.k8s.io/v1"...), or nullptr when the table does not have it.
const ProtoMessageSpec* FindProtoMessageForKind(std::string_view api_version,
                                                std::string_view kind);

// Whether the table parsed: every spec well formed and every referenced message present.
// The first error names the message and the field.
Status CheckProtoMessageTable();

}  // namespace trimtab::cluster
