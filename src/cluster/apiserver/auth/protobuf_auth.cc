#include "cluster/apiserver/auth/protobuf_auth.h"

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/handlers/protobuf_decode.h"

namespace trimtab::cluster::auth {
namespace {

// field number -> JSON name of a string field; repeated ones collect into an array.
struct StringField {
  uint32_t number;
  const char* name;
  bool repeated = false;
};

Status WrongType(std::string_view path, uint32_t number) {
  return InvalidArgumentError("invalid protobuf: " + std::string(path) + " field " +
                              std::to_string(number) + " has the wrong wire type");
}

// Reads a message of string fields; nested messages are handled by `nested` (number -> reader).
StatusOr<Json> ReadMessage(
    std::string_view bytes, std::string_view path, const std::vector<StringField>& strings,
    const std::vector<std::pair<uint32_t, std::function<Status(std::string_view, Json*)>>>& nested =
        {},
    const std::vector<std::pair<uint32_t, const char*>>& ints = {}) {
  Json out = Json::object();
  ProtoReader r(bytes);
  while (!r.done()) {
    TRIMTAB_ASSIGN_OR_RETURN(ProtoField f, r.Next());
    bool handled = false;
    for (const StringField& s : strings) {
      if (s.number != f.number) continue;
      if (f.type != WireType::kLengthDelimited) return WrongType(path, f.number);
      std::string value(f.bytes);
      if (s.repeated) {
        out[s.name].push_back(std::move(value));
      } else if (!value.empty()) {
        out[s.name] = std::move(value);
      }
      handled = true;
    }
    for (const auto& [number, read] : nested) {
      if (number != f.number) continue;
      if (f.type != WireType::kLengthDelimited) return WrongType(path, f.number);
      TRIMTAB_RETURN_IF_ERROR(read(f.bytes, &out));
      handled = true;
    }
    for (const auto& [number, name] : ints) {
      if (number != f.number) continue;
      if (f.type != WireType::kVarint) return WrongType(path, f.number);
      out[name] = static_cast<int64_t>(f.varint);
      handled = true;
    }
    (void)handled;  // unknown fields are skipped, as proto2 readers do
  }
  return out;
}

using Nested = std::function<Status(std::string_view, Json*)>;

Nested Into(const char* name, std::string_view path, std::vector<StringField> strings,
            std::vector<std::pair<uint32_t, Nested>> nested = {},
            std::vector<std::pair<uint32_t, const char*>> ints = {}) {
  std::string child = std::string(path) + "." + name;
  return [name, child, strings, nested, ints](std::string_view bytes, Json* parent) -> Status {
    TRIMTAB_ASSIGN_OR_RETURN(Json value, ReadMessage(bytes, child, strings, nested, ints));
    (*parent)[name] = std::move(value);
    return Status::Ok();
  };
}

Nested ResourceAttributes() {
  return Into("resourceAttributes", "spec",
              {{1, "namespace"}, {2, "verb"}, {3, "group"}, {4, "version"}, {5, "resource"},
               {6, "subresource"}, {7, "name"}});
}

Nested NonResourceAttributes() {
  return Into("nonResourceAttributes", "spec", {{1, "path"}, {2, "verb"}});
}

StatusOr<Json> DecodeWithSpec(std::string_view raw, std::string_view api_version,
                              std::string_view kind, const Nested& spec) {
  TRIMTAB_ASSIGN_OR_RETURN(Json object, ReadMessage(raw, kind, {}, {{2, spec}}));
  object["apiVersion"] = std::string(api_version);
  object["kind"] = std::string(kind);
  object["metadata"] = Json::object();
  if (!object.contains("spec")) object["spec"] = Json::object();
  return object;
}

}  // namespace

std::optional<StatusOr<Json>> DecodeAuthProtobuf(std::string_view api_version,
                                                 std::string_view kind, std::string_view raw) {
  if (api_version == "authorization.k8s.io/v1") {
    if (kind == "SelfSubjectAccessReview") {
      return DecodeWithSpec(raw, api_version, kind,
                            Into("spec", kind, {},
                                 {{1, ResourceAttributes()}, {2, NonResourceAttributes()}}));
    }
    if (kind == "SubjectAccessReview" || kind == "LocalSubjectAccessReview") {
      return DecodeWithSpec(
          raw, api_version, kind,
          Into("spec", kind, {{3, "user"}, {4, "groups", true}, {6, "uid"}},
               {{1, ResourceAttributes()}, {2, NonResourceAttributes()}}));
    }
    if (kind == "SelfSubjectRulesReview") {
      return DecodeWithSpec(raw, api_version, kind, Into("spec", kind, {{1, "namespace"}}));
    }
  }
  if (api_version == "authentication.k8s.io/v1") {
    if (kind == "TokenRequest") {
      return DecodeWithSpec(
          raw, api_version, kind,
          Into("spec", kind, {{1, "audiences", true}},
               {{3, Into("boundObjectRef", "spec",
                         {{1, "kind"}, {2, "apiVersion"}, {3, "name"}, {4, "uid"}})}},
               {{4, "expirationSeconds"}}));
    }
    if (kind == "TokenReview") {
      return DecodeWithSpec(raw, api_version, kind,
                            Into("spec", kind, {{1, "token"}, {2, "audiences", true}}));
    }
    if (kind == "SelfSubjectReview") {
      return DecodeWithSpec(raw, api_version, kind, Into("spec", kind, {}));
    }
  }
  return std::nullopt;
}

}  // namespace trimtab::cluster::auth
